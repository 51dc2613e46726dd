import { randomBytes } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';
import { isCommonPassword, loadCommonPasswords } from '../../../core/identity/common-passwords';
import { assertNewPassword } from '../../../api/identity/password-rules';
import { AppError } from '../../../core/shared/problems';
import { PASSWORD } from '../../helpers/clients';

const reversed = (value: string) => [...value].reverse().join('');

describe('the common-password list (NIST SP 800-63B blocklist)', () => {
  test('is the common-password dictionary the package ships: tens of thousands of lower-case entries, some long enough for the length rules', () => {
    const list = dictionary['passwords-common'];
    expect(loadCommonPasswords()).toBe(new Set(list).size);
    expect(list.length).toBeGreaterThan(40_000);
    expect(list.every((entry) => entry === entry.toLowerCase())).toBe(true);
    expect(list.filter((entry) => [...entry].length >= 12).length).toBeGreaterThan(200);
    expect(list.filter((entry) => [...entry].length >= 15).length).toBeGreaterThan(30);
  });

  test.each([
    ['12 characters (password change)', '1qaz2wsx3edc'],
    ['12 characters', 'qwerty123456'],
    ['13 characters', 'administrator'],
    ['15 characters (registration)', 'qwertyuiop12345'],
    ['16 characters', 'passwordpassword'],
    ['20 characters', 'q1w2e3r4t5y6u7i8o9p0'],
  ])('an entry of %s is refused as written, in upper case, capitalised and read backwards', (_name, entry) => {
    expect(dictionary['passwords-common']).toContain(entry);
    for (const variant of [entry, entry.toUpperCase(), entry[0]!.toUpperCase() + entry.slice(1), reversed(entry), reversed(entry).toUpperCase()]) {
      expect(isCommonPassword(variant)).toBe(true);
    }
  });

  test('only the whole password counts: an entry inside a longer passphrase, or with something added, is fine', () => {
    expect(isCommonPassword('administrator of the cellar')).toBe(false);
    expect(isCommonPassword('qwertyuiop12345!')).toBe(false);
    expect(isCommonPassword(' passwordpassword')).toBe(false);
  });

  test('strong passphrases, random strings and the fixture password are not on it', () => {
    for (const password of [PASSWORD, 'plinth marmot eleven quietly', 'пароль-пароль-1', randomBytes(54).toString('base64')]) {
      expect(isCommonPassword(password)).toBe(false);
    }
  });

  test('a check costs microseconds: 5,000 random 72-character passwords in well under a second', () => {
    const passwords = Array.from({ length: 5000 }, () => randomBytes(54).toString('base64'));
    const started = performance.now();
    for (const password of passwords) isCommonPassword(password);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('assertNewPassword: every new password passes through the list', () => {
  const refusal = (run: () => void): AppError => {
    try {
      run();
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  test('a common password long enough for the rule is 400 password-too-common naming the field, without the password', () => {
    const error = refusal(() => assertNewPassword('Administrator', 'Administrator', 12, 'newPassword'));
    expect(error).toMatchObject({ type: 'password-too-common', status: 400 });
    expect(error.extensions).toEqual({ errors: [{ path: '/body/newPassword', message: 'is a commonly used password' }] });
    expect(JSON.stringify(error.extensions) + error.detail).not.toContain('Administrator');
  });

  test('the length and confirmation rules come first: a short or mistyped common password is a validation problem', () => {
    expect(refusal(() => assertNewPassword('administrator', 'administrator', 15)).type).toBe('validation');
    expect(refusal(() => assertNewPassword('qwertyuiop12345', 'qwertyuiop1234', 15)).type).toBe('validation');
  });

  test('a passphrase that is not on the list passes', () => {
    expect(() => assertNewPassword(PASSWORD, PASSWORD, 15)).not.toThrow();
  });
});
