import {
  Client,
  Connection,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition, type Workflow } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { AppError } from '../core/shared/problems';
import { FailureType } from '../contracts/failures';
import type { IdReusePolicy, StartOutcome } from '../contracts/workflow-starts';
import { enqueueWorkflowStart, settleWorkflowStarts, type StartFilter } from '../db/repositories/workflows/starts';
import type { Tx } from '../db/connection';
import { workflowStarter } from '../adapters/temporal/start-workflow';
import { triggerRatesRefresh, type RatesScheduleSettings } from '../adapters/temporal/rates-schedule';
import { temporalConnectionOptions } from '../adapters/temporal/connection';
import type { Config } from '../runtime/config';
import type { ApiMetrics } from './http/metrics';

// The API's only door to Temporal: it starts workflows, waits for results and sends updates, and it is
// the one place where workflow outcomes become problem types. Workflows are started by name with their
// signatures from contracts/, so no workflow code runs in the API process.
//
// Every start goes through the outbox: `enqueue` records it in the mutation's own transaction, `dispatch`
// starts it right after the commit, and what dispatch could not start (Temporal unreachable) the relay in
// every worker starts later. A commit can therefore never leave work that nothing will start.

/** Failures of the workflows the API waits for (a period close is never awaited: its failure is its state). */
const FAILURE_TO_PROBLEM: Partial<Record<FailureType, () => AppError>> = {
  MagicLinkInvalid: () => new AppError('registration-proof-invalid'),
  InvalidCredentials: () => new AppError('invalid-credentials'),
  InvitationInvalid: () => new AppError('invitation-invalid'),
  ChallengeMismatch: () => new AppError('invalid-second-factor'),
};

function applicationFailureOf(err: unknown): ApplicationFailure | null {
  let current: unknown = err;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure) return current;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return null;
}

function toAppError(err: WorkflowFailedError | WorkflowUpdateFailedError): unknown {
  const failure = applicationFailureOf(err);
  const mapped = failure?.type ? FAILURE_TO_PROBLEM[failure.type as FailureType] : undefined;
  return mapped ? mapped() : err;
}

/** A start to record with a mutation: the workflow by name, its business id and its (non-secret) input. */
export interface OutboxStart<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  tenantId: string | null;
  idReusePolicy: IdReusePolicy;
}

export interface WorkflowClient {
  /** Records a start in the mutation's transaction (it commits with the mutation or not at all). */
  enqueue<W extends Workflow>(tx: Tx, workflow: string, start: OutboxStart<W>): Promise<string>;
  /**
   * Starts the recorded starts of `filter` now: by the id `enqueue` returned, or every pending start of a
   * workflow id (a retried request re-drives its own work). Never throws for an unreachable Temporal: the
   * outcome says UNAVAILABLE and the relay takes over. An empty list means nothing was pending.
   */
  dispatch(filter: { id: string } | { workflowId: string }): Promise<StartOutcome[]>;
  /** Waits for a started workflow's result, at most `timeoutMs`; then answers 503 operation-pending. */
  result<W extends Workflow>(workflowId: string): Promise<Awaited<ReturnType<W>>>;
  /**
   * Dispatches a recorded start whose result the request answers with, and waits for it. Unreachable
   * Temporal: 503 operation-pending with `pending` (the relay finishes the work). Another request's run
   * holds the business id: `lost`. A request that lost or failed calls `release` (e.g. to scrub a password
   * hash it left for the workflow); a pending one leaves it to the run.
   */
  awaitStarted<W extends Workflow>(
    startId: string,
    workflowId: string,
    options: { lost: () => AppError; pending: string; release: () => Promise<void> },
  ): Promise<Awaited<ReturnType<W>>>;
  /**
   * Sends an update to a running workflow and waits for its result, at most `timeoutMs` (then 503).
   * Answers `null` when the workflow does not exist or has already ended.
   */
  update<Ret, Arg>(workflowId: string, update: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret | null>;
  /** Asks the rates Schedule for a run now (creating the Schedule first if it is missing). */
  triggerRatesRefresh(schedule: RatesScheduleSettings): Promise<void>;
  /** Whether the Temporal frontend answers within `deadlineMs` (the deadline ends the RPC and its retries too). */
  reachable(deadlineMs: number): Promise<boolean>;
}

/** The API process's connection to Temporal (TLS and API key as configured); the caller closes it at stop. */
export async function connectTemporal(settings: Config['temporal']): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect(temporalConnectionOptions(settings));
  return { client: new Client({ connection, namespace: settings.namespace }), connection };
}

export function createWorkflowClient(
  client: Client,
  settings: { db: Sequelize; taskQueue: string; timeoutMs: number; metrics?: Pick<ApiMetrics, 'observeWorkflowStart'> },
): WorkflowClient {
  const { db, taskQueue, timeoutMs } = settings;
  const start = workflowStarter(client, settings.metrics?.observeWorkflowStart);
  async function resultOf<W extends Workflow>(workflowId: string): Promise<Awaited<ReturnType<W>>> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('operation-pending', `Workflow ${workflowId} is still running`)), timeoutMs);
    });
    try {
      return (await Promise.race([client.workflow.getHandle<W>(workflowId).result(), deadline])) as Awaited<ReturnType<W>>;
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw toAppError(err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    enqueue<W extends Workflow>(tx: Tx, workflow: string, outboxed: OutboxStart<W>): Promise<string> {
      return enqueueWorkflowStart(tx, { workflowType: workflow, taskQueue, ...outboxed, args: [...outboxed.args] });
    },
    async dispatch(filter: StartFilter & ({ id: string } | { workflowId: string })): Promise<StartOutcome[]> {
      const settled = await settleWorkflowStarts(db, filter, start);
      return settled.map((s) => s.result);
    },
    result: resultOf,
    async awaitStarted<W extends Workflow>(
      startId: string,
      workflowId: string,
      options: { lost: () => AppError; pending: string; release: () => Promise<void> },
    ): Promise<Awaited<ReturnType<W>>> {
      const [started] = (await settleWorkflowStarts(db, { id: startId }, start)).map((s) => s.result);
      if (!started || started.outcome === 'UNAVAILABLE') throw new AppError('operation-pending', options.pending);
      try {
        if (started.outcome !== 'STARTED') throw options.lost();
        return await resultOf<W>(workflowId);
      } catch (err) {
        if (!(err instanceof AppError && err.type === 'operation-pending')) await options.release();
        throw err;
      }
    },
    async update<Ret, Arg>(workflowId: string, update: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret | null> {
      try {
        return await client.withDeadline(Date.now() + timeoutMs, () =>
          client.workflow.getHandle(workflowId).executeUpdate(update, { args: [arg] }),
        );
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        if (err instanceof WorkflowUpdateFailedError) throw toAppError(err);
        if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
          throw new AppError('operation-pending', `Workflow ${workflowId} did not answer in time`);
        }
        throw err;
      }
    },
    triggerRatesRefresh: (schedule) => triggerRatesRefresh(client, schedule),
    reachable: (deadlineMs) =>
      client.withDeadline(Date.now() + deadlineMs, () => client.workflowService.getSystemInfo({})).then(
        () => true,
        () => false,
      ),
  };
}
