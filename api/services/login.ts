import { QueryTypes, type Sequelize } from 'sequelize';
import { Identity, User } from '../../db/models';
import { withTenant } from '../../db/connection';
import { tenantIdBySlug } from '../../db/repositories/workspaces';
import { recordAuditEvent } from '../../db/repositories/audit';
import { AppError } from '../../core/problems';
import type { PasswordHasher } from '../../core/passwords';
import type { RequestContext } from '../context';
import { assertPasswordWithinBytes } from './password-rules';
import { normaliseEmail } from './registration';
import type { SessionService, TokenPair } from './sessions';

export interface LoginInput {
  email: string;
  password: string;
  challengeId?: string;
  code?: string;
  totpCode?: string;
  recoveryCode?: string;
}

export interface LoginServiceDeps {
  db: Sequelize;
  hasher: PasswordHasher;
  sessions: SessionService;
  baseDomain: string;
}

/** interface.md §4.2 rule 2: exactly one factor, and the email factor needs both of its fields. */
export function assertFactorShape(input: LoginInput): void {
  const emailFactor = input.challengeId !== undefined || input.code !== undefined;
  const factors = [emailFactor, input.totpCode !== undefined, input.recoveryCode !== undefined].filter(Boolean).length;
  if (factors > 1) {
    throw new AppError('login-factors-invalid', 'Send exactly one of: challengeId with code, totpCode, recoveryCode');
  }
  if (emailFactor && (input.challengeId === undefined || input.code === undefined)) {
    throw new AppError('login-factors-invalid', 'challengeId and code must be sent together');
  }
}

interface ActiveMembership {
  tenant_id: string;
  slug: string;
  membership_id: string;
}

export function createLoginService(deps: LoginServiceDeps) {
  const { db } = deps;

  async function activeMemberships(identityId: string): Promise<ActiveMembership[]> {
    return db.query<ActiveMembership>('SELECT * FROM app_identity_memberships(:identityId)', {
      replacements: { identityId },
      type: QueryTypes.SELECT,
    });
  }

  async function login(input: LoginInput, ctx: RequestContext): Promise<TokenPair> {
    assertFactorShape(input);
    assertPasswordWithinBytes('password', input.password);
    let hostTenantId: string | null = null;
    if (ctx.host.kind === 'tenant') {
      hostTenantId = await tenantIdBySlug(db, ctx.host.slug);
      if (!hostTenantId) throw new AppError('not-found', 'No workspace answers at this host');
    }
    const identity = await Identity.findOne({ where: { email: normaliseEmail(input.email) } });
    // Unknown emails cost one hash too, so timing does not reveal which emails exist.
    const passwordOk = await deps.hasher.verify(input.password, identity?.passwordHash ?? null);
    if (!identity || !passwordOk) throw new AppError('invalid-credentials');

    const memberships = await activeMemberships(identity.id);
    let chosen: ActiveMembership | undefined;
    if (hostTenantId) {
      chosen = memberships.find((m) => m.tenant_id === hostTenantId);
    } else if (memberships.length > 1) {
      throw new AppError('tenant-host-required', 'This identity belongs to several workspaces; log in on the workspace host', {
        workspaceHosts: memberships.map((m) => `${m.slug}.${deps.baseDomain}`),
      });
    } else {
      chosen = memberships[0];
    }
    if (!chosen) throw new AppError('invalid-credentials');
    const { tenant_id: tenantId, membership_id: membershipId } = chosen;

    return withTenant(db, tenantId, async (tx) => {
      await User.update({ lastLoginAt: new Date() }, { where: { tenantId, identityId: identity.id }, transaction: tx });
      await recordAuditEvent(tx, {
        tenantId,
        action: 'auth.login.succeeded',
        actorMembershipId: membershipId,
        systemActor: false,
        correlationId: ctx.correlationId,
        subjectType: 'MEMBERSHIP',
        subjectId: membershipId,
        ipAddress: ctx.ipAddress,
      });
      return deps.sessions.open(tx, { tenantId, membershipId, identityId: identity.id }, ctx);
    });
  }

  return { login };
}
