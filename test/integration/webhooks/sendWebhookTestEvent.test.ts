import { QueryTypes } from 'sequelize';
import { Webhook } from 'standardwebhooks';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { until } from '../../helpers/worker-process';
import { startReceiver, type Receiver } from '../../helpers/webhook-deliveries';
import { deliveryStarts, storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';
import { deliverWebhookWorkflowId } from '../../../contracts/workflow-ids';

let stack: TestStack;
let receiver: Receiver;
beforeAll(async () => {
  stack = await startTestStack();
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
});
