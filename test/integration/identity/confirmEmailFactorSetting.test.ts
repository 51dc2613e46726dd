import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { enableEmailFactor, login, mailCount, nextCode } from '../../helpers/second-factors';
import { emailChallengeWorkflowId } from '../../../contracts/workflow-ids';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const post = (user: Registered, path: string, body: Record<string, unknown>) =>
  api(stack).post(`/api/v1/me/security${path}`).set(...bearer(user.accessToken)).send(body);
const security = (user: Registered) => api(stack).get('/api/v1/me/security').set(...bearer(user.accessToken)).expect(200);
const forgetAttempts = (user: Registered) =>
  stack.admin.query('DELETE FROM factor_attempts WHERE identity_id = :id', { replacements: { id: user.me.globalUserId } });

/** Logs in with email and password, expects the 202 email challenge, and reads the mailed code. */
async function challengeLogin(user: Registered): Promise<{ challengeId: string; code: string; expiresAt: string }> {
  const before = await mailCount(stack, user.email);
  const res = await login(stack, { email: user.email, password: user.password }).expect(202);
  expect(res.body.channel).toBe('EMAIL');
  const code = await nextCode(stack, user.email, before);
  return { challengeId: res.body.challengeId, expiresAt: res.body.expiresAt, code };
}

describe('challengeEmailFactorSetting and confirmEmailFactorSetting: POST /api/v1/me/security/email-factor/challenge and /confirm', () => {
  test('"mails an eight-digit code; confirm turns the factor on", and off again the same way', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    expect((await security(user)).body).toMatchObject({ channel: 'EMAIL', email2faEnabled: true, totpEnabled: false });

    const before = await mailCount(stack, user.email);
    const challenge = await post(user, '/email-factor/challenge', { currentPassword: user.password, purpose: 'DISABLE' }).expect(202);
    expect(challenge.body).toEqual({ channel: 'EMAIL', challengeId: expect.any(String), expiresAt: expect.any(String) });
    const code = await nextCode(stack, user.email, before);
    const res = await post(user, '/email-factor/confirm', { currentPassword: user.password, challengeId: challenge.body.challengeId, code }).expect(200);
    expect(res.body).toMatchObject({ channel: 'NONE', email2faEnabled: false });
  });

  test('when the factor is already in the asked state, then 409 and no mail', async () => {
    const user = await registerWorkspace(stack);
    const before = await mailCount(stack, user.email);
    const res = await post(user, '/email-factor/challenge', { currentPassword: user.password, purpose: 'DISABLE' }).expect(409);
    expect(res.body.type).toBe('/problems/second-factor-state');
    expect(await mailCount(stack, user.email)).toBe(before);
  });

  test('when the current password is wrong, then 400 and no challenge', async () => {
    const user = await registerWorkspace(stack);
    const res = await post(user, '/email-factor/challenge', { currentPassword: 'not the password at all', purpose: 'ENABLE' }).expect(400);
    expect(res.body.type).toBe('/problems/current-password-incorrect');
  });

  test('when the confirmation code is wrong, then 400 and the factor stays off', async () => {
    const user = await registerWorkspace(stack);
    const before = await mailCount(stack, user.email);
    const challenge = await post(user, '/email-factor/challenge', { currentPassword: user.password, purpose: 'ENABLE' }).expect(202);
    const code = await nextCode(stack, user.email, before);
    const wrong = code === '00000000' ? '00000001' : '00000000';
    const res = await post(user, '/email-factor/confirm', { currentPassword: user.password, challengeId: challenge.body.challengeId, code: wrong }).expect(400);
    expect(res.body.type).toBe('/problems/second-factor-code-incorrect');
    expect((await security(user)).body.email2faEnabled).toBe(false);
  });

  test('when the code is not eight digits, then 400 validation', async () => {
    const user = await registerWorkspace(stack);
    await post(user, '/email-factor/confirm', { currentPassword: user.password, challengeId: '6d9f8a3e-2b7c-4e1a-9f0d-3c5b7a9e1d2f', code: '1234567' }).expect(400);
  });
});

