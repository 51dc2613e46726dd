import type { NextFunction, Request, Response } from 'express';
import type { Sequelize } from 'sequelize';
import type { AccessTokenIssuer } from '../../core/identity/access-tokens';
import type { OperationInfo } from '../../contracts/operations';
import { AppError, TenantHostMismatchError, UnauthenticatedError } from '../../core/shared/problems';
import { loadPrincipal } from '../../db/repositories/organisation/principals';
import { locals } from './request-context';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/**
 * For one bearer operation: verify the token, load the principal with its current permissions, check the
 * tenant host and the operation's permission. Runs before body validation, so an anonymous caller learns
 * nothing about a body's shape.
 */
export function authenticate(deps: { db: Sequelize; tokens: AccessTokenIssuer }) {
  return (operation: OperationInfo) => {
    const permission = operation.permission;
    if (!operation.requiresBearer || !permission) throw new Error(`${operation.operationId} is not a bearer operation`);
    return async (req: Request, res: Response, next: NextFunction) => {
      const l = locals(res);
      const match = BEARER.exec(req.get('authorization') ?? '');
      if (!match) throw new UnauthenticatedError('no bearer token');
      const claims = deps.tokens.verify(match[1]!);
      if (!claims) throw new UnauthenticatedError('token rejected');
      const principal = await loadPrincipal(deps.db, claims, permission);
      if (!principal) throw new UnauthenticatedError('session or membership no longer active');
      if (l.ctx.host.kind === 'tenant' && l.ctx.host.slug !== principal.slug) throw new TenantHostMismatchError();
      if (l.ctx.host.kind === 'callbacks') throw new TenantHostMismatchError();
      l.principal = {
        tenantId: claims.tenantId,
        membershipId: principal.membershipId,
        userId: principal.userId,
        identityId: principal.identityId,
        sessionId: claims.sessionId,
        roles: principal.roles,
      };
      if (!principal.permitted) {
        throw new AppError('permission-denied', `This operation needs the permission ${permission}`, { permission });
      }
      next();
    };
  };
}
