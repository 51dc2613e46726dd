import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { HashGate } from './hash-gate';

// Passwords are hashed with scrypt from node:crypto: memory-hard, and run on libuv's thread pool,
// so hashing never blocks the event loop (docs/decisions.md explains why not bcryptjs).
// Stored format: scrypt$<logN>$<r>$<p>$<salt b64>$<hash b64>, so the cost can rise without a migration.

export const PASSWORD_MAX_BYTES = 72;
const KEY_LENGTH = 32;
const R = 8;
const P = 1;

function scrypt(password: Buffer, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export function utf8Length(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** Unicode characters (code points), the unit of the minimum-length rules. */
export function characterCount(value: string): number {
  return [...value].length;
}

function normalise(password: string): Buffer {
  // NFC so that the same visible password typed on different keyboards hashes the same.
  return Buffer.from(password.normalize('NFC'), 'utf8');
}

/** `client` is the caller's address: the hash gate holds each address to its share of the hashing slots. */
export interface PasswordHasher {
  hash(password: string, client?: string | null): Promise<string>;
  verify(password: string, stored: string | null, client?: string | null): Promise<boolean>;
}

/** `gate` bounds how many hashes run at once (see hash-gate.ts); without one, every call hashes at once. */
export function createPasswordHasher(logN: number, gate?: HashGate): PasswordHasher {
  const gated = (client: string | null | undefined) => (password: Buffer, salt: Buffer, n: number, r: number, p: number) =>
    gate ? gate.run(() => scrypt(password, salt, n, r, p), client) : scrypt(password, salt, n, r, p);
  // Verifying against this keeps an unknown identity as slow as a wrong password (computed once, ungated).
  let dummy: Promise<string> | null = null;
  const hashWith = async (password: string, kdf: typeof scrypt): Promise<string> => {
    if (utf8Length(password) > PASSWORD_MAX_BYTES) throw new RangeError('password exceeds 72 UTF-8 bytes');
    const salt = randomBytes(16);
    const key = await kdf(normalise(password), salt, logN, R, P);
    return ['scrypt', logN, R, P, salt.toString('base64'), key.toString('base64')].join('$');
  };
  return {
    hash: (password, client) => hashWith(password, gated(client)),
    async verify(password, stored, client) {
      // Passwords over the limit never authenticate; they are rejected, never truncated.
      const tooLong = utf8Length(password) > PASSWORD_MAX_BYTES;
      const target = stored ?? (await (dummy ??= hashWith('dummy-password-for-timing', scrypt)));
      const [scheme, n, r, p, salt, expected] = target.split('$');
      if (scheme !== 'scrypt' || !salt || !expected) return false;
      const key = await gated(client)(normalise(tooLong ? 'x' : password), Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
      const ok = timingSafeEqual(key, Buffer.from(expected, 'base64'));
      return ok && !tooLong && stored !== null;
    },
  };
}
