import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../runtime/logger';
import { settleWorkflowStarts } from '../db/repositories/workflows/starts';
import { workflowStarter } from '../adapters/temporal/start-workflow';

export interface StartRelay {
  /** Settles the due starts once (what every tick does); returns how many it started. */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The reconciler of the workflow-start outbox: every `intervalMs` it starts the recorded starts of its
 * worker's task queue that are due (a request that could not reach Temporal, or a process that died between its commit and its start).
 * Several relays (one per worker) share the table safely: rows are claimed with SKIP LOCKED, and a start
 * is idempotent by its business workflow id.
 */
export function startRelay(deps: { db: Sequelize; client: Client; logger: Logger; taskQueue: string; intervalMs: number; batch?: number }): StartRelay {
  const start = workflowStarter(deps.client);
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<number> = Promise.resolve(0);
  let stopped = false;

  async function tick(): Promise<number> {
    const settled = await settleWorkflowStarts(deps.db, { due: true, taskQueue: deps.taskQueue, limit: deps.batch ?? 50 }, start);
    for (const { workflowId, result } of settled) {
      if (result.outcome === 'UNAVAILABLE') deps.logger.warn('workflow start postponed', { workflowId, error: result.error });
      else deps.logger.info('workflow started by the relay', { workflowId, outcome: result.outcome });
    }
    return settled.filter((s) => s.result.outcome !== 'UNAVAILABLE').length;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = tick().catch((err: unknown) => {
        deps.logger.error('workflow start relay failed', { error: err instanceof Error ? err.message : String(err) });
        return 0;
      });
      void inFlight.finally(schedule);
    }, deps.intervalMs);
  }
  schedule();

  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
