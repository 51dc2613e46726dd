import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify, type Options as Argon2Options } from '@node-rs/argon2';
import type { HashGate } from './hash-gate';

// Passwords are hashed with Argon2id (@node-rs/argon2, a native binding that ships its binary in the npm
// package and runs each hash on libuv's thread pool, off the event loop), at OWASP's recommended parameters
// by default (m = 19 MiB, t = 2, p = 1; docs/decisions.md has OWASP's table). Stored as the PHC string
// ($argon2id$v=19$m=…,t=…,p=…$salt$hash), so the cost can rise without a migration: a hash made with other
// parameters, or a scrypt hash from before (scrypt$<logN>$<r>$<p>$<salt b64>$<hash b64>), still verifies and
// is replaced at the owner's next successful login (needsRehash).

export const PASSWORD_MAX_BYTES = 72;
const SCRYPT_KEY_LENGTH = 32;

/** Argon2id's cost: memory in KiB and passes; one lane. */
export interface Argon2Cost {
  memoryKib: number;
  timeCost: number;
}

/** OWASP's first Argon2id configuration: 19 MiB, two passes, one lane. */
export const OWASP_ARGON2ID: Argon2Cost = { memoryKib: 19 * 1024, timeCost: 2 };

function scrypt(password: Buffer, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, SCRYPT_KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
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
  /** True when `stored` was made otherwise than `hash` makes one now (scrypt, or other Argon2id costs). */
  needsRehash(stored: string): boolean;
}

/** `gate` bounds how many hashes run at once (see hash-gate.ts); without one, every call hashes at once. */
export function createPasswordHasher(cost: Argon2Cost = OWASP_ARGON2ID, gate?: HashGate): PasswordHasher {
  const options: Argon2Options = { algorithm: 2 /* Argon2id */, memoryCost: cost.memoryKib, timeCost: cost.timeCost, parallelism: 1 };
  const current = `$argon2id$v=19$m=${cost.memoryKib},t=${cost.timeCost},p=1$`;
  const gated = <T>(work: () => Promise<T>, client: string | null | undefined): Promise<T> => (gate ? gate.run(work, client) : work());
  // Verifying against this keeps an unknown identity as slow as a wrong password (computed once, ungated).
  let dummy: Promise<string> | null = null;
  const hashNow = (password: string): Promise<string> => {
    if (utf8Length(password) > PASSWORD_MAX_BYTES) throw new RangeError('password exceeds 72 UTF-8 bytes');
    return argon2Hash(normalise(password), options);
  };
  /** The stored hash checked against `password`; false for a format this code does not know. */
  const check = async (password: Buffer, stored: string): Promise<boolean> => {
    if (stored.startsWith('$argon2id$')) return argon2Verify(stored, password).catch(() => false);
    const [scheme, n, r, p, salt, expected] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !expected) return false;
    const key = await scrypt(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
    const wanted = Buffer.from(expected, 'base64');
    return key.length === wanted.length && timingSafeEqual(key, wanted);
  };
  return {
    hash: async (password, client) => {
      if (utf8Length(password) > PASSWORD_MAX_BYTES) throw new RangeError('password exceeds 72 UTF-8 bytes');
      return gated(() => hashNow(password), client);
    },
    async verify(password, stored, client) {
      // Passwords over the limit never authenticate; they are rejected, never truncated.
      const tooLong = utf8Length(password) > PASSWORD_MAX_BYTES;
      const target = stored ?? (await (dummy ??= hashNow('dummy-password-for-timing')));
      const ok = await gated(() => check(normalise(tooLong ? 'x' : password), target), client);
      return ok && !tooLong && stored !== null;
    },
    needsRehash: (stored) => !stored.startsWith(current),
  };
}

/** A scrypt hash as this service stored passwords before Argon2id (tests and the benchmark make old hashes with it). */
export async function legacyScryptHash(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(normalise(password), salt, logN, 8, 1);
  return ['scrypt', logN, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
}
