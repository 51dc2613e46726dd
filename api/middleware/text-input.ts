import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../../core/shared/problems';
import { SpooledFile } from '../http/file-body';

// PostgreSQL text cannot hold U+0000, and what the database driver makes of it is not what was sent. So
// no text that reaches an operation may contain it: every string of the JSON body (member names too, at
// any depth), every query parameter and every path parameter. One check for every operation, not one
// per field; it names each offending place the way the validator does (/body/lines/0/memo).

const NUL = '\u0000';
const MESSAGE = 'must not contain the NUL character (U+0000)';
const MEMBER_MESSAGE = 'has a member name that contains the NUL character (U+0000)';
/** Enough to show where; a body full of them need not be listed in full. */
const MAX_ERRORS = 20;

/** JSON Pointer escaping of one reference token (RFC 6901). */
function token(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Every place in `root` that holds U+0000, as {path, message}. Iterative: a body may be nested far deeper
 * than the call stack goes (the parser accepts it; the validator refuses it afterwards).
 */
function nulPlaces(root: unknown, rootPath: string): Array<{ path: string; message: string }> {
  const found: Array<{ path: string; message: string }> = [];
  const pending: Array<[unknown, string]> = [[root, rootPath]];
  while (pending.length > 0 && found.length < MAX_ERRORS) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) found.push({ path, message: MESSAGE });
    } else if (Buffer.isBuffer(value) || value instanceof SpooledFile) {
      // A file sent as it is (a bank statement, spooled to disk): its bytes are its parser's to read, never text stored as sent.
      continue;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}/${i}`]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      if (entries.some(([key]) => key.includes(NUL))) found.push({ path, message: MEMBER_MESSAGE });
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        if (!key.includes(NUL)) pending.push([member, `${path}/${token(key)}`]);
      }
    }
  }
  return found;
}

/** Runs after authentication and the body parser, before validation: 400 for any text with U+0000. */
export function refuseNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  const errors = [
    ...nulPlaces(req.params ?? {}, '/path'),
    ...nulPlaces(req.query ?? {}, '/query'),
    ...(req.body === undefined ? [] : nulPlaces(req.body, '/body')),
  ].slice(0, MAX_ERRORS);
  if (errors.length > 0) {
    throw new AppError('validation', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
  }
  next();
}
