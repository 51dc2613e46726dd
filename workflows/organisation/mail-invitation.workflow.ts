import { proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { MailInvitationActivities, MailInvitationInput, MailInvitationResult } from '../../contracts/organisation';

const { mailInvitation } = proxyActivities<MailInvitationActivities>(activityProfiles.invitationMail);

/**
 * Mails an invitation (workflow mail-invitation-<invitationId>): the token exists only in the mail. Started
 * by createInvitation with EMAIL delivery, and by acceptInvitation when a MANUAL token names an address
 * without an identity (that address is mailed its own link).
 */
export async function mailInvitationWorkflow(input: MailInvitationInput): Promise<MailInvitationResult> {
  return mailInvitation(input);
}
