import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { Identity } from '../../db/models';
import { withTenant } from '../../db/connection';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { consumeInvitation, findAcceptance, findInvitation, openMembership, scrubAcceptance } from '../../db/repositories/organisation/invitations';
import { FailureType } from '../../contracts/failures';
import type { AcceptInvitationActivities, AcceptInvitationInput, AcceptInvitationResult } from '../../contracts/organisation';

export interface AcceptInvitationDeps {
  db: Sequelize;
}

const invalid = (message: string) => ApplicationFailure.create({ type: FailureType.InvitationInvalid, message, nonRetryable: true });

/** The activities of acceptInvitationWorkflow (started by acceptInvitation). */
export function createAcceptInvitationActivities(deps: AcceptInvitationDeps): AcceptInvitationActivities {
  const { db } = deps;

  /**
   * Consumes the invitation and creates the identity (if new), the membership with the invited roles and
   * the audit event in one transaction. Idempotent per acceptance: a retry after commit answers the result.
   */
  async function acceptInvitation(input: AcceptInvitationInput): Promise<AcceptInvitationResult> {
    const scope = { tenantId: input.tenantId };
    return withTenant(db, input.tenantId, async (tx) => {
      const invitation = await findInvitation(tx, scope, { id: input.invitationId }, { lock: true });
      if (!invitation) throw invalid('no such invitation');
      const acceptance = await findAcceptance(tx, scope, input.acceptanceId);
      if (!acceptance || acceptance.invitationId !== invitation.id) throw invalid('no such acceptance');
      if (invitation.consumedByAcceptance === input.acceptanceId && invitation.acceptedMembershipId) {
        const identity = await Identity.findOne({ where: { email: invitation.email }, transaction: tx });
        return { tenantId: input.tenantId, identityId: identity!.id, membershipId: invitation.acceptedMembershipId };
      }
      if (!invitation.pending) throw invalid('invitation revoked, superseded, expired or used');

      const existing = await Identity.findOne({ where: { email: invitation.email }, transaction: tx });
      let identityId: string;
      if (acceptance.existingIdentityId) {
        if (!existing || existing.id !== acceptance.existingIdentityId) throw invalid('identity changed');
        identityId = existing.id;
      } else {
        // The identity appeared after the request checked (its password was never verified), or the
        // acceptance did not come with the mailed token: only the mailbox's reader creates an identity.
        if (existing || !acceptance.passwordHash || !acceptance.mailboxProven) {
          throw ApplicationFailure.create({ type: FailureType.InvalidCredentials, message: 'identity exists', nonRetryable: true });
        }
        const created = await Identity.create({ id: randomUUID(), email: invitation.email, passwordHash: acceptance.passwordHash }, { transaction: tx });
        identityId = created.id;
      }
      const membershipId = await openMembership(tx, scope, { identityId, displayName: invitation.email.split('@')[0]!, email: invitation.email, roles: invitation.roles });
      if (!membershipId) throw invalid('already a member of this workspace');
      await consumeInvitation(tx, scope, { invitationId: invitation.id, acceptanceId: input.acceptanceId, membershipId });
      await recordAuditEvent(tx, scope, {
        action: 'users.invitation.accepted',
        actorMembershipId: membershipId,
        // Written by acceptInvitationWorkflow on the invitee's behalf: a system event with its actor.
        systemActor: true,
        correlationId: input.correlationId,
        subjectType: 'INVITATION',
        subjectId: invitation.id,
        ipAddress: acceptance.ipAddress,
        details: `${invitation.roles.join(', ')}; ${acceptance.existingIdentityId ? 'existing identity' : 'new identity'}`,
      });
      await scrubAcceptance(tx, scope, input.acceptanceId);
      return { tenantId: input.tenantId, identityId, membershipId };
    });
  }

  return { acceptInvitation };
}
