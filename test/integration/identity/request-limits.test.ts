import { randomUUID } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createApp } from '../../../api/app';
import { createPasswordHasher, type PasswordHasher } from '../../../core/identity/passwords';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, magicLinkTokenFrom, PASSWORD, readMail, registerWorkspace, requestMagicLink, uniqueEmail, waitForMail } from '../../helpers/clients';
import { enableEmailFactor } from '../../helpers/second-factors';

// The limits here are the configured defaults (an empty value means the default); every test sends its
// own client IPs through X-Forwarded-For, believed because the test trusts the loopback proxy.
const FILE_IP = '192.0.2.250';
let stack: TestStack;
let counted: ReturnType<typeof createApp>;
let hashes = 0;
beforeAll(async () => {
  stack = await startTestStack({
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_LOGIN_PER_IP: '',
    RATE_LIMIT_REGISTER_PER_IP: '',
    RATE_LIMIT_MAGIC_LINK_PER_IP: '',
    RATE_LIMIT_EMAIL_CHALLENGE_PER_IP: '',
    RATE_LIMIT_PASSWORD_RESET_PER_IP: '',
  });
  // Other test files count their own requests under 127.0.0.1 in the same store: this file's requests that
  // name no client IP of their own (the helpers') come from an address only this file uses.
  const own = express();
  own.use((req, _res, next) => {
    req.headers['x-forwarded-for'] ??= FILE_IP;
    next();
  });
  own.use(stack.app);
  stack.app = own;
  const real = createPasswordHasher({ memoryKib: stack.config.passwords.argon2MemoryKib, timeCost: stack.config.passwords.argon2TimeCost });
  const counting: PasswordHasher = {
    ...real,
    hash: (password) => ((hashes += 1), real.hash(password)),
    verify: (password, stored) => ((hashes += 1), real.verify(password, stored)),
  };
  counted = anotherApp(stack, { hasher: counting });
});
afterAll(async () => {
  await stack.stop();
});

let nextOctet = 1;
/** A client IP no other test uses. */
const clientIp = () => `198.51.100.${nextOctet++}`;

function expectLimited(res: request.Response): void {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(res.body.type).toBe('/problems/too-many-requests');
  expect(res.headers['retry-after']).toMatch(/^[0-9]+$/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.body.retryAfter).toBe(Number(res.headers['retry-after']));
}

