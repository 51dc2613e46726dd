import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { enableTotp, login, totpCode } from '../../helpers/second-factors';
import { base32Decode } from '../../../core/identity/totp';

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

describe('setupTotp: POST /api/v1/me/security/totp/setup', () => {
  test('when the current password is right, then 201 with a base32 secret, its otpauth URI and a PNG QR code', async () => {
    const user = await registerWorkspace(stack);
    const res = await post(user, '/totp/setup', { currentPassword: user.password }).expect(201);
    expect(Object.keys(res.body).sort()).toEqual(['enrollmentId', 'expiresAt', 'otpauthUri', 'qrDataUrl', 'secret']);
    expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(res.body.secret)).toHaveLength(20);
    const uri = new URL(res.body.otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(res.body.secret);
    expect(decodeURIComponent(uri.pathname)).toContain(user.email);
    const png = Buffer.from(res.body.qrDataUrl.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(res.body.qrDataUrl.startsWith('data:image/png;base64,')).toBe(true);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(Date.parse(res.body.expiresAt)).toBeGreaterThan(Date.now());
    // Setting up alone turns nothing on.
    expect((await security(user)).body.totpEnabled).toBe(false);
  });

  test('when the current password is wrong, then 400 current-password-incorrect', async () => {
    const user = await registerWorkspace(stack);
    const res = await post(user, '/totp/setup', { currentPassword: 'not my password at all' }).expect(400);
    expect(res.body.type).toBe('/problems/current-password-incorrect');
  });

  test('"the secret is encrypted at rest": the stored enrolment does not contain the secret', async () => {
    const user = await registerWorkspace(stack);
    const res = await post(user, '/totp/setup', { currentPassword: user.password }).expect(201);
    const rows = await stack.admin.query<{ secret_encrypted: string }>('SELECT secret_encrypted FROM totp_enrollments WHERE id = :id', {
      replacements: { id: res.body.enrollmentId },
      type: QueryTypes.SELECT,
    });
    expect(rows[0]!.secret_encrypted).not.toContain(res.body.secret);
  });
});

describe('confirmTotp: POST /api/v1/me/security/totp/confirm', () => {
  test('when the code is valid, then the authenticator is on and ten recovery codes come back', async () => {
    const user = await registerWorkspace(stack);
    const { recoveryCodes } = await enableTotp(stack, user);
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    const status = (await security(user)).body;
    expect(status).toEqual({
      channel: 'TOTP',
      email2faEnabled: false,
      emailDeliveryAvailable: true,
      totpAvailable: true,
      totpEnabled: true,
      recoveryCodesRemaining: 10,
    });
  });

  test('when the code is wrong, then 400 second-factor-code-incorrect and the factor stays off', async () => {
    const user = await registerWorkspace(stack);
    const setup = await post(user, '/totp/setup', { currentPassword: user.password }).expect(201);
    const wrong = totpCode(setup.body.secret, 5);
    const res = await post(user, '/totp/confirm', { currentPassword: user.password, enrollmentId: setup.body.enrollmentId, code: wrong }).expect(400);
    expect(res.body.type).toBe('/problems/second-factor-code-incorrect');
    expect((await security(user)).body.totpEnabled).toBe(false);
  });

  test('when the enrolment belongs to someone else, then 404', async () => {
    const [user, other] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
    const setup = await post(other, '/totp/setup', { currentPassword: other.password }).expect(201);
    const res = await post(user, '/totp/confirm', {
      currentPassword: user.password,
      enrollmentId: setup.body.enrollmentId,
      code: totpCode(setup.body.secret),
    }).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
  });

  test('when an authenticator is already on, then setup answers 409 second-factor-state', async () => {
    const user = await registerWorkspace(stack);
    await enableTotp(stack, user);
    const res = await post(user, '/totp/setup', { currentPassword: user.password }).expect(409);
    expect(res.body.type).toBe('/problems/second-factor-state');
  });
});

describe('login with an authenticator: POST /api/v1/auth/login', () => {
  test('"first step → 202 channel TOTP with both null", no tokens; then the code gives a token pair', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const first = await login(stack, { email: user.email, password: user.password }).expect(202);
    expect(first.body).toEqual({ channel: 'TOTP', challengeId: null, expiresAt: null });
    // The enrolment spent the current step, so the next step's code (allowed drift) logs in.
    const second = await login(stack, { email: user.email, password: user.password, totpCode: totpCode(secret, 1) }).expect(200);
    expect(Object.keys(second.body).sort()).toEqual(['accessToken', 'refreshToken']);
  });

  test('"the enrolment code cannot also log in"', async () => {
    const user = await registerWorkspace(stack);
    const setup = await post(user, '/totp/setup', { currentPassword: user.password }).expect(201);
    const code = totpCode(setup.body.secret);
    await post(user, '/totp/confirm', { currentPassword: user.password, enrollmentId: setup.body.enrollmentId, code }).expect(200);
    const res = await login(stack, { email: user.email, password: user.password, totpCode: code }).expect(401);
    expect(res.body.type).toBe('/problems/invalid-second-factor');
  });

  test('"the same or an earlier time step never works twice": replay and an older code are refused', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const next = totpCode(secret, 1);
    await login(stack, { email: user.email, password: user.password, totpCode: next }).expect(200);
    const replay = await login(stack, { email: user.email, password: user.password, totpCode: next }).expect(401);
    expect(replay.body.type).toBe('/problems/invalid-second-factor');
    await login(stack, { email: user.email, password: user.password, totpCode: totpCode(secret, 0) }).expect(401);
  });

  test('"±1 step of clock drift allowed": two steps away is refused', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    await login(stack, { email: user.email, password: user.password, totpCode: totpCode(secret, 2) }).expect(401);
    await login(stack, { email: user.email, password: user.password, totpCode: totpCode(secret, -2) }).expect(401);
  });

  test('when ten requests send the same valid code at once, then exactly one gets tokens', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const code = totpCode(secret, 1);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => login(stack, { email: user.email, password: user.password, totpCode: code })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    // Only failed checks keep their attempt: at most five are judged wrong (the code is used), the rest are limited.
    const refused = statuses.filter((s) => s === 401).length;
    expect(refused).toBeGreaterThanOrEqual(4);
    expect(refused).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9 - refused);
  });

  test('when the password is wrong, then 401 invalid-credentials whatever the code', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const res = await login(stack, { email: user.email, password: 'wrong password entirely', totpCode: totpCode(secret, 1) }).expect(401);
    expect(res.body.type).toBe('/problems/invalid-credentials');
  });

  test('when an email code is sent by an authenticator user, then 401 and no tokens', async () => {
    const user = await registerWorkspace(stack);
    await enableTotp(stack, user);
    const res = await login(stack, {
      email: user.email,
      password: user.password,
      challengeId: '6d9f8a3e-2b7c-4e1a-9f0d-3c5b7a9e1d2f',
      code: '12345678',
    }).expect(401);
    expect(res.body.type).toBe('/problems/invalid-second-factor');
  });
});

