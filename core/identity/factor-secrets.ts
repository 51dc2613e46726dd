import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt } from 'node:crypto';

// Second-factor secrets derive from root keys (SECOND_FACTOR_SECRET_KEYS) through HKDF, one subkey per
// purpose, so a key used to encrypt never also authenticates. The first root key seals; every listed key
// opens what it sealed, so a key can be rotated without a migration and without locking anyone out.
//
// Sealed format: v2:<key id>:<iv>:<tag>:<ciphertext>, AES-256-GCM with additional data binding the
// ciphertext to its purpose, its owner (the identity) and the key id: a sealed value copied to another
// identity's row, or relabelled with another key id, does not open. v1 values (purpose-only additional
// data, no key id) still open with any listed key.

export type SealedPurpose = 'totp-secret' | 'email-code' | 'webhook-secret';

export interface FactorKey {
  kid: string;
  key: Buffer;
}

export interface FactorSecrets {
  /** AES-256-GCM for TOTP secrets and pending email codes at rest, bound to the identity that owns them. */
  encrypt(purpose: SealedPurpose, ownerId: string, plaintext: string): string;
  decrypt(purpose: SealedPurpose, ownerId: string, sealed: string): string;
  /** Keyed MAC of an email code, bound to its challenge: what the challenge workflow holds instead of the code. */
  emailCodeMac(challengeId: string, code: string): string;
}

function subkey(root: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `accounting/second-factor/${info}`, 32));
}

const INFO: Record<SealedPurpose, string> = {
  'totp-secret': 'totp-secret-encryption',
  'email-code': 'email-code-encryption',
  'webhook-secret': 'webhook-secret-encryption',
};

export function createFactorSecrets(keys: FactorKey[]): FactorSecrets {
  const [current] = keys;
  if (!current) throw new Error('at least one second-factor key is needed');
  const byKid = new Map(
    keys.map((k) => [k.kid, Object.fromEntries(Object.entries(INFO).map(([purpose, info]) => [purpose, subkey(k.key, info)])) as Record<SealedPurpose, Buffer>]),
  );
  const macKey = subkey(current.key, 'email-code-mac');
  const aad = (purpose: SealedPurpose, ownerId: string, kid: string) => Buffer.from(`v2|${purpose}|${ownerId}|${kid}`);

  function open(key: Buffer, additional: Buffer, iv: string, tag: string, body: string): string {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(additional);
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  return {
    encrypt(purpose, ownerId, plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', byKid.get(current.kid)![purpose], iv);
      cipher.setAAD(aad(purpose, ownerId, current.kid));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v2', current.kid, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
    },
    decrypt(purpose, ownerId, sealed) {
      const parts = sealed.split(':');
      if (parts[0] === 'v2' && parts.length === 5) {
        const [, kid, iv, tag, body] = parts as [string, string, string, string, string];
        const keysOfKid = byKid.get(kid);
        if (!keysOfKid) throw new Error(`second-factor key "${kid}" is not configured (SECOND_FACTOR_SECRET_KEYS)`);
        return open(keysOfKid[purpose], aad(purpose, ownerId, kid), iv, tag, body);
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        const [, iv, tag, body] = parts as [string, string, string, string];
        for (const keysOfKid of byKid.values()) {
          try {
            return open(keysOfKid[purpose], Buffer.from(purpose), iv, tag, body);
          } catch {
            // another listed key may have sealed it
          }
        }
        throw new Error('no configured second-factor key opens this v1 value');
      }
      throw new Error('unknown sealed-secret format');
    },
    emailCodeMac(challengeId, code) {
      return createHmac('sha256', macKey).update(`${challengeId}:${code}`).digest('hex');
    },
  };
}

/** An eight-digit email code from the CSPRNG, leading zeros kept. */
export function newEmailCode(): string {
  return randomInt(0, 100_000_000).toString().padStart(8, '0');
}
