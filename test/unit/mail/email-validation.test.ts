import { createMailDomains } from '../../../adapters/dns/mail-domains';
import { syntaxProblem, validateEmail } from '../../../core/identity/email-validation';
import { startDnsStub, type DnsStub } from '../../helpers/dns-stub';

// Syntax, then MX (or A) through node:dns, against a DNS server stub on 127.0.0.1.

let dns: DnsStub;
beforeAll(async () => {
  dns = await startDnsStub();
});
afterAll(async () => {
  await dns.close();
});

const domains = () => createMailDomains({ servers: [dns.server], timeoutMs: 300 });

describe('email validation', () => {
  test.each([
    ['ali@mx.test', 'VALID', 'mx.test'],
    ['Ali.Valiyev@MX.test', 'VALID', 'mx.test'],
    ['ali@address.test', 'VALID', 'address.test'],
    ['ali@nullmx.test', 'NO_MAIL_SERVER', 'nullmx.test'],
    ['ali@bare.test', 'NO_MAIL_SERVER', 'bare.test'],
    ['ali@nowhere.test', 'DOMAIN_NOT_FOUND', 'nowhere.test'],
    ['ali@servfail.test', 'UNVERIFIED', 'servfail.test'],
  ])('%s is %s', async (email, code, domain) => {
    const report = await validateEmail(email, domains());
    expect(report).toEqual({ code, domain, format: 'VALID', mailbox: 'UNVERIFIED', message: expect.any(String) });
  });

  test('a DNS server that never answers is UNVERIFIED within the deadline, never an error', async () => {
    const started = Date.now();
    expect(await validateEmail('ali@silent.test', domains())).toMatchObject({ code: 'UNVERIFIED', format: 'VALID' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('no DNS server at all is UNVERIFIED', async () => {
    const nothing = createMailDomains({ servers: ['127.0.0.1:1'], timeoutMs: 300 });
    expect(await validateEmail('ali@mx.test', nothing)).toMatchObject({ code: 'UNVERIFIED' });
  });

  test.each([
    [`${'a'.repeat(65)}@mx.test`, /longer than 64/],
    ['.ali@mx.test', /misplaced dot/],
    ['ali..v@mx.test', /misplaced dot/],
    ['ali@localhost', /host name with a dot/],
    ['ali@-bad.test', /host name with a dot/],
    ['ali@mx.123', /ends in a number/],
    [`ali@${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.test`, /longer than 253/],
  ])('%s is INVALID_FORMAT (%s) and DNS is not asked', async (email, reason) => {
    const before = dns.queries;
    expect(syntaxProblem(email)).toMatch(reason);
    expect(await validateEmail(email, domains())).toMatchObject({ code: 'INVALID_FORMAT', format: 'INVALID', mailbox: 'UNVERIFIED' });
    expect(dns.queries).toBe(before);
  });
});