describe('login with a recovery code: POST /api/v1/auth/login', () => {
  test('"a single unused recovery code may replace it", in any case and without hyphens; "cannot be used again"', async () => {
    const user = await registerWorkspace(stack);
    const { recoveryCodes } = await enableTotp(stack, user);
    const shouted = recoveryCodes[3]!.toUpperCase().replace(/-/g, '');
    await login(stack, { email: user.email, password: user.password, recoveryCode: shouted }).expect(200);
    expect((await security(user)).body.recoveryCodesRemaining).toBe(9);
    const again = await login(stack, { email: user.email, password: user.password, recoveryCode: recoveryCodes[3] }).expect(401);
    expect(again.body.type).toBe('/problems/invalid-second-factor');
  });

  test('when a well-formed code is not one of the user\'s, then 401', async () => {
    const user = await registerWorkspace(stack);
    await enableTotp(stack, user);
    await login(stack, { email: user.email, password: user.password, recoveryCode: 'aaaa-bbbb-cccc-dddd' }).expect(401);
  });

  test('when the code is malformed, then 400 validation', async () => {
    const user = await registerWorkspace(stack);
    const res = await login(stack, { email: user.email, password: user.password, recoveryCode: 'aaaa-bbbb-cccc-ddd1' }).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });
});

describe('regenerateRecoveryCodes: POST /api/v1/me/security/recovery-codes', () => {
  test('"recovery codes can be regenerated (old ones die)"', async () => {
    const user = await registerWorkspace(stack);
    const { secret, recoveryCodes: old } = await enableTotp(stack, user);
    await post(user, '/step-up', { totpCode: totpCode(secret, 1) }).expect(200);
    const res = await post(user, '/recovery-codes', { currentPassword: user.password }).expect(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    expect(res.body.recoveryCodes.filter((c: string) => old.includes(c))).toEqual([]);
    await login(stack, { email: user.email, password: user.password, recoveryCode: old[0] }).expect(401);
    await login(stack, { email: user.email, password: user.password, recoveryCode: res.body.recoveryCodes[0] }).expect(200);
  });

  test('when no authenticator is on, then 409', async () => {
    const user = await registerWorkspace(stack);
    await post(user, '/recovery-codes', { currentPassword: user.password }).expect(409);
  });
});

describe('disableTotp: POST /api/v1/me/security/totp/disable', () => {
  test('"disable needs the current password plus a code": with a code it turns off and login needs no factor', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const res = await post(user, '/totp/disable', { currentPassword: user.password, code: totpCode(secret, 1) }).expect(200);
    expect(res.body).toMatchObject({ channel: 'NONE', totpEnabled: false, recoveryCodesRemaining: 0 });
    await login(stack, { email: user.email, password: user.password }).expect(200);
  });

  test('"or a recovery code"', async () => {
    const user = await registerWorkspace(stack);
    const { recoveryCodes } = await enableTotp(stack, user);
    await post(user, '/totp/disable', { currentPassword: user.password, recoveryCode: recoveryCodes[9] }).expect(200);
    expect((await security(user)).body.totpEnabled).toBe(false);
  });

  test('when neither or both of code and recoveryCode are sent, then 400', async () => {
    const user = await registerWorkspace(stack);
    const { secret, recoveryCodes } = await enableTotp(stack, user);
    await post(user, '/totp/disable', { currentPassword: user.password }).expect(400);
    await post(user, '/totp/disable', { currentPassword: user.password, code: totpCode(secret, 1), recoveryCode: recoveryCodes[0] }).expect(400);
    expect((await security(user)).body.totpEnabled).toBe(true);
  });

  test('when the password is wrong or the code is wrong, then 400 and the factor stays on', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const badPassword = await post(user, '/totp/disable', { currentPassword: 'not my password at all', code: totpCode(secret, 1) }).expect(400);
    expect(badPassword.body.type).toBe('/problems/current-password-incorrect');
    const badCode = await post(user, '/totp/disable', { currentPassword: user.password, code: totpCode(secret, 3) }).expect(400);
    expect(badCode.body.type).toBe('/problems/second-factor-code-incorrect');
    expect((await security(user)).body.totpEnabled).toBe(true);
  });
});
