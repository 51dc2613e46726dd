import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { enableEmailFactor, enableTotp, login, mailCount, nextCode, totpCode } from '../../helpers/second-factors';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const security = (user: Registered, path: string, body: Record<string, unknown>, accessToken = user.accessToken) =>
  api(stack).post(`/api/v1/me/security${path}`).set(...bearer(accessToken)).send(body);
const changePassword = (user: Registered, newPassword: string, accessToken = user.accessToken) =>
  api(stack).put('/api/v1/me/password').set(...bearer(accessToken)).send({ currentPassword: user.password, newPassword, confirmPassword: newPassword });

describe('stepUpSession: POST /api/v1/me/security/step-up', () => {
  test('with an authenticator, the password alone cannot mint recovery codes: 403 step-up-required, then 200 after a confirmed code', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const refused = await security(user, '/recovery-codes', { currentPassword: user.password }).expect(403);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.body.type).toBe('/problems/step-up-required');
    expect(refused.body.recoveryCodes).toBeUndefined();

    const hint = await security(user, '/step-up', {}).expect(202);
    expect(hint.body).toEqual({ channel: 'TOTP', challengeId: null, expiresAt: null });
    const stepped = await security(user, '/step-up', { totpCode: totpCode(secret, 1) }).expect(200);
    const until = Date.parse(stepped.body.verifiedUntil) - Date.now();
    expect(until).toBeGreaterThan(280_000);
    expect(until).toBeLessThanOrEqual(300_000);
    const codes = await security(user, '/recovery-codes', { currentPassword: user.password }).expect(200);
    await login(stack, { email: user.email, password: user.password, recoveryCode: codes.body.recoveryCodes[0] }).expect(200);
  });

  test('with an authenticator, PUT /me/password needs the step-up; nothing changes without it', async () => {
    const user = await registerWorkspace(stack);
    const { recoveryCodes } = await enableTotp(stack, user);
    const res = await changePassword(user, 'an entirely new password').expect(403);
    expect(res.body.type).toBe('/problems/step-up-required');
    await login(stack, { email: user.email, password: 'an entirely new password' }).expect(401);
    await security(user, '/step-up', { recoveryCode: recoveryCodes[0] }).expect(200);
    await changePassword(user, 'an entirely new password').expect(204);
    await login(stack, { email: user.email, password: 'an entirely new password' }).expect(202);
  });

  test('with email codes, the step-up is an emailed code: 202 challenge, then 200 with it; only then the password changes and an authenticator can be set up', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    await changePassword(user, 'an entirely new password').expect(403);
    await security(user, '/totp/setup', { currentPassword: user.password }).expect(403);

    const before = await mailCount(stack, user.email);
    const challenge = await security(user, '/step-up', {}).expect(202);
    expect(challenge.body).toEqual({ channel: 'EMAIL', challengeId: expect.any(String), expiresAt: expect.any(String) });
    const code = await nextCode(stack, user.email, before);
    // The step-up code is for this purpose only: it cannot log in.
    await login(stack, { email: user.email, password: user.password, challengeId: challenge.body.challengeId, code }).expect(401);
    await security(user, '/step-up', { challengeId: challenge.body.challengeId, code }).expect(200);
    await security(user, '/totp/setup', { currentPassword: user.password }).expect(201);
    await changePassword(user, 'an entirely new password').expect(204);
  });

  test('the step-up belongs to one session and lasts five minutes', async () => {
    const user = await registerWorkspace(stack);
    const { secret, recoveryCodes } = await enableTotp(stack, user);
    const other = await login(stack, { email: user.email, password: user.password, recoveryCode: recoveryCodes[0] }).expect(200);
    await security(user, '/step-up', { totpCode: totpCode(secret, 1) }).expect(200);
    // Another session of the same person is not stepped up.
    await security(user, '/recovery-codes', { currentPassword: user.password }, other.body.accessToken).expect(403);
    await stack.admin.query(`UPDATE sessions SET second_factor_verified_at = now() - interval '301 seconds' WHERE tenant_id = :tenantId`, {
      replacements: { tenantId: user.me.tenantId },
    });
    const expired = await security(user, '/recovery-codes', { currentPassword: user.password }).expect(403);
    expect(expired.body.type).toBe('/problems/step-up-required');
  });

  test('a wrong code answers 400 and uses up an attempt: the sixth step-up is 429 even with a right code', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    for (let i = 0; i < 5; i++) {
      const res = await security(user, '/step-up', { totpCode: totpCode(secret, 5) }).expect(400);
      expect(res.body.type).toBe('/problems/second-factor-code-incorrect');
    }
    const limited = await security(user, '/step-up', { totpCode: totpCode(secret, 1) }).expect(429);
    expect(limited.headers['retry-after']).toMatch(/^[0-9]+$/);
    const [row] = await stack.admin.query<{ verified: Date | null }>(
      'SELECT max(second_factor_verified_at) AS verified FROM sessions WHERE tenant_id = :tenantId',
      { replacements: { tenantId: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(row!.verified).toBeNull();
  });

  test('mixed factors are a 400; without any second factor there is nothing to step up (409) and no step-up is needed', async () => {
    const user = await registerWorkspace(stack);
    await security(user, '/step-up', { totpCode: '123456', recoveryCode: 'aaaa-bbbb-cccc-dddd' }).expect(400);
    await security(user, '/step-up', { code: '12345678' }).expect(400);
    const none = await security(user, '/step-up', {}).expect(409);
    expect(none.body.type).toBe('/problems/second-factor-state');
    await changePassword(user, 'an entirely new password').expect(204);
  });
});
