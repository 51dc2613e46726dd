import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { Identity, MagicLink, RegistrationAttempt } from '../../db/models';
import { createWorkspace } from '../../db/repositories/organisation/workspaces';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import type { RoleCode } from '../../core/roles';
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
      const magicLink = await MagicLink.findByPk(input.magicLinkId, { transaction: tx, lock: tx.LOCK.UPDATE });
      if (!magicLink || magicLink.purpose !== 'REGISTRATION') throw invalidMagicLink();
      if (magicLink.consumedAt) {
        if (magicLink.consumedByAttempt === input.attemptId && magicLink.result) return magicLink.result as unknown as RegisterResult;
        throw invalidMagicLink();
      }
      if (magicLink.supersededAt || magicLink.expiresAt.getTime() <= Date.now()) throw invalidMagicLink();
      const attempt = await RegistrationAttempt.findByPk(input.attemptId, { transaction: tx });
      if (!attempt || attempt.magicLinkId !== magicLink.id) throw invalidMagicLink();

      let identityId: string;
      const existing = await Identity.findOne({ where: { email: magicLink.email }, transaction: tx });
      if (attempt.existingIdentityId) {
        if (!existing || existing.id !== attempt.existingIdentityId) throw invalidMagicLink();
        identityId = existing.id;
      } else {
        // The identity appeared after the request checked: its password was never verified.
        if (existing || !attempt.passwordHash) {
          throw ApplicationFailure.create({ type: FailureType.InvalidCredentials, message: 'identity exists', nonRetryable: true });
        }
        identityId = randomUUID();
        await Identity.create({ id: identityId, email: magicLink.email, passwordHash: attempt.passwordHash }, { transaction: tx });
      }

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
      await magicLink.update({ consumedAt: new Date(), consumedByAttempt: attempt.id, result: { ...result } }, { transaction: tx });
      await attempt.update({ passwordHash: null }, { transaction: tx });
      return result;
    });
  }

  return { createRegisteredWorkspace };
}
