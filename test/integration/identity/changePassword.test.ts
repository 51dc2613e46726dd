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

const NEW_PASSWORD = 'a fresh long secret';
const change = (user: Registered, body: Record<string, unknown>, token = user.accessToken) =>
  api(stack).put('/api/v1/me/password').set(...bearer(token)).send(body);
const loginAs = (email: string, password: string, host?: string) => {
  const req = api(stack).post('/api/v1/auth/login');
  if (host) req.set('Host', host);
  return req.send({ email, password });
};

describe('changePassword: PUT /api/v1/me/password', () => {
  test('when the current password is right, then 204; the new password logs in and the old one does not', async () => {
    const user = await registerWorkspace(stack);
    await change(user, { currentPassword: user.password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).expect(204);
    await loginAs(user.email, user.password).expect(401);
    await loginAs(user.email, NEW_PASSWORD).expect(200);
  });

  test('"ends every other session": their refresh and access tokens stop working; the calling session stays', async () => {
    const user = await registerWorkspace(stack);
    const other = (await loginAs(user.email, user.password).expect(200)).body;
    // A second workspace of the same person: its sessions end too.
    const second = await registerWorkspace(stack, { email: user.email, password: user.password });
    await change(user, { currentPassword: user.password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).expect(204);

    await api(stack).get('/api/v1/me').set(...bearer(other.accessToken)).expect(401);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: other.refreshToken }).expect(401);
    await api(stack).get('/api/v1/me').set(...bearer(second.accessToken)).expect(401);
    await api(stack).get('/api/v1/me').set(...bearer(user.accessToken)).expect(200);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
  });

  test('when the current password is wrong, then 400 current-password-incorrect and nothing changes', async () => {
    const user = await registerWorkspace(stack);
    const res = await change(user, { currentPassword: 'this is not it at all', newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).expect(400);
    expect(res.body.type).toBe('/problems/current-password-incorrect');
    await loginAs(user.email, user.password).expect(200);
  });

  test.each([
    ['newPassword has 11 characters', { newPassword: 'elevenchars', confirmPassword: 'elevenchars' }],
    ['newPassword is 12 characters but 74 UTF-8 bytes', { newPassword: `${'é'.repeat(37)}`, confirmPassword: `${'é'.repeat(37)}` }],
    ['confirmPassword differs', { newPassword: NEW_PASSWORD, confirmPassword: `${NEW_PASSWORD}!` }],
    ['newPassword has 73 characters', { newPassword: 'x'.repeat(73), confirmPassword: 'x'.repeat(73) }],
    ['currentPassword is over 72 bytes', { currentPassword: 'é'.repeat(40), newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }],
  ])('when %s, then 400 validation and nothing changes', async (_name, body) => {
    const user = await registerWorkspace(stack);
    const res = await change(user, { currentPassword: user.password, ...body }).expect(400);
    expect(res.body.type).toBe('/problems/validation');
    await loginAs(user.email, user.password).expect(200);
  });

  test('when the new password is a common one, in any letter case, then 400 password-too-common naming newPassword and nothing changes', async () => {
    const user = await registerWorkspace(stack);
    for (const common of ['Administrator', 'QWERTY123456', '1qaz2wsx3edc4rfv']) {
      const res = await change(user, { currentPassword: user.password, newPassword: common, confirmPassword: common }).expect(400);
      expect(res.body).toMatchObject({ type: '/problems/password-too-common', errors: [{ path: '/body/newPassword', message: 'is a commonly used password' }] });
      expect(JSON.stringify(res.body)).not.toContain(common);
      await loginAs(user.email, common).expect(401);
    }
    await loginAs(user.email, user.password).expect(200);
    await api(stack).get('/api/v1/me').set(...bearer(user.accessToken)).expect(200);
  });

  test('"12..72": twelve characters is enough', async () => {
    const user = await registerWorkspace(stack);
    await change(user, { currentPassword: user.password, newPassword: 'twelve chars', confirmPassword: 'twelve chars' }).expect(204);
    await loginAs(user.email, 'twelve chars').expect(200);
  });

  test('the change is audited without any password in the event', async () => {
    const user = await registerWorkspace(stack);
    await change(user, { currentPassword: user.password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).expect(204);
    const events = await stack.admin.query<Record<string, unknown>>(
      `SELECT * FROM audit_events WHERE tenant_id = :tenantId AND action = 'auth.password.changed'`,
      { replacements: { tenantId: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor_membership_id: user.me.membershipId, subject_type: 'IDENTITY', system_actor: false });
    const text = JSON.stringify(events);
    expect(text).not.toContain(user.password);
    expect(text).not.toContain(NEW_PASSWORD);
  });
});
