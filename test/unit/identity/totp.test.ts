import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { base32Decode, base32Encode, hotp, matchTotpStep, otpauthUri, timeStep, totpAt } from '../../../core/identity/totp';
import { canonicalRecoveryCode, hashRecoveryCode, newRecoveryCode, recoveryCodeMatches } from '../../../core/identity/recovery-codes';
import { createFactorSecrets, newEmailCode } from '../../../core/identity/factor-secrets';

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
  const key = (kid: string, fill: number) => ({ kid, key: Buffer.alloc(32, fill) });
  const secrets = createFactorSecrets([key('k7', 7)]);
  const alice = '8a4c9d0e-0000-4000-8000-000000000001';
  const bob = '8a4c9d0e-0000-4000-8000-000000000002';

  test('sealed secrets open only with the same key, purpose and owner', () => {
    const sealed = secrets.encrypt('totp-secret', alice, 'JBSWY3DPEHPK3PXP');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(sealed.startsWith('v2:k7:')).toBe(true);
    expect(secrets.decrypt('totp-secret', alice, sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => secrets.decrypt('email-code', alice, sealed)).toThrow();
    // Copied onto another identity's row, it does not open.
    expect(() => secrets.decrypt('totp-secret', bob, sealed)).toThrow();
    expect(() => createFactorSecrets([key('k7', 8)]).decrypt('totp-secret', alice, sealed)).toThrow();
    // Relabelled with another key id, it does not open either.
    const relabelled = sealed.replace('v2:k7:', 'v2:k8:');
    expect(() => createFactorSecrets([key('k8', 7)]).decrypt('totp-secret', alice, relabelled)).toThrow();
  });

  test('"the key can be rotated": old values keep opening, new ones use the new key, and a missing key is named', () => {
    const before = secrets.encrypt('totp-secret', alice, 'JBSWY3DPEHPK3PXP');
    const rotated = createFactorSecrets([key('k9', 9), key('k7', 7)]);
    expect(rotated.decrypt('totp-secret', alice, before)).toBe('JBSWY3DPEHPK3PXP');
    const after = rotated.encrypt('totp-secret', alice, 'JBSWY3DPEHPK3PXP');
    expect(after.startsWith('v2:k9:')).toBe(true);
    expect(() => secrets.decrypt('totp-secret', alice, after)).toThrow(/key "k9" is not configured/);
  });

  test('values sealed in the first format (purpose only, no key id) still open with any listed key', () => {
    const root = Buffer.alloc(32, 7);
    const subkey = Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), 'accounting/second-factor/totp-secret-encryption', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', subkey, iv);
    cipher.setAAD(Buffer.from('totp-secret'));
    const body = Buffer.concat([cipher.update('JBSWY3DPEHPK3PXP', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
    expect(createFactorSecrets([key('k9', 9), key('k7', 7)]).decrypt('totp-secret', alice, v1)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => createFactorSecrets([key('k9', 9)]).decrypt('totp-secret', alice, v1)).toThrow();
  });

  test('the code MAC is bound to its challenge, and email codes are eight digits', () => {
    expect(secrets.emailCodeMac('c1', '12345678')).not.toBe(secrets.emailCodeMac('c2', '12345678'));
    expect(secrets.emailCodeMac('c1', '12345678')).toBe(secrets.emailCodeMac('c1', '12345678'));
    for (let i = 0; i < 200; i++) expect(newEmailCode()).toMatch(/^[0-9]{8}$/);
  });
});
