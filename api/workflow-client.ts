import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition, type Workflow } from '@temporalio/common';
import { AppError } from '../core/problems';
import { FailureType } from '../contracts/failures';

// The API's only door to Temporal: it starts workflows, waits for results and sends updates, and it is
// the one place where workflow outcomes become problem types. Workflows are started by name with their
// signatures from contracts/, so no workflow code runs in the API process.

/** Failures of the workflows the API waits for (a period close is never awaited: its failure is its state). */
const FAILURE_TO_PROBLEM: Partial<Record<FailureType, () => AppError>> = {
  RegistrationProofInvalid: () => new AppError('registration-proof-invalid'),
  InvalidCredentials: () => new AppError('invalid-credentials'),
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

/** Options of a start; the task queue is the client's. */
export type StartOptions<W extends Workflow> = Omit<WorkflowStartOptions<W>, 'taskQueue'>;

export interface WorkflowClient {
  /** Starts the workflow and waits for its result, at most `timeoutMs`; then answers 503 operation-pending. */
  execute<W extends Workflow>(workflow: string, options: StartOptions<W>): Promise<Awaited<ReturnType<W>>>;
  start<W extends Workflow>(workflow: string, options: StartOptions<W>): Promise<void>;
  /**
   * Sends an update to a running workflow and waits for its result, at most `timeoutMs` (then 503).
   * Answers `null` when the workflow does not exist or has already ended.
   */
  update<Ret, Arg>(workflowId: string, update: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret | null>;
}

/** Starting a workflow is one RPC; past this the server counts as unavailable (503), not slow. */
const START_DEADLINE_MS = 5000;

export function createWorkflowClient(client: Client, settings: { taskQueue: string; timeoutMs: number }): WorkflowClient {
  const { taskQueue, timeoutMs } = settings;
  const startWithDeadline = <W extends Workflow>(workflow: string, options: StartOptions<W>) =>
    client.withDeadline(Date.now() + Math.min(START_DEADLINE_MS, timeoutMs), () =>
      client.workflow.start<W>(workflow, { ...options, taskQueue } as WorkflowStartOptions<W>),
    );
  return {
    async execute<W extends Workflow>(workflow: string, options: StartOptions<W>): Promise<Awaited<ReturnType<W>>> {
      const handle = await startWithDeadline<W>(workflow, options);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new AppError('operation-pending', `Workflow ${options.workflowId} is still running`)), timeoutMs);
      });
      try {
        return (await Promise.race([handle.result(), deadline])) as Awaited<ReturnType<W>>;
      } catch (err) {
        if (err instanceof WorkflowFailedError) throw toAppError(err);
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
    async start<W extends Workflow>(workflow: string, options: StartOptions<W>): Promise<void> {
      await startWithDeadline<W>(workflow, options);
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
  };
}
