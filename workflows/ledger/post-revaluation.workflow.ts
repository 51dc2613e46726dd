import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { PostRevaluationActivities, PostRevaluationInput, PostRevaluationResult } from '../../contracts/ledger';

const { postRevaluationEntry } = proxyActivities<PostRevaluationActivities>(activityProfiles.closingBalances);
const { failRevaluation } = proxyActivities<PostRevaluationActivities>(activityProfiles.databaseStep);

/**
 * Revalues a company's foreign-currency balances at a date (NAS 22): one step posts the revaluation entry,
 * its events and the outcome in one transaction, so a worker killed anywhere leaves one entry or none, and
 * the retried step finds the revaluation settled. A failure that retrying cannot mend (no CBU rate, the date
 * closed) marks it FAILED with the reason. Started by postRevaluation and, as a child, by closePeriodWorkflow
 * (workflow id `revaluation-<legalEntityId>-<date>`).
 */
export async function postRevaluationWorkflow(input: PostRevaluationInput): Promise<PostRevaluationResult> {
  try {
    const outcome = await postRevaluationEntry(input);
    if (outcome.settled) return { status: 'ALREADY_SETTLED' };
    return { status: 'COMPLETED', entryId: outcome.entryId, gainTotal: outcome.gainTotal, lossTotal: outcome.lossTotal };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const reason = cause instanceof ApplicationFailure ? cause.message : 'the revaluation could not finish';
    await failRevaluation({ ...input, reason });
    return { status: 'FAILED', reason };
  }
}
