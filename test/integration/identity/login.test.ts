import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, uniqueEmail, type Registered } from '../../helpers/clients';
import { legacyScryptHash } from '../../../core/identity/passwords';
import { enableEmailFactor } from '../../helpers/second-factors';

let stack: TestStack;
let alice: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const login = (body: Record<string, unknown>, host?: string) => {
  const req = api(stack).post('/api/v1/auth/login');
  if (host) req.set('Host', host);
  return req.send(body);
};

describe('login: POST /api/v1/auth/login', () => {
  test('when email and password are right and no second factor is on, then 200 with a token pair', async () => {
    const res = await login({ email: alice.email, password: alice.password }).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'refreshToken']);
    expect(res.headers['set-cookie']).toBeUndefined();
    const me = await api(stack).get('/api/v1/me').set(...bearer(res.body.accessToken)).expect(200);
    expect(me.body.membershipId).toBe(alice.me.membershipId);
  });

  test('when the email differs only in case, then it still logs in', async () => {
    await login({ email: alice.email.toUpperCase(), password: alice.password }).expect(200);
  });

  test('when the password is wrong or the email unknown, then the same 401 problem', async () => {
    const wrong = await login({ email: alice.email, password: 'not the right password' }).expect(401);
    const unknown = await login({ email: uniqueEmail('ghost'), password: 'not the right password' }).expect(401);
    expect(wrong.headers['content-type']).toMatch(/application\/problem\+json/);
    const strip = (b: Record<string, unknown>) => ({ ...b, instance: undefined });
    expect(strip(unknown.body)).toEqual(strip(wrong.body));
    expect(wrong.body.type).toBe('/problems/invalid-credentials');
  });

  test('"a password that differs only after byte 72 must never authenticate": over 72 bytes is rejected, not truncated', async () => {
    const long = 'a'.repeat(72);
    const registered = await registerWorkspace(stack, { password: long });
    await login({ email: registered.email, password: long }).expect(200);
    const res = await login({ email: registered.email, password: `${'a'.repeat(70)}éé` }); // 74 bytes, 72 characters
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation');
  });

  test.each([
    ['totpCode with recoveryCode', { totpCode: '123456', recoveryCode: 'abcd-efgh-ijkl-mnop' }],
    ['the email pair with totpCode', { challengeId: '9a1f1b8e-6f55-4c1e-8a39-1f1f0f1f2f3f', code: '12345678', totpCode: '123456' }],
    ['challengeId without code', { challengeId: '9a1f1b8e-6f55-4c1e-8a39-1f1f0f1f2f3f' }],
    ['code without challengeId', { code: '12345678' }],
  ])('"mixed factors or an incomplete challengeId/code pair return 400": %s', async (_name, factors) => {
    const res = await login({ email: alice.email, password: alice.password, ...factors }).expect(400);
    expect(res.body.type).toBe('/problems/login-factors-invalid');
  });

  test.each([
    ['email missing', { password: 'x' }],
    ['email malformed', { email: 'nope', password: 'x' }],
    ['code not eight digits', { email: 'a@b.co', password: 'x', challengeId: '9a1f1b8e-6f55-4c1e-8a39-1f1f0f1f2f3f', code: '123' }],
    ['recoveryCode malformed', { email: 'a@b.co', password: 'x', recoveryCode: 'abcd-efgh-ijkl-mno1' }],
  ])('when %s, then 400 validation', async (_name, body) => {
    const res = await login(body).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });

  describe('hosts', () => {
    let twoWorkspaces: { first: Registered; second: Registered };
    beforeAll(async () => {
      const first = await registerWorkspace(stack);
      const second = await registerWorkspace(stack, { email: first.email, password: first.password });
      twoWorkspaces = { first, second };
    });

    test('when the identity has several workspaces, then the central host answers 400 tenant-host-required', async () => {
      const { first } = twoWorkspaces;
      const res = await login({ email: first.email, password: first.password }, 'localhost:3000').expect(400);
      expect(res.body.type).toBe('/problems/tenant-host-required');
      expect(res.body.workspaceHosts).toHaveLength(2);
    });

    test('when logging in on a workspace host, then the token is for that workspace', async () => {
      const { first, second } = twoWorkspaces;
      const res = await login({ email: first.email, password: first.password }, `${second.me.company.slug}.localhost:3000`).expect(200);
      const me = await api(stack).get('/api/v1/me').set(...bearer(res.body.accessToken)).expect(200);
      expect(me.body.tenantId).toBe(second.me.tenantId);
    });

    test('when the identity has no membership in the host workspace, then 401 invalid-credentials', async () => {
      const res = await login({ email: alice.email, password: alice.password }, `${twoWorkspaces.first.me.company.slug}.localhost`).expect(401);
      expect(res.body.type).toBe('/problems/invalid-credentials');
    });

    test('when no workspace answers at the host, then 404', async () => {
      await login({ email: alice.email, password: alice.password }, 'no-such-workspace-xyz.localhost').expect(404);
    });
  });

  test('a password stored with scrypt (before Argon2id) still logs in, and that login stores an Argon2id hash in its place; a wrong password changes nothing', async () => {
    const user = await registerWorkspace(stack);
    const storedHash = async () =>
      (await stack.admin.query<{ password_hash: string }>('SELECT password_hash FROM identities WHERE email = :email', { replacements: { email: user.email }, type: QueryTypes.SELECT }))[0]!
        .password_hash;
    expect(await storedHash()).toMatch(/^\$argon2id\$v=19\$m=4096,t=1,p=1\$/);
    const legacy = await legacyScryptHash(user.password, 12);
    await stack.admin.query('UPDATE identities SET password_hash = :legacy WHERE email = :email', { replacements: { legacy, email: user.email } });
    await login({ email: user.email, password: 'not the right password' }).expect(401);
    expect(await storedHash()).toBe(legacy);
    await login({ email: user.email, password: user.password }).expect(200);
    const upgraded = await storedHash();
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=4096,t=1,p=1\$/);
    await login({ email: user.email, password: user.password }).expect(200);
    expect(await storedHash()).toBe(upgraded); // current already: not hashed again
    await login({ email: user.email, password: 'not the right password' }).expect(401);
  });

  test('when the membership is suspended, then login answers 401', async () => {
    const bob = await registerWorkspace(stack);
    await stack.admin.query("UPDATE memberships SET status = 'SUSPENDED' WHERE tenant_id = :t", { replacements: { t: bob.me.tenantId } });
    await login({ email: bob.email, password: bob.password }).expect(401);
  });

  test('when an account with email codes sends totpCode or recoveryCode with the right password, then 401 invalid-second-factor as a problem document, and no session', async () => {
    const dana = await registerWorkspace(stack);
    await enableEmailFactor(stack, dana);
    for (const factor of [{ totpCode: '123456' }, { recoveryCode: 'abcd-efgh-ijkl-mnop' }]) {
      const res = await login({ email: dana.email, password: dana.password, ...factor }).expect(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ type: '/problems/invalid-second-factor', status: 401 });
      expect(res.body.accessToken).toBeUndefined();
    }
    // The account's own factor still signs in: the first step answers its challenge.
    expect((await login({ email: dana.email, password: dana.password }).expect(202)).body.channel).toBe('EMAIL');
  });

  test('a successful login records an audit event and the last login time', async () => {
    const carol = await registerWorkspace(stack);
    await login({ email: carol.email, password: carol.password }).expect(200);
    const rows = await stack.admin.query<{ n: string; last: Date | null }>(
      `SELECT (SELECT count(*) FROM audit_events WHERE tenant_id = :t AND action = 'auth.login.succeeded') AS n,
              (SELECT last_login_at FROM users WHERE tenant_id = :t) AS last`,
      { replacements: { t: carol.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(Number(rows[0].n)).toBe(1);
    expect(rows[0].last).not.toBeNull();
  });
});
