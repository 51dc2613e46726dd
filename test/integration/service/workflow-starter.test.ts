import { randomUUID } from 'node:crypto';
import { workflowStarter } from '../../../adapters/temporal/start-workflow';
import type { IdReusePolicy, PendingStart } from '../../../contracts/workflow-starts';
import { startTestStack, type TestStack } from '../../helpers/stack';

// The outbox's starter against the real Temporal server. A run of an id that may run again can still be
// going when a new request for the same id is recorded (a failed revaluation asked again while its run
// ends): that run is not the new row's, so the row waits for it to close and then starts its own.
// Workflows here go to a task queue nobody polls: they stay running until the test ends them.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
});
afterAll(async () => {
  await stack.stop();
});

const taskQueue = `nobody-polls-${randomUUID()}`;
const pending = (workflowId: string, idReusePolicy: IdReusePolicy): PendingStart => ({
  id: randomUUID(),
  attempts: 0,
  workflowId,
  workflowType: 'postRevaluationWorkflow',
  taskQueue,
  args: [],
  tenantId: null,
  idReusePolicy,
});

describe('workflowStarter', () => {
  test('an id that runs again: another row\'s run still going is UNAVAILABLE (retried), this row\'s own is ALREADY_STARTED, and once the other closed this one starts', async () => {
    const start = workflowStarter(stack.temporal);
    const workflowId = `revaluation-test-${randomUUID()}`;
    const first = pending(workflowId, 'ALLOW_DUPLICATE');
    expect(await start(first)).toEqual({ outcome: 'STARTED' });
    // The same row again (a relay tick after the API's own start): its run exists.
    expect(await start(first)).toEqual({ outcome: 'ALREADY_STARTED' });

    const second = pending(workflowId, 'ALLOW_DUPLICATE');
    const refused = await start(second);
    expect(refused.outcome).toBe('UNAVAILABLE');
    const handle = stack.temporal.workflow.getHandle(workflowId);
    expect((await handle.describe()).memo).toEqual({ startId: first.id });

    await handle.terminate('the previous run ends');
    expect(await start(second)).toEqual({ outcome: 'STARTED' });
    const current = await stack.temporal.workflow.getHandle(workflowId).describe();
    expect(current.memo).toEqual({ startId: second.id });
    expect(current.status.name).toBe('RUNNING');
    await stack.temporal.workflow.getHandle(workflowId).terminate('test over');
  });

  test('an id that runs once: any earlier run answers ALREADY_STARTED, whichever row started it', async () => {
    const start = workflowStarter(stack.temporal);
    const workflowId = `register-test-${randomUUID()}`;
    expect(await start(pending(workflowId, 'REJECT_DUPLICATE'))).toEqual({ outcome: 'STARTED' });
    expect(await start(pending(workflowId, 'REJECT_DUPLICATE'))).toEqual({ outcome: 'ALREADY_STARTED' });
    await stack.temporal.workflow.getHandle(workflowId).terminate('test over');
    expect(await start(pending(workflowId, 'REJECT_DUPLICATE'))).toEqual({ outcome: 'ALREADY_STARTED' });
  });
});
