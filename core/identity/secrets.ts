import { createHash, randomBytes } from 'node:crypto';

/** 32 CSPRNG bytes as base64url: 43 characters, the shape of every magic link and one-time token. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** One-time tokens are stored only as SHA-256; they carry 256 bits, so a fast hash is enough. */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
