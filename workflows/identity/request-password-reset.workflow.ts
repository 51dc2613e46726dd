import { proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { RequestPasswordResetActivities, RequestPasswordResetInput, RequestPasswordResetResult } from '../../contracts/identity';

const { mailPasswordResetLink } = proxyActivities<RequestPasswordResetActivities>(activityProfiles.mailDelivery);

/**
 * Started by requestPasswordReset (workflow password-reset-<magicLinkId>): issues a password reset link and
 * mails it to the identity's address (nothing is mailed to an address without an identity). The link's
 * token is generated, stored as a hash and mailed inside one activity, so it never appears in this
 * workflow's history.
 */
export async function requestPasswordResetWorkflow(input: RequestPasswordResetInput): Promise<RequestPasswordResetResult> {
  return mailPasswordResetLink(input);
}
