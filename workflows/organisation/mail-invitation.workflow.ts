import { proxyActivities } from '@temporalio/workflow';
import type { MailInvitationActivities, MailInvitationInput, MailInvitationResult } from '../../contracts/organisation';

const { mailInvitation } = proxyActivities<MailInvitationActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
});

/**
 * Mails an invitation (workflow mail-invitation-<invitationId>): the token exists only in the mail. Started
 * by createInvitation with EMAIL delivery, and by acceptInvitation when a MANUAL token names an address
 * without an identity (that address is mailed its own link).
 */
export async function mailInvitationWorkflow(input: MailInvitationInput): Promise<MailInvitationResult> {
  return mailInvitation(input);
}