describe('login with email codes (emailChallengeWorkflow): POST /api/v1/auth/login', () => {
  test('"first step → 202 channel EMAIL with challengeId and expiresAt", no tokens; the code then gives a token pair', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    const started = Date.now();
    const { challengeId, code, expiresAt } = await challengeLogin(user);
    const finished = Date.now();
    expect(challengeId).toMatch(/^[0-9a-f-]{36}$/);
    // Five minutes from the moment the server issued it, which lies between these two readings of the clock
    // (a bound by the measured window, not by a guess at how slow a busy machine is).
    expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(started + 300_000 - 1);
    expect(Date.parse(expiresAt)).toBeLessThanOrEqual(finished + 300_000);
    const res = await login(stack, { email: user.email, password: user.password, challengeId, code }).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'refreshToken']);
    // One code, one session: the same code again is refused.
    const again = await login(stack, { email: user.email, password: user.password, challengeId, code }).expect(401);
    expect(again.body.type).toBe('/problems/invalid-second-factor');
  });

  test('"five guesses per challenge": after five wrong codes even the right one is refused', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    await forgetAttempts(user);
    const { challengeId, code } = await challengeLogin(user);
    const wrong = code === '99999999' ? '99999998' : '99999999';
    for (let i = 0; i < 5; i++) {
      await login(stack, { email: user.email, password: user.password, challengeId, code: wrong }).expect(401);
    }
    // Only the identity's attempt window is cleared here: the challenge itself must still say no.
    await forgetAttempts(user);
    const res = await login(stack, { email: user.email, password: user.password, challengeId, code }).expect(401);
    expect(res.body.detail).toMatch(/request a new/);
  });

  test('"concurrent second steps on one challenge": at most one token pair per valid code', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    await forgetAttempts(user);
    const { challengeId, code } = await challengeLogin(user);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => login(stack, { email: user.email, password: user.password, challengeId, code })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    // Only failed checks keep their attempt: at most five find the code used (401), the rest are limited.
    const refused = statuses.filter((s) => s === 401).length;
    expect(refused).toBeGreaterThanOrEqual(4);
    expect(refused).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19 - refused);
  });

  test('when another identity sends the challenge id with the right code, then 401 and the challenge still works', async () => {
    const [user, mallory] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
    await Promise.all([enableEmailFactor(stack, user), enableEmailFactor(stack, mallory)]);
    await forgetAttempts(user);
    const { challengeId, code } = await challengeLogin(user);
    await login(stack, { email: mallory.email, password: mallory.password, challengeId, code }).expect(401);
    await login(stack, { email: user.email, password: user.password, challengeId, code }).expect(200);
  });

  test('the code never enters workflow history; the challenge workflow carries the tenant as a search attribute', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    await forgetAttempts(user);
    const { challengeId, code } = await challengeLogin(user);
    await login(stack, { email: user.email, password: user.password, challengeId, code }).expect(200);
    const handle = stack.temporal.workflow.getHandle(emailChallengeWorkflowId(challengeId));
    expect(await handle.result()).toBe('VERIFIED');
    const history = JSON.stringify(await handle.fetchHistory());
    const payloads = [...history.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
    expect(payloads.length).toBeGreaterThan(0);
    for (const text of [history, ...payloads]) {
      expect(text).not.toContain(code);
      expect(text).not.toContain(user.password);
    }
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().find((p) => p.key.name === 'TenantId')?.value).toBe(user.me.tenantId);
    // The encrypted code is dropped once the challenge ends.
    const left = await stack.admin.query('SELECT 1 FROM email_challenge_codes WHERE challenge_id = :challengeId', {
      replacements: { challengeId },
      type: QueryTypes.SELECT,
    });
    expect(left).toEqual([]);
  });

  test('when the challenge id is unknown, then 401', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    const res = await login(stack, {
      email: user.email,
      password: user.password,
      challengeId: '6d9f8a3e-2b7c-4e1a-9f0d-3c5b7a9e1d2f',
      code: '12345678',
    }).expect(401);
    expect(res.body.type).toBe('/problems/invalid-second-factor');
  });

  test('when a factor is sent by an account without one, then 400 login-factors-invalid', async () => {
    const user = await registerWorkspace(stack);
    const res = await login(stack, { email: user.email, password: user.password, totpCode: '123456' }).expect(400);
    expect(res.body.type).toBe('/problems/login-factors-invalid');
  });
});
