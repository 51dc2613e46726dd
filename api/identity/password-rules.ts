import { AppError } from '../../core/shared/problems';
import { isCommonPassword } from '../../core/identity/common-passwords';
import { characterCount, PASSWORD_MAX_BYTES, utf8Length } from '../../core/identity/passwords';

// Rules the schema cannot state: bytes, Unicode characters, equality of two fields, and (for every new
// password) not being a common one.

export function assertPasswordWithinBytes(field: string, value: string): void {
  if (utf8Length(value) > PASSWORD_MAX_BYTES) {
    throw new AppError('validation', `${field} must be at most ${PASSWORD_MAX_BYTES} UTF-8 bytes`, {
      errors: [{ path: `/body/${field}`, message: `must be at most ${PASSWORD_MAX_BYTES} UTF-8 bytes` }],
    });
  }
}

export function assertNewPassword(password: string, confirmation: string, minCharacters: number, field = 'password'): void {
  assertPasswordWithinBytes(field, password);
  assertPasswordWithinBytes('confirmPassword', confirmation);
  if (characterCount(password) < minCharacters) {
    throw new AppError('validation', `${field} must be at least ${minCharacters} characters`, {
      errors: [{ path: `/body/${field}`, message: `must be at least ${minCharacters} characters` }],
    });
  }
  if (password !== confirmation) {
    throw new AppError('validation', `confirmPassword must equal ${field}`, {
      errors: [{ path: '/body/confirmPassword', message: `must equal ${field}` }],
    });
  }
  if (isCommonPassword(password)) {
    throw new AppError('password-too-common', `${field} is on a list of commonly used or breached passwords; choose another (several unrelated words make a good one)`, {
      errors: [{ path: `/body/${field}`, message: 'is a commonly used password' }],
    });
  }
}
