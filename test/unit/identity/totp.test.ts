import { base32Decode, base32Encode, hotp, matchTotpStep, otpauthUri, timeStep, totpAt } from '../../../core/totp';
import { canonicalRecoveryCode, hashRecoveryCode, newRecoveryCode, recoveryCodeMatches } from '../../../core/recovery-codes';
import { createFactorSecrets, newEmailCode } from '../../../core/factor-secrets';

// RFC 6238 Appendix B: seeds are the ASCII strings below; the table gives eight-digit codes.
const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('RFC 6238 time-based one-time passwords', () => {
  test.each(VECTORS)('when T = %d, then the RFC 6238 Appendix B codes come out', (seconds, sha1, sha256, sha512) => {
    const step = timeStep(seconds * 1000);
    expect(hotp(SEEDS.sha1, step, 8, 'sha1')).toBe(sha1);
    expect(hotp(SEEDS.sha256, step, 8, 'sha256')).toBe(sha256);
    expect(hotp(SEEDS.sha512, step, 8, 'sha512')).toBe(sha512);
  });

  test('when six digits are asked, then they are the low six digits of the same truncation (the code path login uses)', () => {
    const secret = base32Encode(SEEDS.sha1);
    expect(secret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    for (const [seconds, sha1] of VECTORS) {
      expect(totpAt(secret, timeStep(seconds * 1000))).toBe(sha1.slice(2));
      expect(matchTotpStep(secret, sha1.slice(2), seconds * 1000)).toBe(timeStep(seconds * 1000));
    }
  });

  test('"±1 step of clock drift allowed": the neighbouring steps match, two steps away does not', () => {
    const secret = base32Encode(SEEDS.sha1);
    const now = 1_700_000_000_000;
    const step = timeStep(now);
    expect(matchTotpStep(secret, totpAt(secret, step - 1), now)).toBe(step - 1);
    expect(matchTotpStep(secret, totpAt(secret, step + 1), now)).toBe(step + 1);
    expect(matchTotpStep(secret, totpAt(secret, step - 2), now)).toBeNull();
    expect(matchTotpStep(secret, totpAt(secret, step + 2), now)).toBeNull();
    expect(matchTotpStep(secret, '12345', now)).toBeNull();
  });

  test('base32 round-trips any bytes, and the otpauth URI names issuer, account and parameters', () => {
    for (const length of [1, 5, 10, 20, 33]) {
      const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 37 + 11) % 256));
      expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    }
    const uri = new URL(otpauthUri({ issuer: 'Acme Books', account: 'a@b.example', secret: 'ABC' }));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Acme Books:a@b.example');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret: 'ABC', issuer: 'Acme Books', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});

describe('recovery codes', () => {
  test('"four groups of four from a-z and 2-7": new codes have that shape and differ', () => {
    const codes = Array.from({ length: 50 }, newRecoveryCode);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    expect(new Set(codes).size).toBe(50);
  });

  test('"compared case-insensitively with or without hyphens"; anything else is not a code', () => {
    expect(canonicalRecoveryCode('ABCD-efgh-2345-67ab')).toBe('abcdefgh234567ab');
    expect(canonicalRecoveryCode('abcdefgh234567ab')).toBe('abcdefgh234567ab');
    expect(canonicalRecoveryCode('abcd-efgh-2345-67a1')).toBeNull(); // 1 is not in the alphabet
    expect(canonicalRecoveryCode('abcd--efgh-2345-67ab')).toBeNull();
    expect(canonicalRecoveryCode('abcd-efgh-2345')).toBeNull();
  });

  test('stored as a salted slow hash: two hashes of one code differ and both verify', async () => {
    const code = newRecoveryCode();
    const [a, b] = await Promise.all([hashRecoveryCode(code, 10), hashRecoveryCode(code, 10)]);
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt$10$')).toBe(true);
    expect(await recoveryCodeMatches(canonicalRecoveryCode(code)!, a)).toBe(true);
    expect(await recoveryCodeMatches(canonicalRecoveryCode(newRecoveryCode())!, a)).toBe(false);
  });
});

describe('second-factor secrets', () => {
  const secrets = createFactorSecrets(Buffer.alloc(32, 7));

  test('sealed secrets open only with the same key and purpose', () => {
    const sealed = secrets.encrypt('totp-secret', 'JBSWY3DPEHPK3PXP');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(secrets.decrypt('totp-secret', sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => secrets.decrypt('email-code', sealed)).toThrow();
    expect(() => createFactorSecrets(Buffer.alloc(32, 8)).decrypt('totp-secret', sealed)).toThrow();
  });

  test('the code MAC is bound to its challenge, and email codes are eight digits', () => {
    expect(secrets.emailCodeMac('c1', '12345678')).not.toBe(secrets.emailCodeMac('c2', '12345678'));
    expect(secrets.emailCodeMac('c1', '12345678')).toBe(secrets.emailCodeMac('c1', '12345678'));
    for (let i = 0; i < 200; i++) expect(newEmailCode()).toMatch(/^[0-9]{8}$/);
  });
});
