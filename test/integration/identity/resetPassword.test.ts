import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, magicLinkTokenFrom, readMail, registerWorkspace, requestMagicLink, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { enableEmailFactor, enableTotp, nextCode, totpCode } from '../../helpers/second-factors';
import { requestPasswordResetWorkflowId } from '../../../contracts/workflow-ids';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const NEW_PASSWORD = 'a fresh and long new password';

/** POST password-reset/request and read the link's token from the newest mail. */
async function resetLink(email: string): Promise<string> {
  const before = (await readMail(stack, email)).length;
  await api(stack).post('/api/v1/auth/password-reset/request').send({ email }).expect(202);
  const [newest] = await waitForMail(stack, email, before + 1);
  expect(newest!.subject).toBe('Reset your password');
  expect(newest!.text).toContain(`${stack.config.publicUrl}/reset-password?token=`);
  return magicLinkTokenFrom(newest!);
}

const reset = (body: Record<string, unknown>) => api(stack).post('/api/v1/auth/password-reset').send(body);
const resetBody = (user: { email: string }, token: string, extra: Record<string, unknown> = {}) => ({
  token,
  email: user.email,
  newPassword: NEW_PASSWORD,
  confirmPassword: NEW_PASSWORD,
  ...extra,
});
const loginWith = (user: Registered, password: string) => api(stack).post('/api/v1/auth/login').send({ email: user.email, password });

async function auditActions(tenantId: string, action: string): Promise<Array<{ details: string; system_actor: boolean }>> {
  return stack.admin.query(`SELECT details, system_actor FROM audit_events WHERE tenant_id = :tenantId AND action = :action`, {
    replacements: { tenantId, action },
    type: QueryTypes.SELECT,
  });
}

