import { createPasswordHasher, characterCount, utf8Length } from '../../../core/passwords';

const hasher = createPasswordHasher(10);

describe('password hashing', () => {
  test('a hash verifies its own password and no other', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$/);
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

  test('lengths are counted in UTF-8 bytes and in Unicode characters', () => {
    expect(utf8Length('ж')).toBe(2);
    expect(characterCount('😀😀')).toBe(2);
  });
});
