import type { Sequelize } from 'sequelize';
import { readInTenant, withTenant } from '../../db/connection';
import { AppError } from '../../core/shared/problems';
import { listLiveSessions, revokeOwnSession } from '../../db/repositories/identity/sessions';
import { firstCompanyStatement, workspaceCompanyOf } from '../../db/repositories/organisation/companies';
import { permissionsOf } from '../../db/repositories/organisation/principals';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../../services/audit/caller-events';

/** The caller: who they are in this workspace, what they may do, and their sessions. */
export function createMe({ db }: { db: Sequelize }) {
  async function getCurrentUser(principal: Principal): Promise<Schemas['CurrentUser']> {
    const [rows] = await readInTenant(db, principal.tenantId, [firstCompanyStatement({ tenantId: principal.tenantId })]);
    const company = workspaceCompanyOf(rows!);
    if (!company) throw new AppError('not-found', 'The workspace has no company');
    return {
      userId: principal.userId,
      globalUserId: principal.identityId,
      membershipId: principal.membershipId,
      tenantId: principal.tenantId,
      roles: principal.roles,
      company,
    };
  }

  async function getMyAccess(principal: Principal): Promise<Schemas['AccessView']> {
    const permissions = await withTenant(db, principal.tenantId, (tx) =>
      permissionsOf(tx, { tenantId: principal.tenantId, membershipId: principal.membershipId }),
    );
    return { membershipId: principal.membershipId, roles: principal.roles, permissions };
  }

  async function listMySessions(principal: Principal, page: number, size: number): Promise<Schemas['SessionPage']> {
    const rows = await withTenant(db, principal.tenantId, (tx) =>
      listLiveSessions(tx, { tenantId: principal.tenantId, membershipId: principal.membershipId }, { limit: size + 1, offset: page * size }),
    );
    return {
      items: rows.slice(0, size).map((s) => ({
        id: s.id,
        createdAt: s.createdAt.toISOString(),
        expiresAt: s.expiresAt.toISOString(),
        lastActivityAt: s.lastActivityAt.toISOString(),
        current: s.id === principal.sessionId,
        ipAddress: s.ipAddress,
        userAgent: s.userAgent,
      })),
      page,
      size,
      hasMore: rows.length > size,
    };
  }

  async function revokeMySession(principal: Principal, sessionId: string, ctx: RequestContext): Promise<void> {
    await withTenant(db, principal.tenantId, async (tx) => {
      const ended = await revokeOwnSession(tx, { tenantId: principal.tenantId, membershipId: principal.membershipId }, sessionId);
      if (!ended) throw new AppError('not-found', 'No live session of yours has this id');
      await recordCallerEvent(tx, principal, ctx, {
        action: 'auth.session.revoked',
        subjectType: 'SESSION',
        subjectId: sessionId,
      });
    });
  }

  return { getCurrentUser, getMyAccess, listMySessions, revokeMySession };
}
