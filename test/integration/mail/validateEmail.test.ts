import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, registerWorkspace } from '../../helpers/clients';
import { startDnsStub, type DnsStub } from '../../helpers/dns-stub';

// POST /api/v1/email/validate through the real app, with DNS answered by a stub on 127.0.0.1.

let stack: TestStack;
let dns: DnsStub;
beforeAll(async () => {
  dns = await startDnsStub();
  stack = await startTestStack({ EMAIL_DNS_SERVERS: dns.server, EMAIL_DNS_TIMEOUT_MS: '300', RATE_LIMIT_EMAIL_VALIDATION_PER_EMAIL: '3/60' });
});
afterAll(async () => {
  await stack.stop();
  await dns.close();
});

const validate = (email: unknown) => api(stack).post('/api/v1/email/validate').send({ email });

describe('validateEmail', () => {
  test('public: a domain with MX is VALID, the mailbox UNVERIFIED', async () => {
    const res = await validate('dilnoza@mx.test').expect(200);
    expect(res.body).toEqual({ code: 'VALID', domain: 'mx.test', format: 'VALID', mailbox: 'UNVERIFIED', message: expect.any(String) });
  });

  test('each outcome, and a DNS that does not answer is UNVERIFIED, never a 5xx', async () => {
    expect((await validate('a@nowhere.test').expect(200)).body.code).toBe('DOMAIN_NOT_FOUND');
    expect((await validate('a@nullmx.test').expect(200)).body.code).toBe('NO_MAIL_SERVER');
    expect((await validate('a@address.test').expect(200)).body.code).toBe('VALID');
    expect((await validate('a@silent.test').expect(200)).body.code).toBe('UNVERIFIED');
    expect((await validate('a@mx.123').expect(200)).body).toMatchObject({ code: 'INVALID_FORMAT', format: 'INVALID' });
  });

  test('the answer does not depend on whether an account uses the address', async () => {
    const user = await registerWorkspace(stack);
    const known = (await validate(user.email).expect(200)).body;
    const unknown = (await validate(`nobody-${Date.now()}@${user.email.split('@')[1]}`).expect(200)).body;
    expect(known).toEqual(unknown);
  });

  test.each([['not an email'], [''], [42], ['a@b'.padStart(321, 'x')]])('%j is a 400 problem', async (email) => {
    const res = await validate(email).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  test('rate-limited per address: the fourth check of one address in a minute is 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++) await validate('limited@mx.test').expect(200);
    const refused = await validate('Limited@MX.test').expect(429);
    expect(refused.body.type).toMatch(/\/problems\/too-many-requests$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await validate('other@mx.test').expect(200);
  });
});
