import type { Sequelize } from 'sequelize';
import { recordLastLogin } from '../../db/repositories/organisation/users';
import { withTenant, writeInTenants } from '../../db/connection';
import { tenantIdBySlug } from '../../db/repositories/organisation/workspaces';
import { activeMembershipsOf, type ActiveMembership } from '../../db/repositories/organisation/principals';
import { findIdentityByEmail, rehashPassword } from '../../db/repositories/identity/identities';
import { auditEventStatement, recordAuditEvent } from '../../db/repositories/audit/events';
import { normaliseEmail } from '../../core/identity/email';
import { AppError } from '../../core/shared/problems';
import type { PasswordHasher } from '../../core/identity/passwords';
import type { RequestContext } from '../http/context';
import { ownMembershipRecord } from '../audit/caller-events';
import type { CredentialGuard, RequestLimits } from '../http/request-limits';
import type { Schemas } from '../http/operation-handler';
import { assertPasswordWithinBytes } from './password-rules';
import type { SessionService, TokenPair } from './sessions';
import { channelOf, factorOf, type FactorKind, type SecondFactorService } from './second-factors';
import type { SignInOutcome } from './sign-in';

export type LoginInput = Schemas['LoginRequest'];

export interface LoginServiceDeps {
  db: Sequelize;
  hasher: PasswordHasher;
  sessions: SessionService;
  factors: SecondFactorService;
  limits: RequestLimits;
  guard: CredentialGuard;
  baseDomain: string;
}

/** A session, or (with a second factor on and none sent) the factor's challenge. */
export type LoginOutcome = SignInOutcome;

/** Login: password, then the identity's second factor when it has one. */
export function createLogin(deps: LoginServiceDeps) {
  const { db, factors } = deps;

  /**
   * A failed login is recorded in the workspace it was aimed at (every workspace, on the central host): one
   * round trip for all of them, sent beside the failure count of the credential guard, which an unknown
   * email costs too, so the two refusals take as long.
   */
  async function recordFailure(memberships: ActiveMembership[], reason: string, ctx: RequestContext): Promise<void> {
    await writeInTenants(
      db,
      memberships.map((m) => ({
        tenantId: m.tenant_id,
        statements: [auditEventStatement({ tenantId: m.tenant_id }, ownMembershipRecord(m, ctx, 'auth.login.failed', reason)).statement],
      })),
    );
  }

  async function login(input: LoginInput, ctx: RequestContext): Promise<LoginOutcome> {
    // Exactly one factor, and the email factor needs both of its fields.
    const factor = factorOf(input, 'login-factors-invalid');
    const email = normaliseEmail(input.email);
    // Before any lookup or hash: every login request counts, the second steps too (each one checks the password).
    await deps.limits.consume('login', { ip: ctx.ipAddress, target: email });
    const attempt = await deps.guard.check({ email, ip: ctx.ipAddress });
    assertPasswordWithinBytes('password', input.password);
    let hostTenantId: string | null = null;
    if (ctx.host.kind === 'tenant') {
      hostTenantId = await tenantIdBySlug(db, ctx.host.slug);
      if (!hostTenantId) throw new AppError('not-found', 'No workspace answers at this host');
    }
    const identity = await findIdentityByEmail(db, email);
    // Unknown emails cost one hash too, so timing does not reveal which emails exist; a known identity's
    // memberships are read while the hash runs, so they add no time either.
    const [passwordOk, memberships] = await Promise.all([
      deps.hasher.verify(input.password, identity?.passwordHash ?? null, ctx.ipAddress),
      identity ? activeMembershipsOf(db, identity.id) : Promise.resolve([]),
    ]);
    const aimedAt = hostTenantId ? memberships.filter((m) => m.tenant_id === hostTenantId) : memberships;
    if (!passwordOk) {
      await Promise.all([attempt.fail(), recordFailure(aimedAt, 'wrong password', ctx)]);
      throw new AppError('invalid-credentials');
    }
    await attempt.succeed();
    if (!identity) throw new AppError('invalid-credentials');
    if (deps.hasher.needsRehash(identity.passwordHash)) await upgradeHash(identity.id, identity.passwordHash, input.password, ctx);

    if (!hostTenantId && memberships.length > 1) {
      throw new AppError('tenant-host-required', 'This identity belongs to several workspaces; log in on the workspace host', {
        workspaceHosts: memberships.map((m) => `${m.slug}.${deps.baseDomain}`),
      });
    }
    const chosen = aimedAt[0];
    if (!chosen) throw new AppError('invalid-credentials');

    const channel = channelOf(identity);
    if (!channel) {
      if (factor) throw new AppError('login-factors-invalid', 'This account has no second factor; send email and password only');
      return { kind: 'session', tokens: await openSession(identity.id, chosen, null, ctx) };
    }
    if (!factor) return { kind: 'challenge', challenge: (await factors.factorChallenge(identity, { tenantId: chosen.tenant_id, purpose: 'LOGIN' }, ctx))! };
    try {
      await factors.verifyFactor(identity, { tenantId: chosen.tenant_id, purpose: 'LOGIN' }, input, factor, 'invalid-second-factor');
    } catch (err) {
      if (err instanceof AppError && (err.type === 'invalid-second-factor' || err.type === 'too-many-attempts')) {
        await recordFailure([chosen], err.type === 'too-many-attempts' ? 'second-factor attempts limited' : 'second factor rejected', ctx);
      }
      throw err;
    }
    return { kind: 'session', tokens: await openSession(identity.id, chosen, factor, ctx) };
  }

  /**
   * A hash made otherwise than passwords are hashed now (scrypt from before Argon2id, or other Argon2id costs)
   * is replaced by one of the password just checked. A busy hash gate leaves it for a later login: the login
   * itself is not refused for it.
   */
  async function upgradeHash(identityId: string, previous: string, password: string, ctx: RequestContext): Promise<void> {
    let next: string;
    try {
      next = await deps.hasher.hash(password, ctx.ipAddress);
    } catch (err) {
      if (err instanceof AppError) return;
      throw err;
    }
    await rehashPassword(db, identityId, previous, next);
  }

  async function openSession(identityId: string, chosen: ActiveMembership, factor: FactorKind | null, ctx: RequestContext): Promise<TokenPair> {
    const { tenant_id: tenantId, membership_id: membershipId } = chosen;
    return withTenant(db, tenantId, async (tx) => {
      await recordLastLogin(tx, { tenantId }, identityId);
      await recordAuditEvent(tx, { tenantId }, {
        action: 'auth.login.succeeded',
        actorMembershipId: membershipId,
        systemActor: false,
        correlationId: ctx.correlationId,
        subjectType: 'MEMBERSHIP',
        subjectId: membershipId,
        ipAddress: ctx.ipAddress,
        details: factor ? `second factor: ${factor}` : 'password only',
      });
      return deps.sessions.open(tx, { tenantId, membershipId, identityId }, ctx);
    });
  }

  return { login };
}
