import request from 'supertest';
import { createApp } from '../../../api/app';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { enableTotp, totpCode } from '../../helpers/second-factors';

let stack: TestStack;
/** A second API process in all but name: its own app, services and connection pool state. */
let secondApp: ReturnType<typeof createApp>;
beforeAll(async () => {
  stack = await startTestStack();
  secondApp = anotherApp(stack);
});
afterAll(async () => {
  await stack.stop();
});

describe('factor attempt limit', () => {
  test('"the sixth → 429 with a Retry-After header in seconds, also for correct codes, across all API processes"', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const apps = [stack.app, secondApp];
    for (let i = 0; i < 5; i++) {
      // attempts 1..5, alternating between the two apps, all wrong
      await request(apps[i % 2]!).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: totpCode(secret, 4) }).expect(401);
    }
    const limited = await request(secondApp)
      .post('/api/v1/auth/login')
      .send({ email: user.email, password: user.password, totpCode: totpCode(secret, 1) })
      .expect(429);
    expect(limited.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(limited.body.type).toBe('/problems/too-many-attempts');
    const retryAfter = limited.headers['retry-after'];
    expect(retryAfter).toMatch(/^[0-9]+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(300);
    expect(limited.body.retryAfter).toBe(Number(retryAfter));
    // The limited attempt was not counted as a use: once the window has room, the same code works.
    await stack.admin.query(`UPDATE factor_attempts SET attempted_at = attempted_at - interval '5 minutes' WHERE identity_id = :id`, {
      replacements: { id: user.me.globalUserId },
    });
    await request(stack.app).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: totpCode(secret, 1) }).expect(200);
  });

  test('"Retry-After" is when the oldest attempt in the window leaves it', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: totpCode(secret, 4) }).expect(401);
    // Age that first attempt by four minutes: it leaves the window in about a minute.
    await stack.admin.query(`UPDATE factor_attempts SET attempted_at = attempted_at - interval '4 minutes' WHERE identity_id = :id`, {
      replacements: { id: user.me.globalUserId },
    });
    for (let i = 0; i < 4; i++) {
      await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: totpCode(secret, 4) }).expect(401);
    }
    const limited = await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: totpCode(secret, 1) }).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(50);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  test('when the first step has a wrong password, then no factor attempt is counted (a stranger cannot lock the factor)', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    for (let i = 0; i < 6; i++) {
      await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: 'a wrong password here', totpCode: totpCode(secret, 1) }).expect(401);
    }
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: totpCode(secret, 1) }).expect(200);
  });

  test('settings confirmations with a right code use no attempt; wrong ones count like login attempts', async () => {
    const user = await registerWorkspace(stack);
    const setup = await api(stack).post('/api/v1/me/security/totp/setup').set(...bearer(user.accessToken)).send({ currentPassword: user.password }).expect(201);
    for (let i = 0; i < 5; i++) {
      await api(stack)
        .post('/api/v1/me/security/totp/confirm')
        .set(...bearer(user.accessToken))
        .send({ currentPassword: user.password, enrollmentId: setup.body.enrollmentId, code: totpCode(setup.body.secret, 5) })
        .expect(400);
    }
    await api(stack)
      .post('/api/v1/me/security/totp/confirm')
      .set(...bearer(user.accessToken))
      .send({ currentPassword: user.password, enrollmentId: setup.body.enrollmentId, code: totpCode(setup.body.secret) })
      .expect(429);
  });

  test('"only failed checks count" (NIST SP 800-63B §5.2.2): eight correct sign-ins in a row are never limited', async () => {
    const user = await registerWorkspace(stack);
    const { recoveryCodes } = await enableTotp(stack, user);
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, totpCode: '000000' }).expect(401);
    for (const recoveryCode of recoveryCodes.slice(0, 8)) {
      await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, recoveryCode }).expect(200);
    }
  });

  test('30 parallel wrong current passwords on PUT /me/password: exactly five are judged (400), the rest are limited (429)', async () => {
    const user = await registerWorkspace(stack);
    const apps = [stack.app, secondApp];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(apps[i % 2]!)
          .put('/api/v1/me/password')
          .set(...bearer(user.accessToken))
          .send({ currentPassword: `not the password ${i}`, newPassword: 'a brand new password', confirmPassword: 'a brand new password' }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(200);
  });

  test('wrong current passwords count against the same window: the sixth security change is limited', async () => {
    const user = await registerWorkspace(stack);
    for (let i = 0; i < 5; i++) {
      await api(stack).post('/api/v1/me/security/totp/setup').set(...bearer(user.accessToken)).send({ currentPassword: 'guessing the password' }).expect(400);
    }
    const res = await api(stack).post('/api/v1/me/security/totp/setup').set(...bearer(user.accessToken)).send({ currentPassword: user.password }).expect(429);
    expect(res.headers['retry-after']).toMatch(/^[0-9]+$/);
  });
});
