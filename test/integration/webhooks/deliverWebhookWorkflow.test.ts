import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { TENANT_ID } from '../../../contracts/search-attributes';
import { DELIVER_WEBHOOK_WORKFLOW, type DeliverWebhookInput, type DeliverWebhookProgress, type DeliverWebhookResult, type DeliverWebhookWorkflow } from '../../../contracts/webhooks';
import { deliverWebhookWorkflowId } from '../../../contracts/workflow-ids';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { readMail, registerWorkspace, waitForMail, type Registered } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import {
  arrangeEndpoint,
  deliveryResult,
  recordEvent,
  startReceiver,
  storedAttempts,
  storedDelivery,
  storedEndpoint,
  type Receiver,
} from '../../helpers/webhook-deliveries';
import { until } from '../../helpers/worker-process';

// deliverWebhookWorkflow with the real worker, real PostgreSQL and real receivers on 127.0.0.1: signed
// deliveries a receiver verifies with standardwebhooks, retries on the schedule (its first waits shortened
// through WEBHOOK_RETRY_INTERVALS_MS), the per-endpoint limit of attempts in flight, skipped deliveries,
// and an endpoint disabled after days of failures with a mail to its workspace's ADMINs.

let stack: TestStack;
let admin: Registered;
const receivers: Receiver[] = [];
beforeAll(async () => {
  stack = await startTestStack({
    WEBHOOK_RETRY_INTERVALS_MS: '300,300',
    WEBHOOK_ENDPOINT_CONCURRENCY: '2',
    // Few activity slots: an endpoint holding more than its share of them would starve the others.
    WORKER_MAX_CONCURRENT_ACTIVITIES: '4',
    // Held answers stay held for the whole of the slow-receiver test.
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '30000',
  });
  admin = await registerWorkspace(stack);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await stack.stop();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

/** An event and its delivery to the endpoint, recorded without a start: the test starts its run itself. */
async function pendingDelivery(tenantId: string, endpointId: string): Promise<DeliverWebhookInput> {
  const eventId = randomUUID();
  const deliveryId = randomUUID();
  await stack.admin.query(
    `INSERT INTO webhook_events (tenant_id, id, type, payload) VALUES (:tenantId, :eventId, 'webhook.test', '{"message":"hello"}');
     INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id) VALUES (:tenantId, :deliveryId, :endpointId, :eventId)`,
    { replacements: { tenantId, eventId, deliveryId, endpointId } },
  );
  return { tenantId, endpointId, eventId, deliveryId };
}

/** A run of the delivery started by the test itself (optionally as the continuation of an earlier run), to its end. */
const run = (input: DeliverWebhookInput, progress?: DeliverWebhookProgress) =>
  stack.temporal.workflow.execute<DeliverWebhookWorkflow>(DELIVER_WEBHOOK_WORKFLOW, {
    taskQueue: stack.taskQueue,
    workflowId: deliverWebhookWorkflowId(input.endpointId, input.eventId),
    args: progress ? [input, progress] : [input],
  });

const testEvent = () => ({ type: 'webhook.test' as const, data: { message: `hello ${randomUUID()}` } });

describe('deliverWebhookWorkflow', () => {
  test('when a receiver verifies every delivery with the endpoint secret, then the event is delivered once, signed, recorded, and the run carries the TenantId', async () => {
    let verified: unknown = null;
    let secret = '';
    const r = await receiver((_, request) => {
      try {
        verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
        return 204;
      } catch {
        return 400;
      }
    });
    const tenantId = admin.me.tenantId;
    const endpoint = await arrangeEndpoint(stack, tenantId, r.url, { eventTypes: ['journal-entry.posted'] });
    secret = endpoint.secret;
    const data = { entryId: randomUUID(), number: 42, entryDate: '2026-11-25', lineCount: 2 };
    const { eventId, deliveryId } = await recordEvent(stack, tenantId, endpoint.id, { type: 'journal-entry.posted', data });

    expect(await deliveryResult(stack, endpoint.id, eventId)).toEqual({ state: 'DELIVERED', attempts: 1 });
    expect(r.received).toHaveLength(1);
    const [request] = r.received;
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(verified).toEqual({ type: 'journal-entry.posted', timestamp: expect.any(String), tenantId, data });
    // As a receiver would find them: a changed body, or the same delivery replayed after the tolerance, fail.
    expect(() => new Webhook(secret).verify(request!.body.replace('42', '43'), request!.headers as Record<string, string>)).toThrow(WebhookVerificationError);
    const old = { ...(request!.headers as Record<string, string>), 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600) };
    expect(() => new Webhook(secret).verify(request!.body, old)).toThrow(WebhookVerificationError);

    expect(await storedDelivery(stack, tenantId, deliveryId)).toMatchObject({
      state: 'DELIVERED', attempt_count: 1, last_status_code: 204, last_error: null, next_attempt_at: null, settled_at: expect.any(Date),
    });
    expect(await storedAttempts(stack, tenantId, deliveryId)).toEqual([{ attempt: 1, status_code: 204, error_class: null, duration_ms: expect.any(Number), response_excerpt: '' }]);
    const description = await stack.temporal.workflow.getHandle(deliverWebhookWorkflowId(endpoint.id, eventId)).describe();
    expect(description.typedSearchAttributes.get(TENANT_ID)).toBe(tenantId);
  });

  test('when the secret was rotated within its overlap, then both secrets sign, the current one first, and a receiver with either verifies', async () => {
    const r = await receiver();
    const endpoint = await arrangeEndpoint(stack, admin.me.tenantId, r.url, { previousSecret: { until: 'future' } });
    const { eventId } = await recordEvent(stack, admin.me.tenantId, endpoint.id, testEvent());
    expect(await deliveryResult(stack, endpoint.id, eventId)).toEqual({ state: 'DELIVERED', attempts: 1 });
    const headers = r.received[0]!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(endpoint.secret).verify(r.received[0]!.body, headers)).not.toThrow();
    expect(() => new Webhook(endpoint.previousSecret!).verify(r.received[0]!.body, headers)).not.toThrow();
    // Alone, the second signature is the previous secret's.
    const second = { ...headers, 'webhook-signature': headers['webhook-signature']!.split(' ')[1]! };
    expect(() => new Webhook(endpoint.previousSecret!).verify(r.received[0]!.body, second)).not.toThrow();
  });

  test('when the overlap after a rotation has ended, then only the current secret signs', async () => {
    const r = await receiver();
    const endpoint = await arrangeEndpoint(stack, admin.me.tenantId, r.url, { previousSecret: { until: 'past' } });
    const { eventId } = await recordEvent(stack, admin.me.tenantId, endpoint.id, testEvent());
    await deliveryResult(stack, endpoint.id, eventId);
    const headers = r.received[0]!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => new Webhook(endpoint.previousSecret!).verify(r.received[0]!.body, headers)).toThrow(WebhookVerificationError);
  });

  test('when a receiver fails twice first, then the third attempt delivers: the same webhook-id each time, every attempt recorded', async () => {
    const r = await receiver((n) => (n < 2 ? 503 : 200));
    const tenantId = admin.me.tenantId;
    const endpoint = await arrangeEndpoint(stack, tenantId, r.url);
    const { eventId, deliveryId } = await recordEvent(stack, tenantId, endpoint.id, testEvent());

    expect(await deliveryResult(stack, endpoint.id, eventId)).toEqual({ state: 'DELIVERED', attempts: 3 });
    expect(r.received.map((q) => q.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect(new Set(r.received.map((q) => q.body)).size).toBe(1);
    for (const q of r.received) expect(() => new Webhook(endpoint.secret).verify(q.body, q.headers as Record<string, string>)).not.toThrow();
    expect((await storedAttempts(stack, tenantId, deliveryId)).map((a) => [a.attempt, a.status_code, a.error_class])).toEqual([
      [1, 503, 'HTTP_STATUS'],
      [2, 503, 'HTTP_STATUS'],
      [3, 200, null],
    ]);
    expect(await storedDelivery(stack, tenantId, deliveryId)).toMatchObject({ state: 'DELIVERED', attempt_count: 3, last_status_code: 200, last_error: null });
    // The failures set the endpoint's failing_since; the success cleared it.
    expect((await storedEndpoint(stack, tenantId, endpoint.id)).failing_since).toBeNull();
  });

  test('when a receiver is failing, then the delivery shows its last error and next attempt, and the endpoint when it began failing', async () => {
    let failing = true;
    const r = await receiver(() => (failing ? 500 : 204));
    const tenantId = admin.me.tenantId;
    const endpoint = await arrangeEndpoint(stack, tenantId, r.url);
    const { eventId, deliveryId } = await recordEvent(stack, tenantId, endpoint.id, testEvent());
    const pending = await until(async () => {
      const d = await storedDelivery(stack, tenantId, deliveryId);
      return d.attempt_count >= 1 ? d : null;
    }, 15_000, 'the first failed attempt');
    expect(pending).toMatchObject({ state: 'PENDING', last_status_code: 500, last_error: 'the receiver answered HTTP 500', next_attempt_at: expect.any(Date) });
    expect((await storedEndpoint(stack, tenantId, endpoint.id)).failing_since).toEqual(expect.any(Date));
    failing = false;
    expect(await deliveryResult(stack, endpoint.id, eventId)).toMatchObject({ state: 'DELIVERED' });
    expect((await storedEndpoint(stack, tenantId, endpoint.id)).failing_since).toBeNull();
  });

  test('when the delivery is settled already, then a new run of it sends nothing and ends SKIPPED', async () => {
    const r = await receiver();
    const endpoint = await arrangeEndpoint(stack, admin.me.tenantId, r.url);
    const { eventId, deliveryId } = await recordEvent(stack, admin.me.tenantId, endpoint.id, testEvent());
    await deliveryResult(stack, endpoint.id, eventId);
    const again = await run({ tenantId: admin.me.tenantId, endpointId: endpoint.id, eventId, deliveryId });
    expect(again).toEqual({ state: 'SKIPPED', reason: 'the delivery is DELIVERED already' });
    expect(r.received).toHaveLength(1);
    expect(await storedAttempts(stack, admin.me.tenantId, deliveryId)).toHaveLength(1);
  });

  test('when the endpoint is deleted before the delivery goes out, then nothing is sent and the delivery ends FAILED, the run SKIPPED', async () => {
    const r = await receiver();
    const tenantId = admin.me.tenantId;
    const endpoint = await arrangeEndpoint(stack, tenantId, r.url);
    const input = await pendingDelivery(tenantId, endpoint.id);
    await stack.admin.query('UPDATE webhook_endpoints SET deleted_at = now() WHERE id = :id', { replacements: { id: endpoint.id } });
    expect(await run(input)).toEqual({ state: 'SKIPPED', reason: 'the endpoint was deleted or disabled before the delivery went out' });
    expect(r.received).toHaveLength(0);
    expect(await storedDelivery(stack, tenantId, input.deliveryId)).toMatchObject({
      state: 'FAILED', attempt_count: 0, last_error: 'the endpoint was deleted or disabled before the delivery went out', settled_at: expect.any(Date),
    });
  });

  test('when one receiver is slow, then its endpoint holds at most its share of attempts and another endpoint is delivered meanwhile', async () => {
    const slow = await receiver(() => 'hold');
    const healthy = await receiver();
    const tenantId = admin.me.tenantId;
    const slowEndpoint = await arrangeEndpoint(stack, tenantId, slow.url);
    const healthyEndpoint = await arrangeEndpoint(stack, tenantId, healthy.url);
    const slowEvents = [];
    for (let i = 0; i < 6; i++) slowEvents.push(await recordEvent(stack, tenantId, slowEndpoint.id, testEvent()));
    await until(async () => (slow.inFlight >= 2 ? true : null), 15_000, 'the slow receiver to hold two requests');

    const began = Date.now();
    const { eventId } = await recordEvent(stack, tenantId, healthyEndpoint.id, testEvent());
    expect(await deliveryResult(stack, healthyEndpoint.id, eventId, 8000)).toEqual({ state: 'DELIVERED', attempts: 1 });
    const healthyTook = Date.now() - began;
    // Meanwhile the slow endpoint never had more than WEBHOOK_ENDPOINT_CONCURRENCY requests in flight.
    expect(slow.mostInFlight).toBe(2);
    expect(healthyTook).toBeLessThan(5000);

    slow.release(204);
    const results = await Promise.all(slowEvents.map((e) => deliveryResult(stack, slowEndpoint.id, e.eventId)));
    expect(results.map((x: DeliverWebhookResult) => x.state)).toEqual(Array(6).fill('DELIVERED'));
    // BUSY answers are no attempts: each delivery has exactly its one.
    for (const e of slowEvents) expect(await storedAttempts(stack, tenantId, e.deliveryId)).toHaveLength(1);
    expect(slow.mostInFlight).toBe(2);
  }, 90_000);
});

describe('deliverWebhookWorkflow disabling an endpoint', () => {
  /**
   * The last attempt of a run whose retry window has ended: the run starts as the continuation of one that
   * began 25 hours ago with thirteen failed attempts (what continue-as-new hands on), so the next failure is its last.
   */
  const lastAttempt = (input: DeliverWebhookInput) => run(input, { attempts: 13, firstAttemptAt: new Date(Date.now() - 25 * 3_600_000).toISOString(), busyStreak: 0 });

  test('when the endpoint has failed for five days and a delivery fails for good, then the endpoint is disabled, audited, and every ADMIN is mailed once', async () => {
    const owner = await registerWorkspace(stack);
    const tenantId = owner.me.tenantId;
    const secondAdmin = await addMember(stack, tenantId, ['ADMIN']);
    const accountant = await addMember(stack, tenantId, ['ACCOUNTANT']);
    const r = await receiver(() => 500);
    const endpoint = await arrangeEndpoint(stack, tenantId, r.url, { failingSinceDaysAgo: 6 });
    const before = await storedEndpoint(stack, tenantId, endpoint.id);

    const input = await pendingDelivery(tenantId, endpoint.id);
    expect(await lastAttempt(input)).toEqual({ state: 'FAILED', attempts: 14, reason: '14 attempt(s) failed; the last: HTTP_STATUS (HTTP 500)' });
    expect(await storedDelivery(stack, tenantId, input.deliveryId)).toMatchObject({ state: 'FAILED', attempt_count: 1, last_status_code: 500, next_attempt_at: null });
    const after = await storedEndpoint(stack, tenantId, endpoint.id);
    expect(after).toMatchObject({ enabled: false, version: before.version + 1 });
    expect(after.disabled_reason).toBe('Disabled by the service: its deliveries have failed for 5 days. The last one: 14 attempt(s) failed; the last: HTTP_STATUS (HTTP 500)');
    const audit = await stack.admin.query<{ action: string; subject_id: string; system_actor: boolean }>(
      `SELECT action, subject_id, system_actor FROM audit_events WHERE tenant_id = :tenantId AND action LIKE 'webhooks.%'`,
      { replacements: { tenantId }, type: QueryTypes.SELECT },
    );
    expect(audit).toEqual([{ action: 'webhooks.endpoint.disabled', subject_id: endpoint.id, system_actor: true }]);

    for (const email of [owner.email, secondAdmin.email]) {
      const mail = (await waitForMail(stack, email, email === owner.email ? 2 : 1)).filter((m) => m.subject === 'A webhook endpoint was disabled');
      expect(mail).toHaveLength(1);
      expect(mail[0]!.text).toContain(`${new URL(r.url).origin}/hooks`);
      // The query of the endpoint's URL may hold the receiver's own token: never in a mail.
      expect(mail[0]!.text).not.toContain('receiver-own-token');
    }
    expect(await readMail(stack, accountant.email)).toEqual([]);
    const [recorded] = await stack.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM mail_messages WHERE purpose = 'WEBHOOK_DISABLED' AND mail_key LIKE :key`, {
      replacements: { key: `webhook-disabled:${endpoint.id}:%` },
      type: QueryTypes.SELECT,
    });
    expect(recorded!.n).toBe(2);

    // Its other pending deliveries end SKIPPED at their next attempt, sending nothing.
    const next = await pendingDelivery(tenantId, endpoint.id);
    const sent = r.received.length;
    expect(await lastAttempt(next)).toEqual({ state: 'SKIPPED', reason: 'the endpoint was deleted or disabled before the delivery went out' });
    expect(r.received).toHaveLength(sent);
  }, 60_000);

  test('when the endpoint has failed for less than five days, then a delivery failing for good leaves it enabled and nobody is mailed', async () => {
    const r = await receiver(() => 500);
    const tenantId = admin.me.tenantId;
    const endpoint = await arrangeEndpoint(stack, tenantId, r.url, { failingSinceDaysAgo: 4 });
    const mailsBefore = (await readMail(stack, admin.email)).length;
    expect(await lastAttempt(await pendingDelivery(tenantId, endpoint.id))).toMatchObject({ state: 'FAILED', attempts: 14 });
    expect(await storedEndpoint(stack, tenantId, endpoint.id)).toMatchObject({ enabled: true, disabled_reason: null, failing_since: expect.any(Date) });
    expect(await readMail(stack, admin.email)).toHaveLength(mailsBefore);
  });
});
