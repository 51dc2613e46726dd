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
      }),
    );
    return { outcome: 'STARTED' };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { outcome: 'ALREADY_STARTED' };
    return { outcome: 'UNAVAILABLE', error: err instanceof Error ? err.message : String(err) };
  }
}
