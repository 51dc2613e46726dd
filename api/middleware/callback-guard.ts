import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { sha256 } from '../../core/identity/secrets';
import { AppError, UnauthenticatedError } from '../../core/shared/problems';
import { locals } from './request-context';

/**
 * For provider callbacks: only the callback host serves them (elsewhere they do not exist: 404), and only
 * with the shared token in X-Auth. Both sides are hashed first, so the comparison takes the same time
 * whatever the length or content of what was sent. Runs before body validation.
 */
export function callbackGuard(sharedToken: string) {
  const expected = sha256(sharedToken);
  return (req: Request, res: Response, next: NextFunction) => {
    if (locals(res).ctx.host.kind !== 'callbacks') throw new AppError('not-found', `No resource at ${req.method} ${req.path}`);
    const given = req.get('x-auth');
    const matches = given !== undefined && sharedToken.length > 0 && timingSafeEqual(sha256(given), expected);
    if (!matches) throw new UnauthenticatedError(given === undefined ? 'no X-Auth header' : 'X-Auth rejected', 'X-Auth');
    next();
  };
}
