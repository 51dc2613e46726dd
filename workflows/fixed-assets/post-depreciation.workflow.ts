import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { PostDepreciationActivities, PostDepreciationInput, PostDepreciationResult } from '../../contracts/fixed-assets';

const { postDepreciationEntries } = proxyActivities<PostDepreciationActivities>(activityProfiles.closingBalances);

/**
 * A period close's depreciation (NAS 5, straight line): one step posts a DEPRECIATION entry for each month of
 * the close's period that has charges, and moves the assets' accumulated depreciation, in one transaction, so a
 * worker killed anywhere leaves each month charged once or not at all. A failure retrying cannot mend (the
 * period closed under it) fails the close. A child of closePeriodWorkflow (workflow id
 * `depreciation-<legalEntityId>-<closeDate>`).
 */
export async function postDepreciationWorkflow(input: PostDepreciationInput): Promise<PostDepreciationResult> {
  try {
    return { status: 'COMPLETED', months: await postDepreciationEntries(input) };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    return { status: 'FAILED', reason: cause instanceof ApplicationFailure ? cause.message : 'the depreciation could not be posted' };
  }
}
