import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { ClosePeriodActivities, ClosePeriodInput, ClosePeriodResult } from '../../contracts/ledger';

const steps = proxyActivities<ClosePeriodActivities>(activityProfiles.databaseStep);
const { computeClosingBalances } = proxyActivities<ClosePeriodActivities>(activityProfiles.closingBalances);

/**
 * Closes the period through closeDate: holds back postings dated at or before it, stores the closing
 * balances (previous snapshot plus the period's lines), checks they balance and marks the period closed.
 * Started by closePeriod (workflow id `close-period-<legalEntityId>-<closeDate>`); every activity is idempotent.
 */
export async function closePeriodWorkflow(input: ClosePeriodInput): Promise<ClosePeriodResult> {
  try {
    // A start retried after it had taken may run again once the first run ended: it changes nothing.
    const { running } = await steps.lockClosedPeriod(input);
    if (!running) return { status: 'ALREADY_SETTLED' };
    const summary = await computeClosingBalances(input);
    await steps.completePeriodClose({ ...input, entryCount: summary.entryCount, total: summary.total });
    return { status: 'COMPLETED', ...summary };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const reason = cause instanceof ApplicationFailure ? cause.message : 'the close could not finish';
    await steps.failPeriodClose({ ...input, reason });
    return { status: 'FAILED', reason };
  }
}
