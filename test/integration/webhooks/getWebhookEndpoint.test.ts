import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { webhooksApi } from '../../helpers/webhook-endpoints';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
});
afterAll(async () => {
  await stack.stop();
});

describe('getWebhookEndpoint (GET /api/v1/webhooks/endpoints/{endpointId})', () => {
  test('when an ADMIN reads an endpoint of the workspace, then 200 with everything but the secret', async () => {
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'https://erp.example.com/hooks', eventTypes: ['member.joined'], description: 'HR' }).expect(201)).body;
    const { secret, ...endpoint } = created;
    const read = await hooks.get(created.id).expect(200);
    expect(read.body).toEqual(endpoint);
    expect(JSON.stringify(read.body)).not.toContain(secret.slice(6));
  });

  test('when the id is unknown, or the endpoint was deleted, then 404; a malformed id is 400', async () => {
    const hooks = webhooksApi(stack, alice);
    expect((await hooks.get(randomUUID()).expect(404)).body.type).toBe('/problems/not-found');
    const created = (await hooks.create({ url: 'https://erp.example.com/gone', eventTypes: ['member.joined'] }).expect(201)).body;
    await hooks.remove(created.id).expect(204);
    await hooks.get(created.id).expect(404);
    expect((await hooks.get('not-a-uuid').expect(400)).body.type).toBe('/problems/validation');
  });

  test('when the id is another workspace\'s, then every endpoint operation answers 404 and changes nothing', async () => {
    const theirs = (await webhooksApi(stack, bob).create({ url: 'https://bob.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201)).body;
    const [delivery] = await stack.admin.query<{ id: string }>(
      `WITH e AS (INSERT INTO webhook_events (tenant_id, id, type, payload) VALUES (:t, gen_random_uuid(), 'webhook.test', '{}') RETURNING id)
       INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, state) SELECT :t, gen_random_uuid(), :ep, e.id, 'FAILED' FROM e RETURNING id`,
      { replacements: { t: bob.me.tenantId, ep: theirs.id }, type: QueryTypes.SELECT },
    );
    const mine = webhooksApi(stack, alice);
    const answers = [
      await mine.get(theirs.id),
      await mine.update(theirs.id, { url: 'https://alice.example.com/stolen', eventTypes: ['webhook.test'], enabled: true, lockVersion: 1 }),
      await mine.rotate(theirs.id),
      await mine.deliveries(theirs.id),
      await mine.retry(theirs.id, delivery!.id),
      await mine.test(theirs.id),
      await mine.remove(theirs.id),
    ];
    expect(answers.map((r) => [r.status, r.body.type])).toEqual(Array.from({ length: 7 }, () => [404, '/problems/not-found']));
    expect((await webhooksApi(stack, bob).get(theirs.id).expect(200)).body).toMatchObject({ url: 'https://bob.example.com/hooks', lockVersion: 1 });
    const [row] = await stack.admin.query<{ state: string; events: number }>(
      `SELECT d.state, (SELECT count(*)::int FROM webhook_events WHERE tenant_id = :t) AS events FROM webhook_deliveries d WHERE d.tenant_id = :t`,
      { replacements: { t: bob.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(row).toEqual({ state: 'FAILED', events: 1 });
  });
});
