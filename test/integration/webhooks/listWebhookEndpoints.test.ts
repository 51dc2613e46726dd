import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { webhooksApi } from '../../helpers/webhook-endpoints';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('listWebhookEndpoints (GET /api/v1/webhooks/endpoints)', () => {
  test('when a workspace has endpoints, then they are listed oldest first, page by page, without secrets, deleted ones and other workspaces\' left out', async () => {
    const [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
    const hooks = webhooksApi(stack, alice);
    const created = [];
    for (const n of [1, 2, 3, 4]) created.push((await hooks.create({ url: `https://erp.example.com/hooks/${n}`, eventTypes: ['webhook.test'] }).expect(201)).body);
    await hooks.remove(created[1]!.id).expect(204);
    await webhooksApi(stack, bob).create({ url: 'https://bob.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201);

    const all = await hooks.list().expect(200);
    expect(all.body).toMatchObject({ page: 0, size: 50, totalElements: 3, totalPages: 1 });
    expect(all.body.items.map((e: { url: string }) => e.url)).toEqual(['https://erp.example.com/hooks/1', 'https://erp.example.com/hooks/3', 'https://erp.example.com/hooks/4']);
    for (const item of all.body.items) expect(item).not.toHaveProperty('secret');
    for (const { secret } of created) expect(JSON.stringify(all.body)).not.toContain(secret.slice(6));

    const second = await hooks.list({ page: 1, size: 2 }).expect(200);
    expect(second.body).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
    expect(second.body.items.map((e: { url: string }) => e.url)).toEqual(['https://erp.example.com/hooks/4']);
  });

  test('when page or size is out of range, then 400 validation', async () => {
    const alice = await registerWorkspace(stack);
    expect((await webhooksApi(stack, alice).list({ size: 101 }).expect(400)).body.type).toBe('/problems/validation');
    await webhooksApi(stack, alice).list({ size: 0 }).expect(400);
  });
});
