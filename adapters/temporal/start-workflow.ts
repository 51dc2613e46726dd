import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { TENANT_ID } from '../../contracts/search-attributes';
import type { PendingStart, StartOutcome } from '../../contracts/workflow-starts';

/** Starting a workflow is one RPC; past this the server counts as unavailable, not slow. */
const START_DEADLINE_MS = 5000;

/**
 * Starts one outboxed workflow. Idempotent by its business id: an id that is running (or, by its reuse
 * policy, has run) answers ALREADY_STARTED instead of a second run. Any other failure is UNAVAILABLE, to be
 * retried.
 *
 * Each run carries its outbox row's id in its memo (`startId`, a random id, nothing secret). Where an id runs
 * again (ALLOW_DUPLICATE: a failed close, revaluation or webhook delivery requested anew), the run found may
 * be the previous one, still ending after it recorded its failure; that is not this row's run, so the
 * outcome is UNAVAILABLE and the relay starts this one once the previous run has closed.
 */
export function workflowStarter(
  client: Client,
  observe: (workflowType: string, outcome: StartOutcome['outcome'], seconds: number) => void = () => undefined,
): (start: PendingStart) => Promise<StartOutcome> {
  return async (start) => {
    const began = performance.now();
    const outcome = await attempt(client, start);
    observe(start.workflowType, outcome.outcome, (performance.now() - began) / 1000);
    return outcome;
  };
}

async function attempt(client: Client, start: PendingStart): Promise<StartOutcome> {
  try {
    await client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      client.workflow.start(start.workflowType, {
        workflowId: start.workflowId,
        taskQueue: start.taskQueue,
        args: start.args,
        workflowIdReusePolicy: WorkflowIdReusePolicy[start.idReusePolicy],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        typedSearchAttributes: start.tenantId ? [{ key: TENANT_ID, value: start.tenantId }] : [],
        memo: { startId: start.id },
      }),
    );
    return { outcome: 'STARTED' };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return alreadyStarted(client, start);
    return { outcome: 'UNAVAILABLE', error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * ALREADY_STARTED when the run of the id is this row's, or the id is not one that runs again; for an id that
 * does (ALLOW_DUPLICATE), UNAVAILABLE (retried by the relay) while the run is another row's.
 */
async function alreadyStarted(client: Client, start: PendingStart): Promise<StartOutcome> {
  if (start.idReusePolicy !== 'ALLOW_DUPLICATE') return { outcome: 'ALREADY_STARTED' };
  try {
    const run = await client.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.getHandle(start.workflowId).describe());
    const startId = run.memo?.startId;
    // A run from before runs carried their start's id counts as this row's, as every run did then.
    if (startId === undefined || startId === start.id) return { outcome: 'ALREADY_STARTED' };
    return { outcome: 'UNAVAILABLE', error: `another run of ${start.workflowId} (${run.status.name}) came first; this one starts after it closed` };
  } catch (err) {
    return { outcome: 'UNAVAILABLE', error: err instanceof Error ? err.message : String(err) };
  }
}
