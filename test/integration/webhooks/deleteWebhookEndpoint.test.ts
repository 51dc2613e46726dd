import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';
import { storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('deleteWebhookEndpoint (DELETE /api/v1/webhooks/endpoints/{endpointId})', () => {
  test('when an endpoint is deleted, then it answers 404, takes no more events, keeps its delivery log in the database, and the deletion is audited', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['journal-entry.posted'] }).expect(201)).body;
    const ledger = ledgerApi(stack, alice);
    await ledger.post(simpleEntry('2025-03-01', '1.00')).expect(201);
    expect((await storedWebhooks(stack, alice.me.tenantId)).deliveries).toHaveLength(1);

    await hooks.remove(created.id).expect(204);
    await hooks.get(created.id).expect(404);
    await hooks.deliveries(created.id).expect(404);
    expect((await hooks.list().expect(200)).body.totalElements).toBe(0);
    expect((await hooks.remove(created.id).expect(404)).body.type).toBe('/problems/not-found');

    await ledger.post(simpleEntry('2025-03-02', '1.00')).expect(201);
    const after = await storedWebhooks(stack, alice.me.tenantId);
    expect(after.events).toHaveLength(1);
    expect(after.deliveries).toHaveLength(1);
    const [row] = await stack.admin.query<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM webhook_endpoints WHERE id = :id', {
      replacements: { id: created.id },
      type: QueryTypes.SELECT,
    });
    expect(row).toEqual({ deleted: true });
    const audit = await stack.admin.query<{ action: string; details: string }>(
      'SELECT action, details FROM audit_events WHERE tenant_id = :t AND subject_id = :id ORDER BY occurred_at',
      { replacements: { t: alice.me.tenantId, id: created.id }, type: QueryTypes.SELECT },
    );
    expect(audit.map((a) => a.action)).toEqual(['webhooks.endpoint.created', 'webhooks.endpoint.deleted']);
    expect(audit[1]!.details).toBe('http://127.0.0.1:9/hooks');
  });
});
