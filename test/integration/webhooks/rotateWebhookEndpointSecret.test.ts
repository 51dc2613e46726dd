import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { webhooksApi } from '../../helpers/webhook-endpoints';
import { createFactorSecrets } from '../../../core/identity/factor-secrets';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('rotateWebhookEndpointSecret (POST /api/v1/webhooks/endpoints/{endpointId}/secret)', () => {
  test('when the secret is rotated, then the new one is answered once, the old one signs beside it for 24 hours, an older one is dropped, and the audit event holds neither', async () => {
    const alice = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, alice);
    const created = (await hooks.create({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201)).body;
    const before = Date.now();
    const rotated = (await hooks.rotate(created.id).expect(200)).body;
    expect(rotated).toMatchObject({ id: created.id, lockVersion: 2, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(rotated.secret).not.toBe(created.secret);
    const expires = Date.parse(rotated.previousSecretExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 5000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 5000);

    const read = (await hooks.get(created.id).expect(200)).body;
    expect(read).toMatchObject({ previousSecretExpiresAt: rotated.previousSecretExpiresAt, lockVersion: 2 });
    expect(read).not.toHaveProperty('secret');

    const secrets = createFactorSecrets(stack.config.secondFactors.secretKeys);
    const sealed = async () =>
      (await stack.admin.query<{ current: string; previous: string }>(
        'SELECT secret_sealed AS current, previous_secret_sealed AS previous FROM webhook_endpoints WHERE id = :id',
        { replacements: { id: created.id }, type: QueryTypes.SELECT },
      ))[0]!;
    let stored = await sealed();
    expect(secrets.decrypt('webhook-secret', created.id, stored.current)).toBe(rotated.secret);
    expect(secrets.decrypt('webhook-secret', created.id, stored.previous)).toBe(created.secret);

    const again = (await hooks.rotate(created.id).expect(200)).body;
    stored = await sealed();
    expect(secrets.decrypt('webhook-secret', created.id, stored.current)).toBe(again.secret);
    expect(secrets.decrypt('webhook-secret', created.id, stored.previous)).toBe(rotated.secret);

    const audit = await stack.admin.query<Record<string, unknown>>(
      "SELECT * FROM audit_events WHERE tenant_id = :t AND subject_id = :id AND action = 'webhooks.endpoint.secret-rotated'",
      { replacements: { t: alice.me.tenantId, id: created.id }, type: QueryTypes.SELECT },
    );
    expect(audit).toHaveLength(2);
    for (const secret of [created.secret, rotated.secret, again.secret]) expect(JSON.stringify(audit)).not.toContain(secret.slice(6));
  });
});
