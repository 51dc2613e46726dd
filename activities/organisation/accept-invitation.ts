import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { identityIdByEmail, identityToJoin } from '../../db/repositories/identity/identities';
import { consumeInvitation, findAcceptance, findInvitation, openMembership, scrubAcceptance } from '../../db/repositories/organisation/invitations';
import { findMember } from '../../db/repositories/organisation/users';
import { recordWebhookEvent } from '../../db/repositories/webhooks/events';
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
        const identityId = await identityIdByEmail(tx, invitation.email);
        return { tenantId: input.tenantId, identityId: identityId!, membershipId: invitation.acceptedMembershipId };
      }
      if (!invitation.pending) throw invalid('invitation revoked, superseded, expired or used');

      // Only the mailbox's reader creates an identity: without the mailed token, no hash to create one from.
      const joining = await identityToJoin(tx, invitation.email, {
        existingIdentityId: acceptance.existingIdentityId,
        passwordHash: acceptance.mailboxProven ? acceptance.passwordHash : null,
      });
      if ('refused' in joining) {
        if (joining.refused === 'identity-changed') throw invalid('identity changed');
        throw ApplicationFailure.create({ type: FailureType.InvalidCredentials, message: 'identity exists', nonRetryable: true });
      }
      const { identityId } = joining;
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
      // member.joined commits with the membership; the start relay starts its deliveries (due at once).
      const member = (await findMember(tx, scope, membershipId))!;
      await recordWebhookEvent(
        tx,
        scope,
        { type: 'member.joined', data: { membershipId, userId: member.userId, roles: member.roles, status: member.status } },
        { taskQueue: Context.current().info.taskQueue, dispatch: 'relay' },
      );
      return { tenantId: input.tenantId, identityId, membershipId };
    });
  }

  return { acceptInvitation };
}
