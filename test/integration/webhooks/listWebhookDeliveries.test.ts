import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { until } from '../../helpers/worker-process';
import { startReceiver, type Receiver } from '../../helpers/webhook-deliveries';
import { webhooksApi } from '../../helpers/webhook-endpoints';

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

describe('listWebhookDeliveries (GET /api/v1/webhooks/endpoints/{endpointId}/deliveries)', () => {
  test('when an endpoint has deliveries, then they are listed newest first, page by page, with their state and attempts; another endpoint\'s are left out', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const endpoint = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    const other = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await hooks.test(endpoint.id).expect(202)).body);
    await hooks.test(other.id).expect(202);

    const page = await until(async () => {
      const res = await hooks.deliveries(endpoint.id).expect(200);
      return res.body.items.every((d: { state: string }) => d.state === 'DELIVERED') ? res.body : null;
    }, 15_000, 'the three deliveries DELIVERED');
    expect(page).toMatchObject({ page: 0, size: 50, totalElements: 3, totalPages: 1 });
    expect(page.items.map((d: { id: string }) => d.id)).toEqual(sent.map((s) => s.deliveryId).reverse());
    expect(page.items[0]).toEqual({
      id: sent[2]!.deliveryId,
      eventId: sent[2]!.eventId,
      eventType: 'webhook.test',
      state: 'DELIVERED',
      attemptCount: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
      createdAt: expect.any(String),
      settledAt: expect.any(String),
    });

    const second = (await hooks.deliveries(endpoint.id, { page: 1, size: 2 }).expect(200)).body;
    expect(second).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
    expect(second.items.map((d: { id: string }) => d.id)).toEqual([sent[0]!.deliveryId]);
  });

  test('when the endpoint has none, then an empty page', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const endpoint = (await hooks.create({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201)).body;
    expect((await hooks.deliveries(endpoint.id).expect(200)).body).toEqual({ items: [], page: 0, size: 50, totalElements: 0, totalPages: 0 });
  });
});
