import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { webhooksApi } from '../../helpers/webhook-endpoints';
import { createFactorSecrets } from '../../../core/identity/factor-secrets';

let stack: TestStack;
let admin: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  admin = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const endpointRows = (tenantId: string) =>
  stack.admin.query<{ id: string; url: string; secret_sealed: string }>('SELECT id, url, secret_sealed FROM webhook_endpoints WHERE tenant_id = :tenantId', {
    replacements: { tenantId },
    type: QueryTypes.SELECT,
  });

describe('createWebhookEndpoint (POST /api/v1/webhooks/endpoints)', () => {
  test('when an ADMIN creates an endpoint, then 201 answers it with its secret once, and the stored secret is sealed to the endpoint', async () => {
    const hooks = webhooksApi(stack, admin);
    const body = { url: 'https://erp.example.com/hooks/accounting?token=receiver-token-1', eventTypes: ['journal-entry.posted', 'member.joined'], description: 'ERP sync' };
    const res = await hooks.create(body).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: body.url,
      description: 'ERP sync',
      eventTypes: body.eventTypes,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      lockVersion: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(res.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(res.headers.location).toBe(`/api/v1/webhooks/endpoints/${res.body.id}`);

    // Never again: neither the single view nor the list carries it.
    const read = await hooks.get(res.body.id).expect(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify((await hooks.list().expect(200)).body)).not.toContain(res.body.secret);

    // Stored sealed (never as such), and bound to this endpoint: it opens only under its own id.
    const [row] = (await endpointRows(admin.me.tenantId)).filter((r) => r.id === res.body.id);
    expect(row!.secret_sealed).not.toContain(res.body.secret.slice(6));
    const secrets = createFactorSecrets(stack.config.secondFactors.secretKeys);
    expect(secrets.decrypt('webhook-secret', res.body.id, row!.secret_sealed)).toBe(res.body.secret);
    expect(() => secrets.decrypt('webhook-secret', admin.me.tenantId, row!.secret_sealed)).toThrow();
  });

  test('when an endpoint is created, then its audit event names the URL\'s origin and path, never its query or the secret', async () => {
    const hooks = webhooksApi(stack, admin);
    const res = await hooks.create({ url: 'https://audit.example.com/in/hook?signature=query-secret-value', eventTypes: ['webhook.test'] }).expect(201);
    const [event] = await stack.admin.query<{ action: string; details: string; subject_type: string; actor_membership_id: string }>(
      "SELECT action, details, subject_type, actor_membership_id FROM audit_events WHERE tenant_id = :t AND subject_id = :id AND action = 'webhooks.endpoint.created'",
      { replacements: { t: admin.me.tenantId, id: res.body.id }, type: QueryTypes.SELECT },
    );
    expect(event).toEqual({
      action: 'webhooks.endpoint.created',
      details: 'https://audit.example.com/in/hook; webhook.test',
      subject_type: 'WEBHOOK_ENDPOINT',
      actor_membership_id: admin.me.membershipId,
    });
    expect(JSON.stringify(event)).not.toContain('query-secret-value');
    expect(JSON.stringify(event)).not.toContain(res.body.secret.slice(6));
  });

  test.each([
    ['a relative URL', { url: '/hooks', eventTypes: ['webhook.test'] }],
    ['another scheme', { url: 'ftp://files.example.com/hooks', eventTypes: ['webhook.test'] }],
    ['credentials in the URL', { url: 'https://user:pass@erp.example.com/hooks', eventTypes: ['webhook.test'] }],
    ['a user name in the URL', { url: 'https://user@erp.example.com/hooks', eventTypes: ['webhook.test'] }],
    ['a fragment', { url: 'https://erp.example.com/hooks#part', eventTypes: ['webhook.test'] }],
    ['an empty fragment', { url: 'https://erp.example.com/hooks#', eventTypes: ['webhook.test'] }],
    ['a URL of 2,001 characters', { url: `https://erp.example.com/${'a'.repeat(2001 - 'https://erp.example.com/'.length)}`, eventTypes: ['webhook.test'] }],
    ['no event type', { url: 'https://erp.example.com/hooks', eventTypes: [] }],
    ['an unknown event type', { url: 'https://erp.example.com/hooks', eventTypes: ['ledger.exploded'] }],
    ['the same event type twice', { url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test', 'webhook.test'] }],
    [
      'eleven event types',
      { url: 'https://erp.example.com/hooks', eventTypes: ['journal-entry.posted', 'journal-entry.reversed', 'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated', 'rates.refreshed', 'webhook.test', 'webhook.test'] },
    ],
    ['a description of 501 characters', { url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'], description: 'd'.repeat(501) }],
    ['an unknown field', { url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'], secret: 'whsec_mine' }],
    ['no URL', { eventTypes: ['webhook.test'] }],
  ])('when the body has %s, then 400 validation and nothing is stored', async (_case, body) => {
    const other = await registerWorkspace(stack);
    const res = await webhooksApi(stack, other).create(body).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.type).toBe('/problems/validation');
    expect(await endpointRows(other.me.tenantId)).toEqual([]);
  });

  test('when a URL of exactly 2,000 characters is given, then it is accepted', async () => {
    const url = `https://erp.example.com/${'a'.repeat(2000 - 'https://erp.example.com/'.length)}`;
    const res = await webhooksApi(stack, admin).create({ url, eventTypes: ['webhook.test'] }).expect(201);
    expect(res.body.url).toHaveLength(2000);
  });

  test('when plain http is not allowed (production), then an http URL is 400 and an https one is accepted', async () => {
    const strict = anotherApp(stack, { config: { ...stack.config, webhooks: { ...stack.config.webhooks, allowHttp: false } } });
    const other = await registerWorkspace(stack);
    const refused = await request(strict).post('/api/v1/webhooks/endpoints').set(...bearer(other.accessToken))
      .send({ url: 'http://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(400);
    expect(refused.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/url', message: expect.stringMatching(/https/) }] });
    await request(strict).post('/api/v1/webhooks/endpoints').set(...bearer(other.accessToken))
      .send({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(201);
    // Where it is allowed (development and tests), http is accepted, e.g. for a local receiver.
    await webhooksApi(stack, other).create({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['webhook.test'] }).expect(201);
  });

  test.each([
    'https://10.1.2.3/hooks',
    'https://192.168.0.10/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://127.0.0.1/hooks',
    'https://2130706433/hooks',
    'https://0.0.0.0/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://[::ffff:a01:203]/hooks',
    'https://[fe80::1]/hooks',
    'https://[fc00::1]/hooks',
    'https://224.0.0.1/hooks',
  ])('when the URL names the non-public address of %s and loopback is not allowed, then 400 validation', async (url) => {
    const strict = anotherApp(stack, { config: { ...stack.config, webhooks: { ...stack.config.webhooks, allowLoopback: false } } });
    const other = await registerWorkspace(stack);
    const refused = await request(strict).post('/api/v1/webhooks/endpoints').set(...bearer(other.accessToken)).send({ url, eventTypes: ['webhook.test'] }).expect(400);
    expect(refused.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/url', message: expect.stringMatching(/not a public address/) }] });
    expect(await endpointRows(other.me.tenantId)).toEqual([]);
  });

  test('IPv6 receivers are an allow-list of global unicast (2000::/3), IPv4-mapped ones judged as their IPv4: refused even where loopback is allowed', async () => {
    const other = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, other);
    for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[64:ff9b::127.0.0.1]', '[fc00::1]', '[fe80::1]', '[2001:db8::1]']) {
      const refused = await hooks.create({ url: `http://${host}:8080/hooks`, eventTypes: ['webhook.test'] }).expect(400);
      expect(refused.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/url', message: expect.stringMatching(/not a public address/) }] });
    }
    const strict = anotherApp(stack, { config: { ...stack.config, webhooks: { ...stack.config.webhooks, allowLoopback: false } } });
    await request(strict).post('/api/v1/webhooks/endpoints').set(...bearer(other.accessToken))
      .send({ url: 'http://[::ffff:127.0.0.1]:8080/hooks', eventTypes: ['webhook.test'] }).expect(400);
    expect(await endpointRows(other.me.tenantId)).toEqual([]);
    // Loopback where it is allowed, in its IPv4-mapped spelling too; and a global unicast address.
    await hooks.create({ url: 'http://[::ffff:127.0.0.1]:8080/hooks', eventTypes: ['webhook.test'] }).expect(201);
    await hooks.create({ url: 'https://[2606:4700::1111]/hooks', eventTypes: ['webhook.test'] }).expect(201);
  });

  test('when the URL names a public address, or loopback where it is allowed, then it is accepted; a private one never is', async () => {
    const hooks = webhooksApi(stack, admin);
    await hooks.create({ url: 'https://93.184.216.34/hooks', eventTypes: ['webhook.test'] }).expect(201);
    await hooks.create({ url: 'https://[2606:2800:220:1:248:1893:25c8:1946]/hooks', eventTypes: ['webhook.test'] }).expect(201);
    await hooks.create({ url: 'http://127.0.0.1:8080/hooks', eventTypes: ['webhook.test'] }).expect(201);
    await hooks.create({ url: 'http://[::1]:8080/hooks', eventTypes: ['webhook.test'] }).expect(201);
    await hooks.create({ url: 'https://10.0.0.1/hooks', eventTypes: ['webhook.test'] }).expect(400);
  });

  test('when 25 creations race in a workspace, then exactly 20 endpoints exist and the others are 409 webhook-endpoint-limit; a deletion frees a place', async () => {
    const other = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, other);
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => hooks.create({ url: `https://erp.example.com/hooks/${i}`, eventTypes: ['webhook.test'] })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ type: '/problems/webhook-endpoint-limit', limit: 20 });
    }
    expect(await endpointRows(other.me.tenantId)).toHaveLength(20);

    await hooks.create({ url: 'https://erp.example.com/hooks/21', eventTypes: ['webhook.test'] }).expect(409);
    await hooks.remove(answers.find((r) => r.status === 201)!.body.id).expect(204);
    await hooks.create({ url: 'https://erp.example.com/hooks/21', eventTypes: ['webhook.test'] }).expect(201);
    // Another workspace's endpoints never count.
    await webhooksApi(stack, admin).create({ url: 'https://erp.example.com/hooks/other', eventTypes: ['webhook.test'] }).expect(201);
  });

  test('when the caller is not signed in, then 401', async () => {
    await api(stack).post('/api/v1/webhooks/endpoints').send({ url: 'https://erp.example.com/hooks', eventTypes: ['webhook.test'] }).expect(401);
  });
});
