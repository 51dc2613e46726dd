import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const refresh = (refreshToken: string) => api(stack).post('/api/v1/auth/refresh').send({ refreshToken });
const login = (who: Registered) => api(stack).post('/api/v1/auth/login').send({ email: who.email, password: who.password }).expect(200);

describe('refreshSession: POST /api/v1/auth/refresh', () => {
  test('"Refresh token, unused → token consumed → new token pair"', async () => {
    const who = await registerWorkspace(stack);
    const res = await refresh(who.refreshToken).expect(200);
    expect(res.body.refreshToken).not.toBe(who.refreshToken);
    expect(res.body.accessToken).not.toBe(who.accessToken);
    await api(stack).get('/api/v1/me').set(...bearer(res.body.accessToken)).expect(200);
    await refresh(res.body.refreshToken).expect(200);
  });

  test('"reuse of an old token → whole token family revoked", the newest token and its access token included', async () => {
    const who = await registerWorkspace(stack);
    const next = (await refresh(who.refreshToken).expect(200)).body;
    const reuse = await refresh(who.refreshToken).expect(401);
    expect(reuse.body.type).toBe('/problems/invalid-refresh-token');
    await refresh(next.refreshToken).expect(401);
    await api(stack).get('/api/v1/me').set(...bearer(next.accessToken)).expect(401);
    // Other sessions of the same person are separate families and live on.
    const other = (await login(who)).body;
    await api(stack).get('/api/v1/me').set(...bearer(other.accessToken)).expect(200);
  });

  test('"exactly one of N simultaneous refreshes with the same token succeeds": 50 at once, one winner, one reuse audit event', async () => {
    const who = await registerWorkspace(stack);
    const results = await Promise.all(Array.from({ length: 50 }, () => refresh(who.refreshToken)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(49);
    // The losers were replays: the family is revoked, so even the winner's new token is dead.
    await refresh(ok[0].body.refreshToken).expect(401);
    // Revoking the family happened once, so it was audited once, however many replays raced.
    const events = await stack.admin.query<{ action: string }>(
      "SELECT action FROM audit_events WHERE tenant_id = :t AND action IN ('auth.refresh-token.reused', 'auth.logout')",
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(events).toEqual([{ action: 'auth.refresh-token.reused' }]);
  });

  test('when the token is unknown or malformed, then 401 or 400', async () => {
    await refresh('x'.repeat(43)).expect(401);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: 'x'.repeat(513) }).expect(400);
    await api(stack).post('/api/v1/auth/refresh').send({}).expect(400);
  });

  test('when the session passed its absolute lifetime, then refresh answers 401', async () => {
    const who = await registerWorkspace(stack);
    await stack.admin.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE tenant_id = :t", {
      replacements: { t: who.me.tenantId },
    });
    await refresh(who.refreshToken).expect(401);
  });

});

describe('logout: POST /api/v1/auth/logout', () => {
  test('"Session → POST logout → ended → 204": its refresh and access tokens stop working', async () => {
    const who = await registerWorkspace(stack);
    await api(stack).post('/api/v1/auth/logout').send({ refreshToken: who.refreshToken }).expect(204);
    await refresh(who.refreshToken).expect(401);
    await api(stack).get('/api/v1/me').set(...bearer(who.accessToken)).expect(401);
  });

  test('when the token is unknown, then 204 all the same', async () => {
    await api(stack).post('/api/v1/auth/logout').send({ refreshToken: 'y'.repeat(43) }).expect(204);
  });
});

describe('listMySessions and revokeMySession: GET /api/v1/me/sessions and DELETE /api/v1/me/sessions/{sessionId}', () => {
  test('lists the live sessions, newest activity first, marking the current one', async () => {
    const who = await registerWorkspace(stack);
    const second = (await login(who)).body;
    const res = await api(stack).get('/api/v1/me/sessions').set(...bearer(second.accessToken)).set('User-Agent', 'jest').expect(200);
    expect(res.body).toMatchObject({ page: 0, size: 50, hasMore: false });
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    const page = await api(stack).get('/api/v1/me/sessions').query({ size: 1 }).set(...bearer(second.accessToken)).expect(200);
    expect(page.body.hasMore).toBe(true);
    await api(stack).get('/api/v1/me/sessions').query({ size: 0 }).set(...bearer(second.accessToken)).expect(400);
    await api(stack).get('/api/v1/me/sessions').query({ size: 101 }).set(...bearer(second.accessToken)).expect(400);
  });

  test('revoking a session ends it at once; an unknown id is 404', async () => {
    const who = await registerWorkspace(stack);
    const list = await api(stack).get('/api/v1/me/sessions').set(...bearer(who.accessToken)).expect(200);
    const first = (await login(who)).body;
    await api(stack).delete(`/api/v1/me/sessions/${list.body.items[0].id}`).set(...bearer(first.accessToken)).expect(204);
    await api(stack).get('/api/v1/me').set(...bearer(who.accessToken)).expect(401);
    await refresh(who.refreshToken).expect(401);
    await api(stack).delete(`/api/v1/me/sessions/${list.body.items[0].id}`).set(...bearer(first.accessToken)).expect(404);
    await api(stack).delete('/api/v1/me/sessions/not-a-uuid').set(...bearer(first.accessToken)).expect(400);
  });
});
