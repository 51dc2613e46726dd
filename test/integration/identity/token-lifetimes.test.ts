import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';

// A stack of its own: lifetimes come from configuration.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ REFRESH_TOKEN_IDLE_TTL_SECONDS: '120', REFRESH_TOKEN_ABSOLUTE_TTL_SECONDS: '120', ACCESS_TOKEN_TTL_SECONDS: '60' });
});
afterAll(async () => {
  await stack.stop();
});

describe('token lifetimes from configuration', () => {
  test('the session ends at the absolute limit and no refresh token outlives it', async () => {
    const who = await registerWorkspace(stack);
    const [row] = await stack.admin.query<{ token: Date; session: Date }>(
      `SELECT max(rt.expires_at) AS token, max(s.expires_at) AS session
         FROM refresh_tokens rt JOIN sessions s ON s.tenant_id = rt.tenant_id AND s.id = rt.session_id
        WHERE rt.tenant_id = :t`,
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(new Date(row.token).getTime()).toBeLessThanOrEqual(new Date(row.session).getTime());
    expect(new Date(row.session).getTime() - Date.now()).toBeLessThanOrEqual(120_000);
  });

  test('the access token expires after ACCESS_TOKEN_TTL_SECONDS', async () => {
    const who = await registerWorkspace(stack);
    const payload = JSON.parse(Buffer.from(who.accessToken.split('.')[1], 'base64url').toString());
    expect(payload.exp - payload.iat).toBe(60);
  });
});
