import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt } from 'node:crypto';

// Second-factor secrets derive from one root key (SECOND_FACTOR_SECRET_KEY) through HKDF, one subkey
// per purpose, so a key used to encrypt never also authenticates.

export interface FactorSecrets {
  /** AES-256-GCM for TOTP secrets and pending email codes at rest. */
  encrypt(purpose: 'totp-secret' | 'email-code', plaintext: string): string;
  decrypt(purpose: 'totp-secret' | 'email-code', sealed: string): string;
  /** Keyed MAC of an email code, bound to its challenge: what the challenge workflow holds instead of the code. */
  emailCodeMac(challengeId: string, code: string): string;
}

function subkey(root: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `accounting/second-factor/${info}`, 32));
}

export function createFactorSecrets(root: Buffer): FactorSecrets {
  const keys = {
    'totp-secret': subkey(root, 'totp-secret-encryption'),
    'email-code': subkey(root, 'email-code-encryption'),
  };
  const macKey = subkey(root, 'email-code-mac');
  return {
    encrypt(purpose, plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys[purpose], iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
    },
    decrypt(purpose, sealed) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown sealed-secret format');
      const decipher = createDecipheriv('aes-256-gcm', keys[purpose], Buffer.from(iv, 'base64'));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
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
