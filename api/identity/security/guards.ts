import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../../db/connection';
import { findIdentityById, type IdentityRow } from '../../../db/repositories/identity/identities';
import { secondFactorVerifiedAt } from '../../../db/repositories/identity/sessions';
import { AppError } from '../../../core/shared/problems';
import type { AuditAction } from '../../../core/audit/audit-actions';
import type { Config } from '../../../runtime/config';
import type { Principal, RequestContext } from '../../http/context';
import { recordCallerEvent } from '../../../services/audit/caller-events';
import { channelOf, type FactorHolder, type SecondFactorService } from '../second-factors';
import { assertPasswordWithinBytes } from '../password-rules';

export interface SecurityGuardDeps {
  db: Sequelize;
  factors: SecondFactorService;
  settings: Config['secondFactors'];
}

export type SecurityGuards = ReturnType<typeof createSecurityGuards>;

/** What every change to the caller's own password and second factors goes through. */
export function createSecurityGuards(deps: SecurityGuardDeps) {
  const { db, factors, settings } = deps;

  async function identityOf(principal: Principal): Promise<IdentityRow> {
    const identity = await findIdentityById(db, principal.identityId);
    if (!identity) throw new AppError('not-found', 'The identity no longer exists');
    return identity;
  }

  /** Re-authenticates the caller: every security change needs the current password. */
  async function reauthenticate(principal: Principal, currentPassword: string): Promise<IdentityRow> {
    assertPasswordWithinBytes('currentPassword', currentPassword);
    const identity = await identityOf(principal);
    await factors.verifyCurrentPassword(identity, currentPassword);
    return identity;
  }

  /**
   * Step-up: with a second factor on, a change to the password or the factors needs that factor confirmed
   * in this session within the last `stepUpTtlSeconds` (POST /me/security/step-up). The password and a
   * stolen access token are not enough to mint new factors.
   */
  async function assertSteppedUp(principal: Principal, identity: FactorHolder): Promise<void> {
    if (!channelOf(identity)) return;
    const verifiedAt = await withTenant(db, principal.tenantId, (tx) => secondFactorVerifiedAt(tx, { tenantId: principal.tenantId }, principal.sessionId));
    if (verifiedAt && verifiedAt.getTime() > Date.now() - settings.stepUpTtlSeconds * 1000) return;
    throw new AppError('step-up-required', 'This change needs your second factor: confirm it with POST /api/v1/me/security/step-up, then retry');
  }

  /** Commits a security change and its audit event together, in the caller's workspace. */
  function audited<T>(
    principal: Principal,
    ctx: RequestContext,
    action: AuditAction,
    change: (tx: Tx) => Promise<T>,
    details: (result: T) => string = () => '',
  ): Promise<T> {
    return withTenant(db, principal.tenantId, async (tx) => {
      const result = await change(tx);
      await recordCallerEvent(tx, principal, ctx, { action, subjectType: 'IDENTITY', subjectId: principal.identityId, details: details(result) });
      return result;
    });
  }

  return { identityOf, reauthenticate, assertSteppedUp, audited };
}
