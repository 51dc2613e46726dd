import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { identityToJoin } from '../../db/repositories/identity/identities';
import { findMagicLink, recordMagicLinkRegistration } from '../../db/repositories/identity/magic-links';
import { findRegistrationAttempt, scrubRegistrationAttempt } from '../../db/repositories/identity/registration-attempts';
import { createWorkspace } from '../../db/repositories/organisation/workspaces';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import type { RoleCode } from '../../core/organisation/roles';
import { FailureType } from '../../contracts/failures';
import type { RegisterActivities, RegisterInput, RegisterResult } from '../../contracts/identity';

export interface RegisterDeps {
  db: Sequelize;
  defaultPermissions: Map<string, RoleCode[]>;
}

const invalidMagicLink = () =>
  ApplicationFailure.create({ type: FailureType.MagicLinkInvalid, message: 'magic link invalid, expired or used', nonRetryable: true });

/** The activities of registerWorkflow (started by register). */
export function createRegisterActivities(deps: RegisterDeps): RegisterActivities {
  const { db } = deps;

  /**
   * Consumes the magic link and creates identity (unless it exists), workspace, company, ADMIN membership,
   * default roles and the audit event in one transaction. Idempotent per attempt: a retry after commit
   * returns the stored result.
   */
  async function createRegisteredWorkspace(input: RegisterInput): Promise<RegisterResult> {
    return db.transaction(async (tx) => {
      const magicLink = await findMagicLink(tx, input.magicLinkId, { lock: true });
      if (!magicLink || magicLink.purpose !== 'REGISTRATION') throw invalidMagicLink();
      if (magicLink.consumedAt) {
        if (magicLink.consumedByAttempt === input.attemptId && magicLink.result) return magicLink.result as unknown as RegisterResult;
        throw invalidMagicLink();
      }
      if (magicLink.supersededAt || magicLink.expiresAt.getTime() <= Date.now()) throw invalidMagicLink();
      const attempt = await findRegistrationAttempt(tx, input.attemptId);
      if (!attempt || attempt.magicLinkId !== magicLink.id) throw invalidMagicLink();

      const joining = await identityToJoin(tx, magicLink.email, { existingIdentityId: attempt.existingIdentityId, passwordHash: attempt.passwordHash });
      if ('refused' in joining) {
        if (joining.refused === 'identity-changed') throw invalidMagicLink();
        throw ApplicationFailure.create({ type: FailureType.InvalidCredentials, message: 'identity exists', nonRetryable: true });
      }
      const { identityId } = joining;

      const workspace = await createWorkspace(
        tx,
        { identityId, email: magicLink.email, companyName: attempt.companyName, companyTaxId: attempt.companyTaxId },
        deps.defaultPermissions,
      );
      await recordAuditEvent(tx, { tenantId: workspace.tenantId }, {
        action: 'workspace.registered',
        actorMembershipId: workspace.membershipId,
        actorDisplayName: magicLink.email.split('@')[0],
        // Written by registerWorkflow (on the registrant's behalf): a system event with its actor.
        systemActor: true,
        correlationId: input.correlationId,
        subjectType: 'WORKSPACE',
        subjectId: workspace.legalEntityId,
        ipAddress: attempt.ipAddress,
        details: attempt.existingIdentityId ? 'existing identity' : 'new identity',
      });
      const result: RegisterResult = { ...workspace, identityId };
      await recordMagicLinkRegistration(tx, magicLink.id, { attemptId: attempt.id, result: { ...result } });
      await scrubRegistrationAttempt(tx, attempt.id);
      return result;
    });
  }

  return { createRegisteredWorkspace };
}
