import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { bearer, registerWorkspace } from '../../helpers/clients';
import { until } from '../../helpers/worker-process';
import { startReceiver, type Receiver } from '../../helpers/webhook-deliveries';
import { deliveryStarts, storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';
import { deliverWebhookWorkflowId } from '../../../contracts/workflow-ids';

let stack: TestStack;
let receiver: Receiver;
beforeAll(async () => {
  // The test events' own limit as configured by default (other files lift it, as they lift per-IP limits).
  stack = await startTestStack({ RATE_LIMIT_WEBHOOK_TEST_PER_ENDPOINT: '' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

describe('sendWebhookTestEvent (POST /api/v1/webhooks/endpoints/{endpointId}/test)', () => {
  test('when an ADMIN sends a test event, then one webhook.test event goes to this endpoint only, whatever it subscribes to, signed with its secret', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const target = (await hooks.create({ url: receiver.url, eventTypes: ['journal-entry.posted'] }).expect(201)).body;
    await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201);

    const res = await hooks.test(target.id).expect(202);
    expect(res.body).toEqual({ eventId: expect.any(String), deliveryId: expect.any(String) });
    const { events, deliveries } = await storedWebhooks(stack, alice.me.tenantId);
    expect(events).toEqual([{ id: res.body.eventId, type: 'webhook.test', payload: { endpointId: target.id, message: expect.stringMatching(/test event/) } }]);
    expect(deliveries).toEqual([{ id: res.body.deliveryId, endpoint_id: target.id, event_id: res.body.eventId, state: expect.any(String) }]);
    const [start] = await deliveryStarts(stack, res.body.eventId);
    expect(start).toMatchObject({ workflow_id: deliverWebhookWorkflowId(target.id, res.body.eventId), tenant_attribute: alice.me.tenantId });

    const got = await until(async () => receiver.received.find((r) => r.headers['webhook-id'] === res.body.eventId) ?? null, 15_000, 'the test event received');
    expect(() => new Webhook(target.secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    expect(JSON.parse(got.body)).toMatchObject({ type: 'webhook.test', tenantId: alice.me.tenantId, data: { endpointId: target.id } });

    const [audit] = await stack.admin.query<{ details: string }>(
      "SELECT details FROM audit_events WHERE tenant_id = :t AND action = 'webhooks.test.sent' AND subject_id = :id",
      { replacements: { t: alice.me.tenantId, id: target.id }, type: QueryTypes.SELECT },
    );
    expect(audit!.details).toBe(`event ${res.body.eventId}, delivery ${res.body.deliveryId}`);
  });

  test('when the endpoint is disabled, then 409 conflict; when it is deleted, then 404; nothing is recorded', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    await hooks.update(created.id, { url: receiver.url, eventTypes: ['webhook.test'], enabled: false, lockVersion: 1 }).expect(200);
    expect((await hooks.test(created.id).expect(409)).body.type).toBe('/problems/conflict');
    await hooks.remove(created.id).expect(204);
    await hooks.test(created.id).expect(404);
    expect(await storedWebhooks(stack, alice.me.tenantId)).toEqual({ events: [], deliveries: [] });
  });

  test('when test events come faster than one per endpoint per 10 s, then the others are 429 with Retry-After and record nothing; another endpoint is unaffected', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const endpoint = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    const other = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;

    // The probe's burst: thirty at once.
    const answers = await Promise.all(Array.from({ length: 30 }, () => hooks.test(endpoint.id)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, ...Array<number>(29).fill(429)]);
    for (const limited of answers.filter((a) => a.status === 429)) {
      expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(limited.body.type).toBe('/problems/too-many-requests');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(10);
      expect(limited.body.retryAfter).toBe(Number(limited.headers['retry-after']));
    }
    await hooks.test(other.id).expect(202);
    const { events } = await storedWebhooks(stack, alice.me.tenantId);
    expect(events).toHaveLength(2);
  });

  test('when the endpoint has as many undelivered deliveries as it may have, then a test event is 409 webhook-deliveries-pending and records nothing', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const endpoint = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    // Deliveries that stay PENDING: their workflows go to a task queue no worker polls. The rate is lifted here.
    const config = {
      ...stack.config,
      webhooks: { ...stack.config.webhooks, maxPendingDeliveries: 3, testEventsPerEndpoint: { points: 1_000_000, seconds: 1 } },
    };
    const app = anotherApp(stack, { config, taskQueue: `nobody-polls-${randomUUID()}` });
    const send = () => request(app).post(`${hooks.base}/${endpoint.id}/test`).set(...bearer(alice.accessToken));
    for (let i = 0; i < 3; i++) await send().expect(202);
    const refused = await send().expect(409);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ type: '/problems/webhook-deliveries-pending', limit: 3, pending: 3 });
    expect((await storedWebhooks(stack, alice.me.tenantId)).deliveries).toHaveLength(3);
    // A settled delivery frees its place.
    await stack.admin.query("UPDATE webhook_deliveries SET state = 'FAILED', settled_at = now() WHERE tenant_id = :t AND id = (SELECT id FROM webhook_deliveries WHERE tenant_id = :t LIMIT 1)", {
      replacements: { t: alice.me.tenantId },
    });
    await send().expect(202);
  });
});
