import { proxyActivities } from '@temporalio/workflow';
import type { AcceptInvitationActivities, AcceptInvitationInput, AcceptInvitationResult } from '../../contracts/organisation';

const { acceptInvitation } = proxyActivities<AcceptInvitationActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
});

/**
 * Started by acceptInvitation (workflow accept-invitation-<invitationId>, TenantId search attribute).
 * Input and output carry ids only: the password hash of a new identity waits in the acceptance row, which
 * the activity reads and scrubs.
 */
export async function acceptInvitationWorkflow(input: AcceptInvitationInput): Promise<AcceptInvitationResult> {
  return acceptInvitation(input);
}
