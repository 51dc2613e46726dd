import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { WorkflowStart as WorkflowStartRow } from '../../models';
import { execute, selectRows, transactionOf, type Db } from '../../connection';
import type { IdReusePolicy, PendingStart, StartOutcome, WorkflowStart } from '../../../contracts/workflow-starts';

// The outbox of workflow starts (table workflow_starts). Serves every operation that starts a workflow
// (api/workflow-client.ts) and the start relay. A start is recorded through the model; settling is raw SQL.

/** Records a start inside the mutation's transaction; returns its id. */
export async function enqueueWorkflowStart(tx: Db, start: WorkflowStart): Promise<string> {
  const id = randomUUID();
  await WorkflowStartRow.create(
    {
      id,
      workflowId: start.workflowId,
      workflowType: start.workflowType,
      taskQueue: start.taskQueue,
      args: start.args,
      tenantAttribute: start.tenantId,
      idReusePolicy: start.idReusePolicy,
    },
    { transaction: transactionOf(tx), returning: false },
  );
  return id;
}

/** Which rows to settle: one start, the pending starts of one workflow id, or the due ones of a task queue (the relay). */
export type StartFilter = { id: string } | { workflowId: string } | { due: true; taskQueue: string; limit: number };

/**
 * Claims the pending rows of `filter` (the relay skips rows another process holds; a request waits for its
 * own row and, if another process settled it meanwhile, answers that outcome), runs `start` on each and
 * records the outcome in the same transaction: started rows are done, unreached ones wait with backoff
 * (1 s doubling to 60 s). After the first unreached start the rest are left for later: Temporal is down.
 * Returns each tried row's outcome. Raw SQL: claiming due rows is a lock (FOR UPDATE SKIP LOCKED), so two
 * relays (or a relay and a request) never start the same row at once, and the rows are settled under it.
 */
export async function settleWorkflowStarts(
  db: Sequelize,
  filter: StartFilter,
  start: (pending: PendingStart) => Promise<StartOutcome>,
): Promise<Array<{ id: string; workflowId: string; result: StartOutcome }>> {
  return db.transaction(async (tx) => {
    const where =
      'id' in filter ? 'id = :id' : 'workflowId' in filter ? 'workflow_id = :workflowId' : 'task_queue = :taskQueue AND next_attempt_at <= now()';
    const rows = await selectRows<{
      id: string; workflow_id: string; workflow_type: string; task_queue: string; args: unknown[];
      tenant_attribute: string | null; id_reuse_policy: IdReusePolicy; attempts: number;
    }>(
      tx,
      `SELECT id, workflow_id, workflow_type, task_queue, args, tenant_attribute, id_reuse_policy, attempts
         FROM workflow_starts WHERE started_at IS NULL AND ${where}
        ORDER BY next_attempt_at LIMIT :limit FOR UPDATE ${'due' in filter ? 'SKIP LOCKED' : ''}`,
      { ...filter, limit: 'limit' in filter ? filter.limit : 100 },
    );
    const settled: Array<{ id: string; workflowId: string; result: StartOutcome }> = [];
    for (const row of rows) {
      const result = await start({
        id: row.id,
        workflowId: row.workflow_id,
        workflowType: row.workflow_type,
        taskQueue: row.task_queue,
        args: row.args,
        tenantId: row.tenant_attribute,
        idReusePolicy: row.id_reuse_policy,
        attempts: row.attempts,
      });
      if (result.outcome === 'UNAVAILABLE') {
        await execute(
          tx,
          `UPDATE workflow_starts SET attempts = attempts + 1, last_error = left(:error, 500),
                  next_attempt_at = now() + make_interval(secs => least(60, power(2, attempts)))
            WHERE id = :id`,
          { id: row.id, error: result.error },
        );
      } else {
        await execute(tx, `UPDATE workflow_starts SET started_at = now(), outcome = :outcome WHERE id = :id`, { id: row.id, outcome: result.outcome });
      }
      settled.push({ id: row.id, workflowId: row.workflow_id, result });
      if (result.outcome === 'UNAVAILABLE') break;
    }
    if ('id' in filter && settled.length === 0) {
      // Someone else (a relay, a concurrent retry) settled it first: we waited for its lock, so its outcome is final.
      const [done] = await selectRows<{ workflow_id: string; outcome: 'STARTED' | 'ALREADY_STARTED' | null }>(
        tx,
        `SELECT workflow_id, outcome FROM workflow_starts WHERE id = :id`,
        { id: filter.id },
      );
      if (done?.outcome) settled.push({ id: filter.id, workflowId: done.workflow_id, result: { outcome: done.outcome } });
    }
    return settled;
  });
}
