import { proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { AcceptInvitationActivities, AcceptInvitationInput, AcceptInvitationResult } from '../../contracts/organisation';

const { acceptInvitation } = proxyActivities<AcceptInvitationActivities>(activityProfiles.awaitedTransaction);

/**
 * Started by acceptInvitation (workflow accept-invitation-<invitationId>, TenantId search attribute).
 * Input and output carry ids only: the password hash of a new identity waits in the acceptance row, which
 * the activity reads and scrubs.
 */
export async function acceptInvitationWorkflow(input: AcceptInvitationInput): Promise<AcceptInvitationResult> {
  return acceptInvitation(input);
}
