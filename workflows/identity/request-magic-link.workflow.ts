import { proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { RequestMagicLinkActivities, RequestMagicLinkInput, RequestMagicLinkResult } from '../../contracts/identity';

const { mailMagicLink } = proxyActivities<RequestMagicLinkActivities>(activityProfiles.mailDelivery);

/**
 * Started by requestMagicLink (workflow magic-link-<magicLinkId>): issues a magic link and mails it. The
 * link's token is generated, stored as a hash and mailed inside one activity, so it never appears in this
 * workflow's history.
 */
export async function requestMagicLinkWorkflow(input: RequestMagicLinkInput): Promise<RequestMagicLinkResult> {
  return mailMagicLink(input);
}
