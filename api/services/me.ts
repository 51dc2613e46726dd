import { QueryTypes, type Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import { AppError } from '../../core/problems';
import { listLiveSessions, revokeOwnSession } from '../../db/repositories/sessions';
import type { Principal, RequestContext } from '../context';
import { recordCallerEvent } from './caller-audit';

export interface CompanyWorkspace {
  id: string;
  name: string | null;
  taxId: string | null;
  onboardingComplete: boolean;
  slug: string;
}

export interface CurrentUser {
  userId: string;
  globalUserId: string;
  membershipId: string;
  tenantId: string;
  roles: string[];
  company: CompanyWorkspace;
}

export function createMeService({ db }: { db: Sequelize }) {
  async function currentUser(principal: Principal): Promise<CurrentUser> {
    const rows = await withTenant(db, principal.tenantId, (tx) =>
      db.query<{ id: string; name: string | null; tax_id: string | null; onboarding_complete: boolean; slug: string }>(
        `SELECT le.id, le.name, le.tax_id, le.onboarding_complete, t.slug
           FROM legal_entities le JOIN tenants t ON t.id = le.tenant_id
          WHERE le.tenant_id = :tenantId
          ORDER BY le.created_at, le.id LIMIT 1`,
        { replacements: { tenantId: principal.tenantId }, type: QueryTypes.SELECT, transaction: tx },
      ),
    );
    const company = rows[0];
    if (!company) throw new AppError('not-found', 'The workspace has no company');
    return {
      userId: principal.userId,
      globalUserId: principal.identityId,
      membershipId: principal.membershipId,
      tenantId: principal.tenantId,
      roles: principal.roles,
      company: {
        id: company.id,
        name: company.name,
        taxId: company.tax_id,
        onboardingComplete: company.onboarding_complete,
        slug: company.slug,
      },
    };
  }

  async function access(principal: Principal): Promise<{ membershipId: string; roles: string[]; permissions: string[] }> {
    const rows = await withTenant(db, principal.tenantId, (tx) =>
      db.query<{ permission: string }>(
        `SELECT DISTINCT rp.permission
           FROM membership_roles mr
           JOIN role_permissions rp ON rp.tenant_id = mr.tenant_id AND rp.role_id = mr.role_id
          WHERE mr.tenant_id = :tenantId AND mr.membership_id = :membershipId
          ORDER BY rp.permission`,
        { replacements: { tenantId: principal.tenantId, membershipId: principal.membershipId }, type: QueryTypes.SELECT, transaction: tx },
      ),
    );
    return { membershipId: principal.membershipId, roles: principal.roles, permissions: rows.map((r) => r.permission) };
  }

  async function sessions(principal: Principal, page: number, size: number) {
    const rows = await withTenant(db, principal.tenantId, (tx) =>
      listLiveSessions(db, tx, { tenantId: principal.tenantId, membershipId: principal.membershipId, limit: size + 1, offset: page * size }),
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

  async function revokeSession(principal: Principal, sessionId: string, ctx: RequestContext): Promise<void> {
    await withTenant(db, principal.tenantId, async (tx) => {
      const ended = await revokeOwnSession(db, tx, { tenantId: principal.tenantId, membershipId: principal.membershipId, sessionId });
      if (!ended) throw new AppError('not-found', 'No live session of yours has this id');
      await recordCallerEvent(tx, principal, ctx, {
        action: 'auth.session.revoked',
        subjectType: 'SESSION',
        subjectId: sessionId,
      });
    });
  }

  return { currentUser, access, sessions, revokeSession };
}
