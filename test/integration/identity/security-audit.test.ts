import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { enableEmailFactor, enableTotp, login, mailCount, nextCode, totpCode } from '../../helpers/second-factors';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('audit events for security changes', () => {
  test('"every security change" and "login success and failure" are recorded, "never with codes, secrets or passwords"', async () => {
    const user = await registerWorkspace(stack);
    const secrets: string[] = [user.password];
    const post = (path: string, body: Record<string, unknown>) =>
      api(stack).post(`/api/v1/me/security${path}`).set(...bearer(user.accessToken)).send(body);

    await login(stack, { email: user.email, password: 'a wrong password here' }).expect(401);
    await enableEmailFactor(stack, user);
    const before = await mailCount(stack, user.email);
    const challenge = await post('/email-factor/challenge', { currentPassword: user.password, purpose: 'DISABLE' }).expect(202);
    const code = await nextCode(stack, user.email, before);
    secrets.push(code);
    await post('/email-factor/confirm', { currentPassword: user.password, challengeId: challenge.body.challengeId, code }).expect(200);

    const { secret, recoveryCodes } = await enableTotp(stack, user);
    secrets.push(secret, ...recoveryCodes, ...recoveryCodes.map((c) => c.replace(/-/g, '')));
    await login(stack, { email: user.email, password: user.password, totpCode: totpCode(secret, 3) }).expect(401);
    const second = await login(stack, { email: user.email, password: user.password, totpCode: totpCode(secret, 1) }).expect(200);
    // Five factor attempts so far fill the identity's window; make room for the rest of the walk-through.
    await stack.admin.query('DELETE FROM factor_attempts WHERE identity_id = :id', { replacements: { id: user.me.globalUserId } });
    await post('/step-up', { recoveryCode: recoveryCodes[0] }).expect(200);
    const regenerated = await post('/recovery-codes', { currentPassword: user.password }).expect(200);
    secrets.push(...regenerated.body.recoveryCodes);
    await post('/totp/disable', { currentPassword: user.password, recoveryCode: regenerated.body.recoveryCodes[0] }).expect(200);

    const sessions = await api(stack).get('/api/v1/me/sessions').set(...bearer(user.accessToken)).expect(200);
    const other = sessions.body.items.find((s: { current: boolean }) => !s.current);
    await api(stack).delete(`/api/v1/me/sessions/${other.id}`).set(...bearer(user.accessToken)).expect(204);
    secrets.push(second.body.accessToken, second.body.refreshToken, user.accessToken, user.refreshToken);

    const events = await stack.admin.query<Record<string, unknown>>(
      'SELECT * FROM audit_events WHERE tenant_id = :tenantId ORDER BY occurred_at, id',
      { replacements: { tenantId: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(events.map((e) => e.action)).toEqual([
      'workspace.registered',
      'auth.login.failed',
      'auth.email-factor.enabled',
      'auth.email-factor.disabled',
      'auth.totp.enabled',
      'auth.login.failed',
      'auth.login.succeeded',
      'auth.step-up.succeeded',
      'auth.recovery-codes.regenerated',
      'auth.totp.disabled',
      'auth.session.revoked',
    ]);
    expect(events.filter((e) => e.action === 'auth.login.failed').map((e) => e.details)).toEqual(['wrong password', 'second factor rejected']);
    for (const event of events.slice(1)) {
      expect(event).toMatchObject({ actor_membership_id: user.me.membershipId, system_actor: false, delivery_state: 'RECORDED' });
    }
    const text = JSON.stringify(events);
    for (const value of secrets) expect(text).not.toContain(value);
  });
});
