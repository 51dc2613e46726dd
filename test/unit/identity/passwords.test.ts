import { OWASP_ARGON2ID, createPasswordHasher, characterCount, legacyScryptHash, utf8Length } from '../../../core/identity/passwords';

const hasher = createPasswordHasher({ memoryKib: 4096, timeCost: 1 });

describe('password hashing', () => {
  test('a hash verifies its own password and no other', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=4096,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(hasher.needsRehash(stored)).toBe(false);
    await expect(hasher.verify('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horse battery stapl', stored)).resolves.toBe(false);
  });

  test('two hashes of one password differ (salted)', async () => {
    expect(await hasher.hash('same password here')).not.toBe(await hasher.hash('same password here'));
  });

  test('"reject (never truncate) over 72 UTF-8 bytes": hashing refuses, and verifying is false even with a matching prefix', async () => {
    const base = 'a'.repeat(72);
    const stored = await hasher.hash(base);
    await expect(hasher.hash(`${base}b`)).rejects.toThrow(RangeError);
    await expect(hasher.verify(`${base}b`, stored)).resolves.toBe(false);
  });

  test('an unknown identity (no stored hash) never verifies, but still costs a hash', async () => {
    await expect(hasher.verify('anything at all', null)).resolves.toBe(false);
  });

  test('NFC and NFD spellings of one password are the same password', async () => {
    const stored = await hasher.hash('caf\u00e9-passphrase-long');
    await expect(hasher.verify('cafe\u0301-passphrase-long', stored)).resolves.toBe(true);
  });

  test('a scrypt hash stored before Argon2id still verifies its password and no other, and asks to be rehashed', async () => {
    const legacy = await legacyScryptHash('an older password of mine', 10);
    expect(legacy).toMatch(/^scrypt\$10\$8\$1\$/);
    await expect(hasher.verify('an older password of mine', legacy)).resolves.toBe(true);
    await expect(hasher.verify('an older password of min', legacy)).resolves.toBe(false);
    expect(hasher.needsRehash(legacy)).toBe(true);
  });

  test('a hash made at other Argon2id costs verifies, and asks to be rehashed at the current ones', async () => {
    const owasp = createPasswordHasher(OWASP_ARGON2ID);
    const stored = await owasp.hash('correct horse battery staple');
    expect(stored.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    await expect(hasher.verify('correct horse battery staple', stored)).resolves.toBe(true);
    expect(hasher.needsRehash(stored)).toBe(true);
    expect(owasp.needsRehash(stored)).toBe(false);
  });

  test('a stored value of an unknown scheme or a damaged hash never verifies', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    for (const broken of ['', 'bcrypt$2b$10$abc', stored.slice(0, -4), stored.replace('$argon2id$', '$argon2i$'), 'scrypt$10$8$1$$']) {
      await expect(hasher.verify('correct horse battery staple', broken)).resolves.toBe(false);
    }
  });

  test('lengths are counted in UTF-8 bytes and in Unicode characters', () => {
    expect(utf8Length('ж')).toBe(2);
    expect(characterCount('😀😀')).toBe(2);
  });
});