describe('request-rate limits (per client IP, and per email from one client IP) and failed credentials, in PostgreSQL', () => {
  test('login: 100 requests per IP in five minutes; the 101st is 429 before any password is hashed, and another IP is unaffected', async () => {
    const ip = clientIp();
    for (let i = 0; i < 100; i++) {
      await request(counted).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email: uniqueEmail('nobody'), password: 'some password here' }).expect(401);
    }
    const hashed = hashes;
    const limited = await request(counted).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email: uniqueEmail('nobody'), password: 'some password here' });
    expectLimited(limited);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(300);
    expect(hashes).toBe(hashed);
    await request(counted).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: uniqueEmail('nobody'), password: 'some password here' }).expect(401);
  });

  test('login: strangers\' wrong passwords for an email, from other addresses, never lock its owner out', async () => {
    const user = await registerWorkspace(stack);
    for (let i = 0; i < 40; i++) {
      await request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: user.email, password: 'a wrong password here' }).expect(401);
    }
    await request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: user.email.toUpperCase(), password: user.password }).expect(200);
  });

  test('login: ten failures in a row for one email from one address block that pair (429, no hash); the right password from another address still works', async () => {
    const user = await registerWorkspace(stack);
    const guesser = clientIp();
    for (let i = 0; i < 11; i++) {
      await request(counted).post('/api/v1/auth/login').set('X-Forwarded-For', guesser).send({ email: user.email, password: `wrong guess ${i}` }).expect(401);
    }
    const hashed = hashes;
    const limited = await request(counted).post('/api/v1/auth/login').set('X-Forwarded-For', guesser).send({ email: user.email, password: user.password });
    expectLimited(limited);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(hashes).toBe(hashed);
    await request(counted).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: user.email, password: user.password }).expect(200);
  });

  test('login: a success resets the failures in a row', async () => {
    const user = await registerWorkspace(stack);
    const ip = clientIp();
    const attempt = (password: string) => request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email: user.email, password });
    for (let i = 0; i < 9; i++) await attempt(`wrong guess ${i}`).expect(401);
    await attempt(user.password).expect(200);
    for (let i = 0; i < 10; i++) await attempt(`wrong guess ${i}`).expect(401);
    await attempt(user.password).expect(200);
  });

  test('login: failures per address per day are bounded across emails', async () => {
    const strict = anotherApp(stack, { config: { ...stack.config, credentialFailures: { perEmailAndIp: 1000, blockSeconds: 3600, perIpPerDay: 3 } } });
    const ip = clientIp();
    for (let i = 0; i < 4; i++) {
      await request(strict).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email: uniqueEmail('nobody'), password: 'some password here' }).expect(401);
    }
    const limited = await request(strict).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email: uniqueEmail('nobody'), password: 'some password here' });
    expectLimited(limited);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3600);
    await request(strict).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: uniqueEmail('nobody'), password: 'some password here' }).expect(401);
  });

  test('magic links: five per email per hour from one address; the owner elsewhere still gets a link', async () => {
    const email = uniqueEmail();
    const ip = clientIp();
    for (let i = 0; i < 5; i++) {
      await request(stack.app).post('/api/v1/auth/magic-link/request').set('X-Forwarded-For', ip).send({ email }).expect(202);
    }
    expectLimited(await request(stack.app).post('/api/v1/auth/magic-link/request').set('X-Forwarded-For', ip).send({ email }));
    await request(stack.app).post('/api/v1/auth/magic-link/request').set('X-Forwarded-For', clientIp()).send({ email }).expect(202);
  });

  test('password reset links: five per email per hour from one address; the owner elsewhere still gets a link', async () => {
    const email = uniqueEmail();
    const ip = clientIp();
    for (let i = 0; i < 5; i++) {
      await request(stack.app).post('/api/v1/auth/password-reset/request').set('X-Forwarded-For', ip).send({ email }).expect(202);
    }
    expectLimited(await request(stack.app).post('/api/v1/auth/password-reset/request').set('X-Forwarded-For', ip).send({ email }));
    await request(stack.app).post('/api/v1/auth/password-reset/request').set('X-Forwarded-For', clientIp()).send({ email }).expect(202);
  });

  test('magic links, the probe: four client addresses spend an address\'s hourly links (five each); the owner\'s own request from a fifth still mails a link that works', async () => {
    const email = uniqueEmail('owner');
    for (const ip of [clientIp(), clientIp(), clientIp(), clientIp()]) {
      for (let i = 0; i < 5; i++) await request(stack.app).post('/api/v1/auth/magic-link/request').set('X-Forwarded-For', ip).send({ email }).expect(202);
    }
    await waitForMail(stack, email, 20, 60_000);
    await request(stack.app).post('/api/v1/auth/magic-link/request').set('X-Forwarded-For', clientIp()).send({ email }).expect(202);
    const [newest] = await waitForMail(stack, email, 21, 20_000);
    await request(stack.app).post('/api/v1/auth/register').set('X-Forwarded-For', clientIp())
      .send({ token: magicLinkTokenFrom(newest!), email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
  });

  test('password reset links, the probe: four client addresses spend an address\'s hourly links (five each); the owner\'s own request from a fifth still mails a link that works', async () => {
    const owner = await registerWorkspace(stack);
    const before = (await readMail(stack, owner.email)).length;
    for (const ip of [clientIp(), clientIp(), clientIp(), clientIp()]) {
      for (let i = 0; i < 5; i++) await request(stack.app).post('/api/v1/auth/password-reset/request').set('X-Forwarded-For', ip).send({ email: owner.email }).expect(202);
    }
    await waitForMail(stack, owner.email, before + 20, 60_000);
    await request(stack.app).post('/api/v1/auth/password-reset/request').set('X-Forwarded-For', clientIp()).send({ email: owner.email }).expect(202);
    const [newest] = await waitForMail(stack, owner.email, before + 21, 20_000);
    const password = 'the owner\'s own new password';
    await request(stack.app).post('/api/v1/auth/password-reset').set('X-Forwarded-For', clientIp())
      .send({ token: magicLinkTokenFrom(newest!), email: owner.email, newPassword: password, confirmPassword: password }).expect(204);
  });

  test('mail-sending requests count an IPv6 client by its /64: two addresses of one /64 share its limits, another /64 has its own; an IPv4-mapped address counts as its IPv4', async () => {
    const post = (path: string, ip: string, email: string) => request(stack.app).post(path).set('X-Forwarded-For', ip).send({ email });
    const magic = '/api/v1/auth/magic-link/request';
    const reset = '/api/v1/auth/password-reset/request';
    // Five per email from one client: the /64 2001:db8:64:1::/64 is one client, whichever of its addresses asks.
    const email = uniqueEmail();
    for (let i = 1; i <= 5; i++) await post(magic, `2001:db8:64:1::${i}`, email).expect(202);
    expectLimited(await post(magic, '2001:db8:64:1:ffff:ffff:ffff:ffff', email));
    await post(magic, '2001:db8:64:2::1', email).expect(202);
    // Twenty per client over all emails.
    for (let i = 1; i <= 20; i++) await post(reset, `2001:db8:64:3::${i.toString(16)}`, uniqueEmail('nobody')).expect(202);
    expectLimited(await post(reset, '2001:db8:64:3:abcd:ef01:2345:6789', uniqueEmail('nobody')));
    await post(reset, '2001:db8:64:4::1', uniqueEmail('nobody')).expect(202);
    // ::ffff:a.b.c.d is the client a.b.c.d.
    const v4 = clientIp();
    const mapped = uniqueEmail();
    for (let i = 0; i < 5; i++) await post(magic, `::ffff:${v4}`, mapped).expect(202);
    expectLimited(await post(magic, v4, mapped));
  });

  test('registration: strangers\' invalid magic links for an email, from other addresses, never stop its owner registering', async () => {
    const email = uniqueEmail('owner');
    const body = () => ({ token: randomUUID().replace(/-/g, '').padEnd(43, 'x'), email, password: 'a long enough password', confirmPassword: 'a long enough password' });
    for (let i = 0; i < 15; i++) await request(stack.app).post('/api/v1/auth/register').set('X-Forwarded-For', clientIp()).send(body()).expect(400);
    const token = await requestMagicLink(stack, email);
    await request(stack.app).post('/api/v1/auth/register').set('X-Forwarded-For', clientIp())
      .send({ token, email, password: 'a long enough password', confirmPassword: 'a long enough password' }).expect(201);
  });

  test('registration: 20 per IP in ten minutes, requests with invalid magic links included', async () => {
    const ip = clientIp();
    const body = () => ({ token: randomUUID().replace(/-/g, '').padEnd(43, 'x'), email: uniqueEmail(), password: 'a long enough password', confirmPassword: 'a long enough password' });
    for (let i = 0; i < 20; i++) {
      await request(stack.app).post('/api/v1/auth/register').set('X-Forwarded-For', ip).send(body()).expect(400);
    }
    expectLimited(await request(stack.app).post('/api/v1/auth/register').set('X-Forwarded-For', ip).send(body()));
  });

  test('email codes: ten challenges per identity in ten minutes, whichever operation starts them', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user); // one challenge
    for (let i = 0; i < 8; i++) {
      await request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: user.email, password: user.password }).expect(202);
    }
    await api(stack).post('/api/v1/me/security/step-up').set(...bearer(user.accessToken)).send({}).expect(202); // the tenth
    expectLimited(await request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', clientIp()).send({ email: user.email, password: user.password }));
  });

  test('X-Forwarded-For is believed only from a configured proxy: otherwise the client IP is the socket peer', async () => {
    const user = await registerWorkspace(stack);
    // The untrusting app counts by the socket peer, 127.0.0.1, which every test file shares: its per-IP
    // login limit is lifted, so only the address it records is under test here.
    const requestLimits = { ...stack.config.requestLimits, login: { ...stack.config.requestLimits.login, perIp: { points: 1_000_000, seconds: 1 } } };
    const untrusting = anotherApp(stack, { config: { ...stack.config, trustProxy: [], requestLimits } });
    await request(untrusting).post('/api/v1/auth/login').set('X-Forwarded-For', '203.0.113.7').send({ email: user.email, password: 'a wrong password here' }).expect(401);
    await request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', '203.0.113.8').send({ email: user.email, password: 'a wrong password here' }).expect(401);
    const events = await stack.admin.query<{ ip_address: string }>(
      `SELECT ip_address FROM audit_events WHERE tenant_id = :tenantId AND action = 'auth.login.failed' ORDER BY occurred_at`,
      { replacements: { tenantId: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(events.map((e) => e.ip_address)).toEqual([expect.stringMatching(/127\.0\.0\.1$/), '203.0.113.8']);
  });
});
