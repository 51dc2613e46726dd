import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { arrangeEndpoint, deliveryResult, recordEvent, startReceiver, storedAttempts, storedDelivery, type Receiver } from '../../helpers/webhook-deliveries';
import { startWorkerProcess, until } from '../../helpers/worker-process';

// A worker killed with SIGKILL while its attempt waits for the receiver: the attempt stops heartbeating,
// another worker makes it again, and the delivery completes. "While it waits" is made certain: the
// receiver holds the first request unanswered, and the test kills the worker once that request arrived.

let stack: TestStack;
let worker: ChildProcess | null = null;
let receiver: Receiver | null = null;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
});
afterEach(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker!.once('exit', resolve));
  }
  worker = null;
  await receiver?.close();
});
afterAll(async () => {
  await stack.stop();
});

test('deliverWebhookWorkflow: SIGKILL while the receiver holds the attempt; another worker delivers it, with the same webhook-id, one attempt recorded', async () => {
  worker = startWorkerProcess(stack);
  const admin = await registerWorkspace(stack);
  const tenantId = admin.me.tenantId;
  receiver = await startReceiver((n) => (n === 0 ? 'hold' : 204));
  const endpoint = await arrangeEndpoint(stack, tenantId, receiver.url);
  const { eventId, deliveryId } = await recordEvent(stack, tenantId, endpoint.id, { type: 'webhook.test', data: { message: randomUUID() } });

  await until(async () => (receiver!.received.length > 0 ? true : null), 30_000, 'the first attempt to reach the receiver');
  const killed = worker;
  killed.kill('SIGKILL');
  await new Promise((resolve) => killed.once('exit', resolve));
  worker = startWorkerProcess(stack);

  expect(await deliveryResult(stack, endpoint.id, eventId, 90_000)).toEqual({ state: 'DELIVERED', attempts: 1 });
  // The receiver saw the event twice (at least once is the promise), under one webhook-id, signed each time.
  expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
  for (const r of receiver.received) expect(() => new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
  // The killed attempt never came back to be recorded; the one that delivered is the delivery's only attempt.
  expect((await storedAttempts(stack, tenantId, deliveryId)).map((a) => [a.attempt, a.status_code, a.error_class])).toEqual([[1, 204, null]]);
  expect(await storedDelivery(stack, tenantId, deliveryId)).toMatchObject({ state: 'DELIVERED', attempt_count: 1 });
}, 150_000);
