import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { CLOCK_SKEW_SECONDS } from '../../../core/identity/access-tokens';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';

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

function claimsOf(token: string) {
  return jwt.decode(token) as Record<string, unknown>;
}

function forge(overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown>; secret?: string | import('node:crypto').KeyObject; algorithm?: jwt.Algorithm } = {}) {
  const { iat: _iat, exp: _exp, ...payload } = claimsOf(alice.accessToken);
  const secret = overrides.secret ?? stack.config.jwt.keys[0].secret.toString();
  return jwt.sign({ ...payload, exp: Math.floor(Date.now() / 1000) + 300, ...overrides.payload }, secret, {
    algorithm: overrides.algorithm ?? 'HS256',
    header: { alg: overrides.algorithm ?? 'HS256', typ: 'at+jwt', kid: stack.config.jwt.keys[0].kid, ...overrides.header } as jwt.JwtHeader,
  });
}

describe('bearer authentication', () => {
  test('a well-formed forged token with the real key is accepted: the forging helper is sound', async () => {
    await api(stack).get('/api/v1/me').set(...bearer(forge())).expect(200);
  });

  const noneToken = () => {
    const [, payload] = alice.accessToken.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: stack.config.jwt.keys[0].kid })).toString('base64url');
    return `${header}.${payload}.`;
  };
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  test.each<[string, () => string | undefined]>([
    ['no Authorization header', () => undefined],
    ['a malformed token', () => 'not-a-jwt'],
    ['alg none', noneToken],
    ['another signing key', () => forge({ secret: 'x'.repeat(64) })],
    ['an unknown kid', () => forge({ header: { kid: 'other' } })],
    ['typ JWT instead of at+jwt', () => forge({ header: { typ: 'JWT' } })],
    ['a wrong issuer', () => forge({ payload: { iss: 'someone-else' } })],
    ['a wrong audience', () => forge({ payload: { aud: 'other-api' } })],
    ['an expired token', () => forge({ payload: { exp: Math.floor(Date.now() / 1000) - 10 } })],
    ['an iat ten minutes ahead of the clock', () => forge({ payload: { iat: Math.floor(Date.now() / 1000) + 600, exp: Math.floor(Date.now() / 1000) + 660 } })],
    ['an nbf ten minutes ahead of the clock', () => forge({ payload: { nbf: Math.floor(Date.now() / 1000) + 600 } })],
    ['RS256 (algorithm confusion)', () => forge({ secret: privateKey, algorithm: 'RS256' })],
    ['a tenant_id that is not the session tenant', () => forge({ payload: { tenant_id: bob.me.tenantId } })],
  ])('when the request has %s, then 401 with an empty body', async (_name, token) => {
    const req = api(stack).get('/api/v1/me');
    const t = token();
    if (t) req.set(...bearer(t));
    const res = await req.expect(401);
    expect(res.text).toBe('');
  });

  test('when iat is ahead of the clock by less than the clock skew, then the token is accepted', async () => {
    const iat = Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS - 5;
    await api(stack).get('/api/v1/me').set(...bearer(forge({ payload: { iat, exp: iat + 60 } }))).expect(200);
  });

  test('Basic credentials are not a bearer token: 401', async () => {
    await api(stack).get('/api/v1/me').set('Authorization', 'Basic YWxpY2U6c2VjcmV0').expect(401);
  });
});

describe('tenant hosts', () => {
  test('"Using it on another tenant\'s subdomain returns 403" with an empty body', async () => {
    const res = await api(stack).get('/api/v1/me').set('Host', `${bob.me.company.slug}.localhost:3000`).set(...bearer(alice.accessToken)).expect(403);
    expect(res.text).toBe('');
  });

  test('the token works on its own workspace host and on the central host', async () => {
    await api(stack).get('/api/v1/me').set('Host', `${alice.me.company.slug}.localhost`).set(...bearer(alice.accessToken)).expect(200);
    await api(stack).get('/api/v1/me').set('Host', 'localhost').set(...bearer(alice.accessToken)).expect(200);
    await api(stack).get('/api/v1/me').set('Host', 'api.localhost').set(...bearer(alice.accessToken)).expect(200);
  });

  test('the callback host does not serve bearer operations: they do not exist there (404, as nginx answers)', async () => {
    await api(stack).get('/api/v1/me').set('Host', 'callbacks.localhost').set(...bearer(alice.accessToken)).expect(404);
  });

  test('the development mail reader answers only on the central host', async () => {
    await api(stack).get('/dev/mail').query({ to: alice.email }).set('Host', `${alice.me.company.slug}.localhost`).expect(404);
  });
});

describe('permissions are read from the database on every request', () => {
  test('when the role loses the permission, then the next request is 403 permission-denied; restored, 200', async () => {
    const who = await registerWorkspace(stack);
    await api(stack).get('/api/v1/me').set(...bearer(who.accessToken)).expect(200);
    await stack.admin.query("DELETE FROM role_permissions WHERE tenant_id = :t AND permission = 'getCurrentUser'", { replacements: { t: who.me.tenantId } });
    const denied = await api(stack).get('/api/v1/me').set(...bearer(who.accessToken)).expect(403);
    expect(denied.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(denied.body).toMatchObject({ type: '/problems/permission-denied', status: 403, permission: 'getCurrentUser' });
    const access = await api(stack).get('/api/v1/me/access').set(...bearer(who.accessToken)).expect(200);
    expect(access.body.permissions).not.toContain('getCurrentUser');
    expect(access.body.permissions).toContain('getMyAccess');
    await stack.admin.query(
      "INSERT INTO role_permissions (tenant_id, role_id, permission) SELECT tenant_id, id, 'getCurrentUser' FROM roles WHERE tenant_id = :t AND code = 'ADMIN'",
      { replacements: { t: who.me.tenantId } },
    );
    await api(stack).get('/api/v1/me').set(...bearer(who.accessToken)).expect(200);
  });

  test('when the membership is suspended, then its still-unexpired token answers 401', async () => {
    const who = await registerWorkspace(stack);
    await stack.admin.query("UPDATE memberships SET status = 'SUSPENDED' WHERE tenant_id = :t", { replacements: { t: who.me.tenantId } });
    await api(stack).get('/api/v1/me').set(...bearer(who.accessToken)).expect(401);
  });

  test('GET /me/access lists the roles and every permission they hold by default', async () => {
    const res = await api(stack).get('/api/v1/me/access').set(...bearer(alice.accessToken)).expect(200);
    expect(res.body.membershipId).toBe(alice.me.membershipId);
    expect(res.body.roles).toEqual(['ADMIN']);
    expect(res.body.permissions).toEqual(expect.arrayContaining(['getCurrentUser', 'getMyAccess', 'listMySessions', 'revokeMySession']));
  });
});

describe('tenant isolation through the API', () => {
  test("tenant B's token gets 404 for tenant A's session, and A's session lives on", async () => {
    const a = await api(stack).get('/api/v1/me/sessions').set(...bearer(alice.accessToken)).expect(200);
    const aliceSession = a.body.items[0].id;
    const res = await api(stack).delete(`/api/v1/me/sessions/${aliceSession}`).set(...bearer(bob.accessToken)).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    await api(stack).get('/api/v1/me').set(...bearer(alice.accessToken)).expect(200);
  });
});
