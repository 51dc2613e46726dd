import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { until } from '../../helpers/worker-process';
import { startReceiver, type Receiver } from '../../helpers/webhook-deliveries';
import { deliveryStarts, webhooksApi } from '../../helpers/webhook-endpoints';
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

/** A test event delivered end to end (its workflow run has completed), then the delivery as one that failed. */
async function failedDelivery(user: Registered, endpointId: string): Promise<{ eventId: string; deliveryId: string }> {
  const hooks = webhooksApi(stack, user);
  const sent = (await hooks.test(endpointId).expect(202)).body;
  await until(async () => {
    const { items } = (await hooks.deliveries(endpointId).expect(200)).body;
    return items.find((d: { id: string; state: string }) => d.id === sent.deliveryId && d.state === 'DELIVERED') ?? null;
  }, 15_000, 'the delivery DELIVERED');
  await until(async () => {
    const run = await stack.temporal.workflow.getHandle(deliverWebhookWorkflowId(endpointId, sent.eventId)).describe();
    return run.status.name === 'COMPLETED' ? run : null;
  }, 15_000, 'the delivery run completed');
  await stack.admin.query("UPDATE webhook_deliveries SET state = 'FAILED', last_error = 'TIMEOUT', settled_at = now() WHERE id = :id", {
    replacements: { id: sent.deliveryId },
  });
  return sent;
}

describe('retryWebhookDelivery (POST /api/v1/webhooks/endpoints/{endpointId}/deliveries/{deliveryId}/retry)', () => {
  test('when a FAILED delivery is retried, then it is PENDING again and its workflow runs again under the same id (the closed run\'s id reused) and delivers the same event', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const endpoint = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    const { eventId, deliveryId } = await failedDelivery(alice, endpoint.id);
    const received = receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length;

    const res = await hooks.retry(endpoint.id, deliveryId).expect(202);
    expect(res.body).toMatchObject({ id: deliveryId, eventId, eventType: 'webhook.test', state: 'PENDING', attemptCount: 1, settledAt: null });
    const starts = await deliveryStarts(stack, eventId);
    expect(starts.map((s) => s.id_reuse_policy)).toEqual(['REJECT_DUPLICATE', 'ALLOW_DUPLICATE']);
    expect(starts[1]).toMatchObject({ workflow_id: deliverWebhookWorkflowId(endpoint.id, eventId), args: [{ tenantId: alice.me.tenantId, endpointId: endpoint.id, eventId, deliveryId }] });
    const [outcome] = await stack.admin.query<{ outcome: string }>(
      "SELECT outcome FROM workflow_starts WHERE args -> 0 ->> 'eventId' = :eventId AND id_reuse_policy = 'ALLOW_DUPLICATE'",
      { replacements: { eventId }, type: QueryTypes.SELECT },
    );
    expect(outcome).toEqual({ outcome: 'STARTED' });

    const delivered = await until(async () => {
      const { items } = (await hooks.deliveries(endpoint.id).expect(200)).body;
      return items.find((d: { id: string; state: string }) => d.id === deliveryId && d.state === 'DELIVERED') ?? null;
    }, 15_000, 'the retried delivery DELIVERED');
    expect(delivered).toMatchObject({ attemptCount: 2, lastError: null });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === eventId)).toHaveLength(received + 1);
    const [audit] = await stack.admin.query<{ subject_type: string }>(
      "SELECT subject_type FROM audit_events WHERE tenant_id = :t AND action = 'webhooks.delivery.retried' AND subject_id = :id",
      { replacements: { t: alice.me.tenantId, id: deliveryId }, type: QueryTypes.SELECT },
    );
    expect(audit).toEqual({ subject_type: 'WEBHOOK_DELIVERY' });
  });

  test('when the delivery is PENDING or DELIVERED, or its endpoint is disabled, then 409 conflict; an unknown delivery or another endpoint\'s is 404', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const endpoint = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    const other = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    const sent = (await hooks.test(endpoint.id).expect(202)).body;
    await until(async () => {
      const { items } = (await hooks.deliveries(endpoint.id).expect(200)).body;
      return items[0]?.state === 'DELIVERED' ? items : null;
    }, 15_000, 'the delivery DELIVERED');
    expect((await hooks.retry(endpoint.id, sent.deliveryId).expect(409)).body).toMatchObject({ type: '/problems/conflict', detail: expect.stringMatching(/DELIVERED/) });
    await stack.admin.query("UPDATE webhook_deliveries SET state = 'PENDING', settled_at = NULL WHERE id = :id", { replacements: { id: sent.deliveryId } });
    expect((await hooks.retry(endpoint.id, sent.deliveryId).expect(409)).body.detail).toMatch(/PENDING/);

    await stack.admin.query("UPDATE webhook_deliveries SET state = 'FAILED', settled_at = now() WHERE id = :id", { replacements: { id: sent.deliveryId } });
    await hooks.update(endpoint.id, { url: receiver.url, eventTypes: ['webhook.test'], enabled: false, lockVersion: 1 }).expect(200);
    expect((await hooks.retry(endpoint.id, sent.deliveryId).expect(409)).body.detail).toMatch(/disabled/);

    await hooks.retry(endpoint.id, randomUUID()).expect(404);
    await hooks.retry(other.id, sent.deliveryId).expect(404);
    const [row] = await stack.admin.query<{ state: string }>('SELECT state FROM webhook_deliveries WHERE id = :id', {
      replacements: { id: sent.deliveryId },
      type: QueryTypes.SELECT,
    });
    expect(row).toEqual({ state: 'FAILED' });
    expect(await deliveryStarts(stack, sent.eventId)).toHaveLength(1);
  });
});
