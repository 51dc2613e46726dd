import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Op, type Sequelize } from 'sequelize';
import { Identity, RegistrationAttempt, RegistrationProof } from '../../db/models';
import { createWorkspace } from '../../db/repositories/organisation/workspaces';
import { lockProofIssuer } from '../../db/repositories/identity/registration';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { newOpaqueToken, sha256 } from '../../core/secrets';
import type { Mailer } from '../../core/mail';
import { sendRecordedMail } from '../mail/send-mail';
import type { Logger } from '../../core/logger';
import type { RoleCode } from '../../core/roles';
import { FailureType } from '../../contracts/failures';
import type { RegistrationActivities, RegistrationInput, RegistrationProofInput, RegistrationResult } from '../../contracts/identity';

export interface RegistrationDeps {
  db: Sequelize;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  proofTtlSeconds: number;
  proofsPerEmailPerHour: number;
  defaultPermissions: Map<string, RoleCode[]>;
}

const invalidProof = () =>
  ApplicationFailure.create({ type: FailureType.RegistrationProofInvalid, message: 'proof invalid, expired or used', nonRetryable: true });

export function createRegistrationActivities(deps: RegistrationDeps): RegistrationActivities {
  const { db, mailer } = deps;

  /**
   * Stores a fresh proof (as a hash) under `proofId`, supersedes older ones for the email and mails it.
   * Idempotent per proofId: once mailed, a retry does nothing; a retry before mailing replaces the hash,
   * so exactly one mailed proof is ever valid for this id.
   */
  async function issueRegistrationProof(input: RegistrationProofInput): Promise<{ mailed: boolean }> {
    const token = newOpaqueToken();
    const expiresAt = new Date(Date.now() + deps.proofTtlSeconds * 1000);
    const decision = await db.transaction(async (tx) => {
      await lockProofIssuer(tx, input.email);
      const existing = await RegistrationProof.findByPk(input.proofId, { transaction: tx });
      if (existing?.mailedAt) return 'already-mailed' as const;
      if (existing) {
        await existing.update({ tokenHash: sha256(token), expiresAt }, { transaction: tx });
        return 'mail' as const;
      }
      const recent = await RegistrationProof.count({
        where: { email: input.email, purpose: 'REGISTRATION', createdAt: { [Op.gt]: new Date(Date.now() - 3600_000) } },
        transaction: tx,
      });
      if (recent >= deps.proofsPerEmailPerHour) return 'throttled' as const;
      await RegistrationProof.update(
        { supersededAt: new Date() },
        { where: { email: input.email, purpose: 'REGISTRATION', consumedAt: null, supersededAt: null }, transaction: tx },
      );
      await RegistrationProof.create({ id: input.proofId, email: input.email, tokenHash: sha256(token), expiresAt }, { transaction: tx });
      return 'mail' as const;
    });
    if (decision !== 'mail') {
      deps.logger.info('registration proof not mailed', { proofId: input.proofId, reason: decision, correlationId: input.correlationId });
      return { mailed: false };
    }
    await sendRecordedMail({ db, mailer }, { key: `registration:${input.proofId}`, purpose: 'REGISTRATION' }, {
      to: input.email,
      subject: 'Your registration link',
      text: [
        'Use this link within 30 minutes to create your workspace:',
        `${deps.publicUrl}/register?${new URLSearchParams({ token, email: input.email })}`,
        '',
        'If you did not ask for it, ignore this message.',
      ].join('\n'),
    });
    await RegistrationProof.update({ mailedAt: new Date() }, { where: { id: input.proofId } });
    return { mailed: true };
  }

  /**
   * Consumes the proof and creates identity (unless it exists), workspace, company, ADMIN membership,
   * default roles and the audit event in one transaction. Idempotent per attempt: a retry after commit
   * returns the stored result.
   */
  async function completeRegistration(input: RegistrationInput): Promise<RegistrationResult> {
    return db.transaction(async (tx) => {
      const proof = await RegistrationProof.findByPk(input.proofId, { transaction: tx, lock: tx.LOCK.UPDATE });
      if (!proof || proof.purpose !== 'REGISTRATION') throw invalidProof();
      if (proof.consumedAt) {
        if (proof.consumedByAttempt === input.attemptId && proof.result) return proof.result as unknown as RegistrationResult;
        throw invalidProof();
      }
      if (proof.supersededAt || proof.expiresAt.getTime() <= Date.now()) throw invalidProof();
      const attempt = await RegistrationAttempt.findByPk(input.attemptId, { transaction: tx });
      if (!attempt || attempt.proofId !== proof.id) throw invalidProof();

      let identityId: string;
      const existing = await Identity.findOne({ where: { email: proof.email }, transaction: tx });
      if (attempt.existingIdentityId) {
        if (!existing || existing.id !== attempt.existingIdentityId) throw invalidProof();
        identityId = existing.id;
      } else {
        // The identity appeared after the request checked: its password was never verified.
        if (existing || !attempt.passwordHash) {
          throw ApplicationFailure.create({ type: FailureType.InvalidCredentials, message: 'identity exists', nonRetryable: true });
        }
        identityId = randomUUID();
        await Identity.create({ id: identityId, email: proof.email, passwordHash: attempt.passwordHash }, { transaction: tx });
      }

      const workspace = await createWorkspace(
        tx,
        { identityId, email: proof.email, companyName: attempt.companyName, companyTaxId: attempt.companyTaxId },
        deps.defaultPermissions,
      );
      await recordAuditEvent(tx, { tenantId: workspace.tenantId }, {
        action: 'workspace.registered',
        actorMembershipId: workspace.membershipId,
        actorDisplayName: proof.email.split('@')[0],
        // Written by the registration workflow (on the registrant's behalf): a system event with its actor.
        systemActor: true,
        correlationId: input.correlationId,
        subjectType: 'WORKSPACE',
        subjectId: workspace.legalEntityId,
        ipAddress: attempt.ipAddress,
        details: attempt.existingIdentityId ? 'existing identity' : 'new identity',
      });
      const result: RegistrationResult = { ...workspace, identityId };
      await proof.update({ consumedAt: new Date(), consumedByAttempt: attempt.id, result: { ...result } }, { transaction: tx });
      await attempt.update({ passwordHash: null }, { transaction: tx });
      return result;
    });
  }

  return { issueRegistrationProof, completeRegistration };
}
