import { proxyActivities } from '@temporalio/workflow';
import type { InvitationActivities, InvitationInput, InvitationMailInput, InvitationResult } from '../../contracts/identity';

const { mailInvitation, acceptInvitation } = proxyActivities<InvitationActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
});

/** Mails an invitation (workflow invitation-mail-<invitationId>): the token exists only in the mail. */
export async function invitationMailWorkflow(input: InvitationMailInput): Promise<{ mailed: boolean }> {
  return mailInvitation(input);
}

/**
 * Accepts an invitation (workflow invitation-<invitationId>, TenantId search attribute). Input and output
 * carry ids only: the password hash of a new identity waits in the acceptance row, which the activity
 * reads and scrubs.
 */
export async function invitationWorkflow(input: InvitationInput): Promise<InvitationResult> {
  return acceptInvitation(input);
}
