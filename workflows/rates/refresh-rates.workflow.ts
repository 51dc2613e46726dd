import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { FetchedRates, RefreshRatesActivities, RefreshRatesResult, SourceOutcome } from '../../contracts/rates';

// Each source has its own retry profile: the central bank is the rate of record and gets more patience;
// the commercial bank's quotes are a convenience and give up sooner. A malformed document or a 4xx is
// non-retryable (the activity says so), so only outages are retried.
const { fetchCentralBankRates } = proxyActivities<RefreshRatesActivities>(activityProfiles.centralBankSource);
const { fetchCommercialBankRates } = proxyActivities<RefreshRatesActivities>(activityProfiles.commercialBankSource);
const { storeRates } = proxyActivities<RefreshRatesActivities>(activityProfiles.databaseStep);

/** The reason a source's activity gave up, as its last attempt reported it. */
function reasonOf(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return 'the source could not be read';
}

async function outcome(source: SourceOutcome['source'], read: Promise<FetchedRates>): Promise<SourceOutcome> {
  try {
    return { source, ok: true, fetched: await read };
  } catch (err) {
    return { source, ok: false, reason: reasonOf(err) };
  }
}

/**
 * Reads every source at once and stores what each gave in one transaction: a source that failed keeps
 * its earlier rates while the other's are stored. Run by the `rates-refresh` Schedule (never two at once)
 * and by refreshRates (POST /rates/refresh) through the same Schedule.
 */
export async function refreshRatesWorkflow(): Promise<RefreshRatesResult> {
  const outcomes = await Promise.all([outcome('CBU', fetchCentralBankRates()), outcome('BANK', fetchCommercialBankRates())]);
  return { sources: await storeRates(outcomes) };
}
