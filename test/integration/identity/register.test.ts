import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, PASSWORD, magicLinkTokenFrom, readMail, registerWorkspace, requestMagicLink, uniqueEmail, waitForMail } from '../../helpers/clients';
import { registerWorkflowId } from '../../../contracts/workflow-ids';
import { enableEmailFactor, enableTotp, mailCount, nextCode, totpCode } from '../../helpers/second-factors';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

async function count(sql: string, replacements: Record<string, unknown> = {}): Promise<number> {
  const rows = await stack.admin.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(rows[0].n);
}

describe('requestMagicLink: POST /api/v1/auth/magic-link/request (requestMagicLinkWorkflow)', () => {
  test('when the email is valid, then 202 and a 43-character magic link is mailed', async () => {
    const email = uniqueEmail();
    const res = await api(stack).post('/api/v1/auth/magic-link/request').send({ email }).expect(202);
    expect(res.body).toEqual({ message: expect.any(String) });
    const [mail] = await waitForMail(stack, email);
    expect(magicLinkTokenFrom(mail)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored only as a hash.
    expect(await count('SELECT count(*) AS n FROM magic_links WHERE email = :email', { email })).toBe(1);
    const stored = await stack.admin.query<{ token_hash: Buffer }>('SELECT token_hash FROM magic_links WHERE email = :email', {
      replacements: { email },
      type: QueryTypes.SELECT,
    });
    expect(stored[0].token_hash.length).toBe(32);
    expect(stored[0].token_hash.toString('base64url')).not.toBe(magicLinkTokenFrom(mail));
  });

  test('"the response reveals neither whether an account exists": same status and body for known and unknown emails', async () => {
    const known = await registerWorkspace(stack);
    const a = await api(stack).post('/api/v1/auth/magic-link/request').send({ email: known.email });
    const b = await api(stack).post('/api/v1/auth/magic-link/request').send({ email: uniqueEmail('nobody') });
    expect(a.status).toBe(202);
    expect(b.status).toBe(a.status);
    expect(b.body).toEqual(a.body);
  });

  test('when the email is malformed, then 400 problem and nothing is issued', async () => {
    const res = await api(stack).post('/api/v1/auth/magic-link/request').send({ email: 'not-an-email' }).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/validation', status: 400 });
    expect(await count("SELECT count(*) AS n FROM magic_links WHERE email = 'not-an-email'")).toBe(0);
  });

  test('when a field is unknown or the body is not JSON, then 400 problem', async () => {
    await api(stack).post('/api/v1/auth/magic-link/request').send({ email: uniqueEmail(), admin: true }).expect(400);
    const res = await api(stack).post('/api/v1/auth/magic-link/request').set('Content-Type', 'application/json').send('{"email":');
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation');
  });

  test('"a new request supersedes the old one": the first magic link stops working', async () => {
    const email = uniqueEmail();
    const first = await requestMagicLink(stack, email);
    const second = await requestMagicLink(stack, email);
    const body = (token: string) => ({ token, email, password: PASSWORD, confirmPassword: PASSWORD });
    const old = await api(stack).post('/api/v1/auth/register').send(body(first)).expect(400);
    expect(old.body.type).toBe('/problems/registration-proof-invalid');
    await api(stack).post('/api/v1/auth/register').send(body(second)).expect(201);
  });
});

describe('register: POST /api/v1/auth/register (registerWorkflow)', () => {
  test('when the magic link is valid, then 201 with a token pair for a new workspace where the caller is ADMIN', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    const clientCorrelationId = '6f1c1d38-3f8e-4a55-9b38-6d6f0c2a1e01';
    const res = await api(stack)
      .post('/api/v1/auth/register')
      .set('X-Correlation-Id', clientCorrelationId)
      .send({ token, email, password: PASSWORD, confirmPassword: PASSWORD, company: { name: 'Ümid Savdo LLC', taxId: '305123456' } })
      .expect(201);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'refreshToken']);
    // The service names the operation itself; the client's id is echoed beside it, never adopted.
    const correlationId = res.headers['x-correlation-id'];
    expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(correlationId).not.toBe(clientCorrelationId);
    expect(res.headers['x-client-correlation-id']).toBe(clientCorrelationId);
    const me = await api(stack).get('/api/v1/me').set(...bearer(res.body.accessToken)).expect(200);
    expect(me.body.roles).toEqual(['ADMIN']);
    expect(me.body.company).toMatchObject({ name: 'Ümid Savdo LLC', taxId: '305123456', onboardingComplete: true, slug: 'umid-savdo-llc' });
    const tenantId = me.body.tenantId;
    // Default roles seeded from the OpenAPI document, the caller's membership ADMIN.
    const roles = await stack.admin.query<{ code: string; n: string }>(
      `SELECT r.code, count(rp.permission) AS n FROM roles r LEFT JOIN role_permissions rp ON rp.tenant_id = r.tenant_id AND rp.role_id = r.id
        WHERE r.tenant_id = :tenantId GROUP BY r.code ORDER BY r.code`,
      { replacements: { tenantId }, type: QueryTypes.SELECT },
    );
    expect(roles.map((r) => r.code)).toEqual(['ACCOUNTANT', 'ADMIN', 'EMPLOYEE', 'MANAGER', 'VIEWER']);
    for (const r of roles) expect(Number(r.n)).toBeGreaterThan(0);
    // The audit event carries the request's correlation id (the service's), committed with the workspace.
    const audit = await stack.admin.query<{ action: string; correlation_id: string; system_actor: boolean }>(
      'SELECT action, correlation_id, system_actor FROM audit_events WHERE tenant_id = :tenantId',
      { replacements: { tenantId }, type: QueryTypes.SELECT },
    );
    // Written by registerWorkflow, so a system event (issue: "systemActor true for events written by workflows").
    expect(audit).toEqual([{ action: 'workspace.registered', correlation_id: correlationId, system_actor: true }]);
  });

  test('when company is omitted, then onboarding is incomplete and the slug comes from the email', async () => {
    const email = `Mixed.Case-${Date.now()}@Example.com`;
    const registered = await registerWorkspace(stack, { email, company: null });
    expect(registered.me.company).toMatchObject({ name: null, taxId: null, onboardingComplete: false });
    expect(registered.me.company.slug).toBe(email.split('@')[0].toLowerCase().replace('.', '-'));
  });

  test('when two workspaces want the same slug, then the second gets a numeric suffix', async () => {
    const name = `Twin Firm ${Date.now()}`;
    const a = await registerWorkspace(stack, { company: { name, taxId: '111111111' } });
    const b = await registerWorkspace(stack, { company: { name, taxId: '222222222' } });
    expect(b.me.company.slug).toBe(`${a.me.company.slug}-2`);
  });

  describe('password rules', () => {
    const cases: Array<[string, string, string]> = [
      ['shorter than 15 characters', 'fourteen-chars', 'fourteen-chars'],
      ['longer than 72 UTF-8 bytes though under 72 characters', 'ж'.repeat(40), 'ж'.repeat(40)],
      ['confirmPassword differs', PASSWORD, `${PASSWORD}!`],
    ];
    test.each(cases)('when the password is %s, then 400 and the magic link stays usable', async (_name, password, confirmPassword) => {
      const email = uniqueEmail();
      const token = await requestMagicLink(stack, email);
      const res = await api(stack).post('/api/v1/auth/register').send({ token, email, password, confirmPassword }).expect(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(JSON.stringify(res.body)).not.toContain(password);
      expect(await count('SELECT count(*) AS n FROM identities WHERE email = :email', { email })).toBe(0);
      await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
    });

    test.each([
      ['a common password of 15 characters', 'qwertyuiop12345'],
      ['a common password of 16 characters in another letter case', 'PasswordPassword'],
      ['a common password read backwards', [...'1qaz2wsx3edc4rfv'].reverse().join('')],
    ])('when the password is %s, then 400 password-too-common naming the field, nothing is created and the magic link stays usable', async (_name, password) => {
      const email = uniqueEmail();
      const token = await requestMagicLink(stack, email);
      const res = await api(stack).post('/api/v1/auth/register').send({ token, email, password, confirmPassword: password }).expect(400);
      expect(res.body).toMatchObject({ type: '/problems/password-too-common', status: 400, errors: [{ path: '/body/password', message: 'is a commonly used password' }] });
      expect(JSON.stringify(res.body)).not.toContain(password);
      expect(await count('SELECT count(*) AS n FROM identities WHERE email = :email', { email })).toBe(0);
      await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
    });

    test('when the password is 15 multi-byte characters within 72 bytes, then it is accepted', async () => {
      const password = 'пароль-пароль-1'; // 15 characters, 27 bytes
      const registered = await registerWorkspace(stack, { password });
      await api(stack).post('/api/v1/auth/login').send({ email: registered.email, password }).expect(200);
    });
  });

  test.each([
    ['taxId is not nine digits', { name: 'Acme', taxId: '12345678' }],
    ['company name is only whitespace', { name: '   ', taxId: '123456789' }],
    ['company name is longer than 200', { name: 'x'.repeat(201), taxId: '123456789' }],
  ])('when %s, then 400', async (_name, company) => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD, company }).expect(400);
    expect(await count('SELECT count(*) AS n FROM identities WHERE email = :email', { email })).toBe(0);
  });

  test('when the magic link belongs to another email, is malformed, or was already used, then 400 registration-proof-invalid', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    const other = await api(stack).post('/api/v1/auth/register').send({ token, email: uniqueEmail(), password: PASSWORD, confirmPassword: PASSWORD });
    expect(other.status).toBe(400);
    expect(other.body.type).toBe('/problems/registration-proof-invalid');
    const malformed = await api(stack).post('/api/v1/auth/register').send({ token: 'short', email, password: PASSWORD, confirmPassword: PASSWORD });
    expect(malformed.status).toBe(400);
    await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
    const again = await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD });
    expect(again.status).toBe(400);
    expect(again.body.type).toBe('/problems/registration-proof-invalid');
  });

  test('when the magic link has expired, then 400 registration-proof-invalid', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    await stack.admin.query("UPDATE magic_links SET expires_at = now() - interval '1 second' WHERE email = :email", { replacements: { email } });
    const res = await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/registration-proof-invalid');
  });

  test('"single-use even when N requests redeem the same token at once": exactly one 201 of 8', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    const body = { token, email, password: PASSWORD, confirmPassword: PASSWORD };
    const results = await Promise.all(Array.from({ length: 8 }, () => api(stack).post('/api/v1/auth/register').send(body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 400)).toBe(true);
    expect(await count('SELECT count(*) AS n FROM identities WHERE email = :email', { email })).toBe(1);
    expect(await count('SELECT count(*) AS n FROM users u JOIN identities i ON i.id = u.identity_id WHERE i.email = :email', { email })).toBe(1);
    // Winner and losers alike leave no password hash in their attempt rows.
    const attempts = await count(
      'SELECT count(*) AS n FROM registration_attempts a JOIN magic_links p ON p.id = a.proof_id WHERE p.email = :email',
      { email },
    );
    expect(attempts).toBe(8);
    expect(
      await count(
        'SELECT count(*) AS n FROM registration_attempts a JOIN magic_links p ON p.id = a.proof_id WHERE p.email = :email AND a.password_hash IS NOT NULL',
        { email },
      ),
    ).toBe(0);
  });

  describe('an existing identity', () => {
    test('"register never replaces the password of an existing identity": a wrong password answers 401 and changes nothing', async () => {
      const first = await registerWorkspace(stack);
      const token = await requestMagicLink(stack, first.email);
      const other = 'a different long password';
      const res = await api(stack).post('/api/v1/auth/register').send({ token, email: first.email, password: other, confirmPassword: other });
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/invalid-credentials');
      await api(stack).post('/api/v1/auth/login').send({ email: first.email, password: first.password }).expect(200);
      await api(stack).post('/api/v1/auth/login').send({ email: first.email, password: other }).expect(401);
    });

    test('a wrong password uses up one of the identity\'s attempts: the sixth try with the same magic link is 429, even with the right password', async () => {
      const first = await registerWorkspace(stack);
      const token = await requestMagicLink(stack, first.email);
      for (let i = 0; i < 5; i++) {
        await api(stack).post('/api/v1/auth/register').send({ token, email: first.email, password: `wrong password number ${i}`, confirmPassword: `wrong password number ${i}` }).expect(401);
      }
      const limited = await api(stack).post('/api/v1/auth/register').send({ token, email: first.email, password: first.password, confirmPassword: first.password }).expect(429);
      expect(limited.body.type).toBe('/problems/too-many-attempts');
      expect(limited.headers['retry-after']).toMatch(/^[0-9]+$/);
      expect(await count(`SELECT count(*) AS n FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id WHERE u.identity_id = :id`, { id: first.me.globalUserId })).toBe(1);
    });

    test('with an authenticator on, the workspace is created once and the answer is 202 TOTP: no tokens until login with the factor', async () => {
      const first = await registerWorkspace(stack);
      const { secret } = await enableTotp(stack, first);
      const token = await requestMagicLink(stack, first.email);
      const body = { token, email: first.email, password: first.password, confirmPassword: first.password };
      const res = await api(stack).post('/api/v1/auth/register').send(body).expect(202);
      expect(res.body).toEqual({ channel: 'TOTP', challengeId: null, expiresAt: null, workspaceSlug: expect.stringMatching(/^[a-z0-9-]+$/) });
      expect(res.body.accessToken).toBeUndefined();
      const memberships = await stack.admin.query<{ slug: string }>(
        `SELECT t.slug FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id JOIN tenants t ON t.id = m.tenant_id
          WHERE u.identity_id = :id AND t.id <> :first`,
        { replacements: { id: first.me.globalUserId, first: first.me.tenantId }, type: QueryTypes.SELECT },
      );
      expect(memberships).toHaveLength(1);
      expect(res.body.workspaceSlug).toBe(memberships[0]!.slug);
      await api(stack).post('/api/v1/auth/register').send(body).expect(400);
      const host = `${memberships[0]!.slug}.${stack.config.baseDomain}`;
      const session = await api(stack).post('/api/v1/auth/login').set('Host', host).send({ email: first.email, password: first.password, totpCode: totpCode(secret, 1) }).expect(200);
      expect(session.body.accessToken).toEqual(expect.any(String));
    });

    test('with email codes on, the answer is 202 EMAIL with a login challenge for the new workspace', async () => {
      const first = await registerWorkspace(stack);
      await enableEmailFactor(stack, first);
      const token = await requestMagicLink(stack, first.email);
      const before = await mailCount(stack, first.email);
      const res = await api(stack).post('/api/v1/auth/register').send({ token, email: first.email, password: first.password, confirmPassword: first.password }).expect(202);
      expect(res.body).toEqual({ channel: 'EMAIL', challengeId: expect.any(String), expiresAt: expect.any(String), workspaceSlug: expect.stringMatching(/^[a-z0-9-]+$/) });
      const code = await nextCode(stack, first.email, before);
      const [created] = await stack.admin.query<{ slug: string }>(
        `SELECT t.slug FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id JOIN tenants t ON t.id = m.tenant_id
          WHERE u.identity_id = :id AND t.id <> :first`,
        { replacements: { id: first.me.globalUserId, first: first.me.tenantId }, type: QueryTypes.SELECT },
      );
      expect(res.body.workspaceSlug).toBe(created!.slug);
      await api(stack)
        .post('/api/v1/auth/login')
        .set('Host', `${created!.slug}.${stack.config.baseDomain}`)
        .send({ email: first.email, password: first.password, challengeId: res.body.challengeId, code })
        .expect(200);
    });

    test('with its current password, a second workspace is created for the same identity', async () => {
      const first = await registerWorkspace(stack);
      const second = await registerWorkspace(stack, { email: first.email, password: first.password });
      expect(second.me.globalUserId).toBe(first.me.globalUserId);
      expect(second.me.tenantId).not.toBe(first.me.tenantId);
    });
  });

  test('no secret enters workflow history, and the workflow carries the tenant as a search attribute', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
    const magicLink = await stack.admin.query<{ id: string; result: { tenantId: string } }>('SELECT id, result FROM magic_links WHERE email = :email', {
      replacements: { email },
      type: QueryTypes.SELECT,
    });
    const handle = stack.temporal.workflow.getHandle(registerWorkflowId(magicLink[0].id));
    const history = JSON.stringify(await handle.fetchHistory());
    // The password hash is Argon2id's PHC string; the identity now holds it, so it can be looked for whole.
    const [stored] = await stack.admin.query<{ password_hash: string }>('SELECT password_hash FROM identities WHERE email = :email', {
      replacements: { email },
      type: QueryTypes.SELECT,
    });
    expect(stored!.password_hash.startsWith('$argon2id$')).toBe(true);
    const secrets = [PASSWORD, token, stored!.password_hash, '$argon2id$', 'scrypt$'];
    for (const secret of secrets) expect(history).not.toContain(secret);
    // Payloads are base64 in the history: decode every data field and look again.
    const payloads = [...history.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8'));
    expect(payloads.length).toBeGreaterThan(0);
    for (const p of payloads) for (const secret of secrets) expect(p).not.toContain(secret);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().find((p) => p.key.name === 'TenantId')?.value).toBe(magicLink[0].result.tenantId);
    // The magic link's mail itself is the only place its token was ever written.
    expect((await readMail(stack, email)).some((m) => m.text.includes(token))).toBe(true);
  });
});