describe('requestPasswordReset', () => {
  test('when the address has an account or not, then the answer is the same 202; only the account\'s address gets a link', async () => {
    const user = await registerWorkspace(stack);
    const stranger = uniqueEmail('no-account');
    const known = await api(stack).post('/api/v1/auth/password-reset/request').send({ email: user.email }).expect(202);
    const unknown = await api(stack).post('/api/v1/auth/password-reset/request').send({ email: stranger }).expect(202);
    expect(unknown.body).toEqual(known.body);
    await waitForMail(stack, user.email, 2); // the registration link, then the reset link
    // The unknown address's workflow has run to its end, and mailed nothing.
    const [row] = await stack.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM workflow_starts WHERE workflow_type = 'requestPasswordResetWorkflow' AND args::text LIKE :like`,
      { replacements: { like: `%${stranger}%` }, type: QueryTypes.SELECT },
    );
    expect(row!.n).toBe(1);
    const [start] = await stack.admin.query<{ workflow_id: string }>(
      `SELECT workflow_id FROM workflow_starts WHERE workflow_type = 'requestPasswordResetWorkflow' AND args::text LIKE :like`,
      { replacements: { like: `%${stranger}%` }, type: QueryTypes.SELECT },
    );
    expect(await stack.temporal.workflow.getHandle(start!.workflow_id).result()).toEqual({ mailed: false });
    expect(await readMail(stack, stranger)).toEqual([]);
  });

  test('when a link is mailed, then its token is stored only as a hash and never enters workflow history', async () => {
    const user = await registerWorkspace(stack);
    const token = await resetLink(user.email);
    const [magicLink] = await stack.admin.query<{ id: string; purpose: string }>(
      `SELECT id, purpose FROM magic_links WHERE email = :email AND purpose = 'PASSWORD_RESET'`,
      { replacements: { email: user.email }, type: QueryTypes.SELECT },
    );
    expect(magicLink!.purpose).toBe('PASSWORD_RESET');
    const history = JSON.stringify(await stack.temporal.workflow.getHandle(requestPasswordResetWorkflowId(magicLink!.id)).fetchHistory());
    expect(history).not.toContain(token);
    expect(history).not.toContain(Buffer.from(token).toString('base64'));
  });
});

describe('resetPassword', () => {
  test('when the link is used, then the new password works, the old one and every session end, and each workspace records it', async () => {
    const user = await registerWorkspace(stack);
    const second = await loginWith(user, user.password).expect(200);
    const token = await resetLink(user.email);
    await reset(resetBody(user, token)).expect(204);

    expect((await loginWith(user, user.password).expect(401)).body.type).toBe('/problems/invalid-credentials');
    await loginWith(user, NEW_PASSWORD).expect(200);
    // Every session that existed ended: access tokens at once, refresh tokens too.
    await api(stack).get('/api/v1/me').set(...bearer(user.accessToken)).expect(401);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: second.body.refreshToken }).expect(401);
    const events = await auditActions(user.me.tenantId, 'auth.password.reset');
    expect(events).toEqual([{ details: 'by an emailed link; 2 session(s) ended', system_actor: false }]);
  });

  test('when the person belongs to two workspaces, then the reset is recorded in both', async () => {
    const user = await registerWorkspace(stack);
    // Registering again with the same identity (its current password) adds a second workspace.
    const token = await requestMagicLink(stack, user.email);
    const again = await api(stack).post('/api/v1/auth/register').send({ token, email: user.email, password: user.password, confirmPassword: user.password }).expect(201);
    const other = await api(stack).get('/api/v1/me').set(...bearer(again.body.accessToken)).expect(200);
    await reset(resetBody(user, await resetLink(user.email))).expect(204);
    expect(await auditActions(user.me.tenantId, 'auth.password.reset')).toHaveLength(1);
    expect(await auditActions(other.body.tenantId, 'auth.password.reset')).toHaveLength(1);
  });

  test('when the link was used, superseded, expired, is for another email or is a registration magic link, then 400 password-reset-invalid and nothing changes', async () => {
    const user = await registerWorkspace(stack);
    const used = await resetLink(user.email);
    await reset(resetBody(user, used)).expect(204);
    const expectInvalid = async (res: { status: number; body: { type: string } }) => {
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/password-reset-invalid');
    };
    await expectInvalid(await reset({ ...resetBody(user, used), newPassword: 'yet another long password', confirmPassword: 'yet another long password' }));
    const superseded = await resetLink(user.email);
    const current = await resetLink(user.email);
    await expectInvalid(await reset(resetBody(user, superseded)));
    await expectInvalid(await reset(resetBody({ email: uniqueEmail() }, current)));
    await expectInvalid(await reset(resetBody(user, await requestMagicLink(stack, user.email))));
    await stack.admin.query(`UPDATE magic_links SET expires_at = now() - interval '1 second' WHERE email = :email AND purpose = 'PASSWORD_RESET' AND consumed_at IS NULL AND superseded_at IS NULL`, {
      replacements: { email: user.email },
    });
    await expectInvalid(await reset(resetBody(user, current)));
    await loginWith(user, NEW_PASSWORD).expect(200);
  });

  test('when ten resets with one link arrive at once, then exactly one sets the password', async () => {
    const user = await registerWorkspace(stack);
    const token = await resetLink(user.email);
    const answers = await Promise.all(Array.from({ length: 10 }, () => reset(resetBody(user, token))));
    expect(answers.filter((a) => a.status === 204)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body.type)).toEqual(Array(9).fill('/problems/password-reset-invalid'));
  });

  test('when the new passwords differ or are shorter than 12 characters, then 400 and the link still works', async () => {
    const user = await registerWorkspace(stack);
    const token = await resetLink(user.email);
    await reset({ ...resetBody(user, token), confirmPassword: 'not the same password' }).expect(400);
    await reset({ ...resetBody(user, token), newPassword: 'short pw 11', confirmPassword: 'short pw 11' }).expect(400);
    await reset(resetBody(user, token)).expect(204);
  });

  test('when the account has an authenticator, then the link alone answers 202 TOTP and changes nothing; a wrong code is 401; the right one resets', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const token = await resetLink(user.email);
    const challenge = await reset(resetBody(user, token)).expect(202);
    expect(challenge.body).toEqual({ channel: 'TOTP', challengeId: null, expiresAt: null });
    await loginWith(user, user.password).expect(202); // still the old password
    const wrong = await reset(resetBody(user, token, { totpCode: totpCode(secret, 10) })).expect(401);
    expect(wrong.body.type).toBe('/problems/invalid-second-factor');
    await reset(resetBody(user, token, { totpCode: totpCode(secret, 1) })).expect(204);
    await loginWith(user, NEW_PASSWORD).expect(202);
  });

  test('when the account has email codes, then a code is mailed for the reset, and only with it does the reset happen', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    const token = await resetLink(user.email);
    const before = (await readMail(stack, user.email)).length;
    const challenge = await reset(resetBody(user, token)).expect(202);
    expect(challenge.body).toEqual({ channel: 'EMAIL', challengeId: expect.any(String), expiresAt: expect.any(String) });
    const code = await nextCode(stack, user.email, before);
    // The code of this challenge cannot log in (another purpose, no workspace).
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, challengeId: challenge.body.challengeId, code }).expect(401);
    await reset(resetBody(user, token, { challengeId: challenge.body.challengeId, code })).expect(204);
    await loginWith(user, NEW_PASSWORD).expect(202);
  });

  test('when the account has email codes and the reset carries totpCode or recoveryCode, then 401 invalid-second-factor as a problem document; the link still works', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    const token = await resetLink(user.email);
    for (const factor of [{ totpCode: '123456' }, { recoveryCode: 'abcd-efgh-ijkl-mnop' }]) {
      const res = await reset(resetBody(user, token, factor)).expect(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ type: '/problems/invalid-second-factor', status: 401 });
    }
    // Nothing changed: the old password still opens the first step (whose sign-in code is mailed).
    const mailed = (await readMail(stack, user.email)).length;
    await loginWith(user, user.password).expect(202);
    await waitForMail(stack, user.email, mailed + 1);
    const challenge = await reset(resetBody(user, token)).expect(202);
    const code = await nextCode(stack, user.email, mailed + 1);
    await reset(resetBody(user, token, { challengeId: challenge.body.challengeId, code })).expect(204);
  });

  test('when a factor is sent for an account without one, or factors are mixed, then 400 login-factors-invalid', async () => {
    const user = await registerWorkspace(stack);
    const token = await resetLink(user.email);
    expect((await reset(resetBody(user, token, { totpCode: '123456' })).expect(400)).body.type).toBe('/problems/login-factors-invalid');
    expect((await reset(resetBody(user, token, { totpCode: '123456', recoveryCode: 'abcd-efgh-ijkl-mnop' })).expect(400)).body.type).toBe(
      '/problems/login-factors-invalid',
    );
    await reset(resetBody(user, token)).expect(204);
  });
});
