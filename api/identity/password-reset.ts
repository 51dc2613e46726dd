import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { setTenant } from '../../db/connection';
import { activeMembershipsOf } from '../../db/repositories/organisation/principals';
import { findIdentityByEmail, updatePasswordHash } from '../../db/repositories/identity/identities';
import { consumeMagicLink, findMagicLinkByToken } from '../../db/repositories/identity/magic-links';
import { revokeIdentitySessions } from '../../db/repositories/identity/sessions';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { sha256 } from '../../core/identity/secrets';
import { normaliseEmail } from '../../core/identity/email';
import { AppError } from '../../core/shared/problems';
import type { PasswordHasher } from '../../core/identity/passwords';
import { REQUEST_PASSWORD_RESET_WORKFLOW, type RequestPasswordResetWorkflow } from '../../contracts/identity';
import { requestPasswordResetWorkflowId } from '../../contracts/workflow-ids';
import type { WorkflowClient } from '../workflow-client';
import type { CredentialGuard, RequestLimits } from '../http/request-limits';
import type { RequestContext } from '../http/context';
import { ownMembershipRecord } from '../audit/caller-events';
import type { Schemas } from '../http/operation-handler';
import { assertNewPassword } from './password-rules';
import { channelOf, factorOf, type EmailChallengeResponse, type SecondFactorService } from './second-factors';

/** The rule of a password change: a reset sets a password the way a change does. */
const NEW_PASSWORD_MIN_CHARACTERS = 12;

export interface PasswordResetDeps {
  db: Sequelize;
  workflows: WorkflowClient;
  hasher: PasswordHasher;
  factors: SecondFactorService;
  limits: RequestLimits;
  guard: CredentialGuard;
}

export type PasswordResetOutcome = { kind: 'reset' } | { kind: 'challenge'; challenge: EmailChallengeResponse };

/** Password reset by an emailed magic link (workflow password-reset-<magicLinkId>), then the second factor. */
export function createPasswordReset(deps: PasswordResetDeps) {
  const { db } = deps;

  /** Starts the link's workflow and returns at once: the answer never depends on the email. */
  async function requestPasswordReset(email: string, ctx: RequestContext): Promise<void> {
    const address = normaliseEmail(email);
    await deps.limits.consume('passwordReset', { ip: ctx.ipAddress, target: address });
    const magicLinkId = randomUUID();
    const startId = await db.transaction((tx) =>
      deps.workflows.enqueue<RequestPasswordResetWorkflow>(tx, REQUEST_PASSWORD_RESET_WORKFLOW, {
        workflowId: requestPasswordResetWorkflowId(magicLinkId),
        args: [{ magicLinkId, email: address, correlationId: ctx.correlationId }],
        tenantId: null,
        idReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
    await deps.workflows.dispatch({ id: startId });
  }

  /**
   * Sets a new password from a mailed link. With a second factor on, the link alone is not enough: the
   * first request answers the factor's challenge, and a repeat carrying the factor resets. The link is
   * consumed with the new password, and every session of the identity ends, in every workspace.
   */
  async function resetPassword(input: Schemas['PasswordReset'], ctx: RequestContext): Promise<PasswordResetOutcome> {
    const email = normaliseEmail(input.email);
    const attempt = await deps.guard.check({ email, ip: ctx.ipAddress });
    const factor = factorOf(input, 'login-factors-invalid');
    assertNewPassword(input.newPassword, input.confirmPassword, NEW_PASSWORD_MIN_CHARACTERS, 'newPassword');
    const magicLink = await findMagicLinkByToken(db, { tokenHash: sha256(input.token), purpose: 'PASSWORD_RESET' });
    // The token itself proves the mail arrived; the mailed mark is written just after the send, so asking
    // for it here would refuse a link followed at once.
    const usable =
      magicLink &&
      magicLink.email === email &&
      !magicLink.consumedAt &&
      !magicLink.supersededAt &&
      magicLink.expiresAt.getTime() > Date.now();
    const identity = usable ? await findIdentityByEmail(db, email) : null;
    if (!magicLink || !identity) {
      await attempt.fail();
      throw new AppError('password-reset-invalid');
    }

    const channel = channelOf(identity);
    const challengeOf = { tenantId: null, purpose: 'PASSWORD_RESET' as const };
    if (!channel && factor) throw new AppError('login-factors-invalid', 'This account has no second factor; send the link and the new password only');
    if (channel && !factor) return { kind: 'challenge', challenge: (await deps.factors.factorChallenge(identity, challengeOf, ctx))! };
    if (channel && factor) await deps.factors.verifyFactor(identity, challengeOf, input, factor, 'invalid-second-factor');

    const passwordHash = await deps.hasher.hash(input.newPassword, ctx.ipAddress);
    await db.transaction(async (tx) => {
      // Single use, also against a concurrent reset with the same link: the first to consume it wins.
      if (!(await consumeMagicLink(tx, magicLink.id))) throw new AppError('password-reset-invalid');
      await updatePasswordHash(tx, identity.id, passwordHash);
      const ended = await revokeIdentitySessions(tx, identity.id, { keepSessionId: null, reason: 'PASSWORD_RESET' });
      // Audited in each of the person's workspaces, in the same commit.
      for (const m of await activeMembershipsOf(tx, identity.id)) {
        await setTenant(tx, m.tenant_id);
        const sessionsEnded = ended.filter((s) => s.tenant_id === m.tenant_id).length;
        await recordAuditEvent(
          tx,
          { tenantId: m.tenant_id },
          ownMembershipRecord(m, ctx, 'auth.password.reset', `by an emailed link${factor ? ` and ${factor}` : ''}; ${sessionsEnded} session(s) ended`),
        );
      }
    });
    await attempt.succeed();
    return { kind: 'reset' };
  }

  return { requestPasswordReset, resetPassword };
}
