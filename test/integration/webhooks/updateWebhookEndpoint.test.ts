import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { webhooksApi } from '../../helpers/webhook-endpoints';

let stack: TestStack;
let alice: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const stored = async (id: string) =>
  (await stack.admin.query<{ secret_sealed: string; disabled_reason: string | null; failing_since: Date | null }>(
    'SELECT secret_sealed, disabled_reason, failing_since FROM webhook_endpoints WHERE id = :id',
    { replacements: { id }, type: QueryTypes.SELECT },
  ))[0]!;

describe('updateWebhookEndpoint (PUT /api/v1/webhooks/endpoints/{endpointId})', () => {
  test('when the lockVersion is current, then the URL, event types, description and enabled are replaced, the version moves, the secret stays, and the change is audited without the URL\'s query', async () => {
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'], description: 'old' }).expect(201)).body;
    const sealed = (await stored(created.id)).secret_sealed;
    const res = await hooks
      .update(created.id, { url: 'https://erp.example.com/v2/hooks?key=receiver-query-secret', eventTypes: ['member.joined', 'member.removed'], enabled: false, lockVersion: 1 })
      .expect(200);
    expect(res.body).toMatchObject({
      id: created.id,
      url: 'https://erp.example.com/v2/hooks?key=receiver-query-secret',
      eventTypes: ['member.joined', 'member.removed'],
      description: null,
      enabled: false,
      disabledReason: null,
      lockVersion: 2,
    });
    expect(res.body).not.toHaveProperty('secret');
    expect((await stored(created.id)).secret_sealed).toBe(sealed);
    const [event] = await stack.admin.query<{ details: string }>(
      "SELECT details FROM audit_events WHERE tenant_id = :t AND subject_id = :id AND action = 'webhooks.endpoint.updated'",
      { replacements: { t: alice.me.tenantId, id: created.id }, type: QueryTypes.SELECT },
    );
    expect(event!.details).toBe('url → https://erp.example.com/v2/hooks; event types → member.joined, member.removed; description; disabled');
    expect(event!.details).not.toContain('receiver-query-secret');
  });

  test('when the lockVersion is stale, then 409 stale-version and nothing changes', async () => {
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201)).body;
    await hooks.update(created.id, { url: 'https://erp.example.com/a', eventTypes: ['webhook.test'], enabled: true, lockVersion: 1 }).expect(200);
    const stale = await hooks.update(created.id, { url: 'https://erp.example.com/b', eventTypes: ['webhook.test'], enabled: true, lockVersion: 1 }).expect(409);
    expect(stale.body.type).toBe('/problems/stale-version');
    expect((await hooks.get(created.id).expect(200)).body).toMatchObject({ url: 'https://erp.example.com/a', lockVersion: 2 });
  });

  test('when the new URL or event types break the rules, then 400 validation and nothing changes', async () => {
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201)).body;
    for (const body of [
      { url: 'https://u:p@erp.example.com/hooks', eventTypes: ['webhook.test'], enabled: true, lockVersion: 1 },
      { url: 'https://erp.example.com/hooks#x', eventTypes: ['webhook.test'], enabled: true, lockVersion: 1 },
      { url: 'https://erp.example.com/hooks', eventTypes: [], enabled: true, lockVersion: 1 },
      { url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'], lockVersion: 1 },
      { url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'], enabled: true },
    ]) {
      expect((await hooks.update(created.id, body).expect(400)).body.type).toBe('/problems/validation');
    }
    expect((await hooks.get(created.id).expect(200)).body.lockVersion).toBe(1);
  });

  test('when an endpoint the service disabled for failing is enabled again, then its failure state is cleared', async () => {
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201)).body;
    await stack.admin.query(
      "UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failed for 5 days', failing_since = now() - interval '6 days', version = version + 1 WHERE id = :id",
      { replacements: { id: created.id } },
    );
    const disabled = (await hooks.get(created.id).expect(200)).body;
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failed for 5 days', failingSince: expect.any(String), lockVersion: 2 });
    // Still disabled by a person's change: the service's reason stays.
    await hooks.update(created.id, { url: 'https://erp.example.com/fixed', eventTypes: ['webhook.test'], enabled: false, lockVersion: 2 }).expect(200);
    expect(await stored(created.id)).toMatchObject({ disabled_reason: 'failed for 5 days' });
    const enabled = await hooks.update(created.id, { url: 'https://erp.example.com/fixed', eventTypes: ['webhook.test'], enabled: true, lockVersion: 3 }).expect(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null, lockVersion: 4 });
  });
});
