import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { base32Encode } from './totp';

// Recovery codes: 80 random bits as four groups of four from a-z and 2-7 (lower-case base32).
// Stored with a salted scrypt hash (not bare SHA-256), checked case-insensitively, hyphens optional.

export const RECOVERY_CODE_COUNT = 10;
const R = 8;
const P = 1;

export function newRecoveryCode(): string {
  const raw = base32Encode(randomBytes(10)).toLowerCase();
  return raw.match(/.{4}/g)!.join('-');
}

/** The canonical form (16 characters, lower case, no hyphens), or null when it cannot be a recovery code. */
export function canonicalRecoveryCode(input: string): string | null {
  const lower = input.toLowerCase();
  if (!/^[a-z2-7]{4}(-?[a-z2-7]{4}){3}$/.test(lower)) return null;
  return lower.replace(/-/g, '');
}

function scrypt(value: string, salt: Buffer, logN: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(value, salt, 32, { N: 2 ** logN, r: R, p: P, maxmem: 256 * 2 ** logN * R + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashRecoveryCode(code: string, logN: number): Promise<string> {
  const canonical = canonicalRecoveryCode(code);
  if (!canonical) throw new RangeError('not a recovery code');
  const salt = randomBytes(16);
  const key = await scrypt(canonical, salt, logN);
  return ['scrypt', logN, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function recoveryCodeMatches(canonical: string, stored: string): Promise<boolean> {
  const [scheme, logN, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const key = await scrypt(canonical, Buffer.from(salt, 'base64'), Number(logN));
  return timingSafeEqual(key, Buffer.from(expected, 'base64'));
}
