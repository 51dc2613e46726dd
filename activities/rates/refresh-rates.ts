import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../../runtime/logger';
import { MalformedRateDocument, RateSourceUnavailable, type RateSource, type RateSourceCode } from '../../core/rates/rates';
import { FailureType, RATES_SOURCE_UNAVAILABLE } from '../../contracts/failures';
import type { FetchedRates, RefreshRatesActivities, SourceOutcome, SourceSummary } from '../../contracts/rates';
import { recordAttempt, storeFailure, storePublication } from '../../db/repositories/rates/rates';
import { recordWebhookEventForEverySubscriber } from '../../db/repositories/webhooks/events';

export interface RefreshRatesDeps {
  db: Sequelize;
  logger: Logger;
  rateSources: Record<RateSourceCode, RateSource>;
}

/** Where a skipped row is logged: enough to find it in the source's document, never more than a line. */
const MAX_LOGGED_SKIPS = 20;

/** The activities of refreshRatesWorkflow (run by the `rates-refresh` Schedule, and through it by refreshRates). */
export function createRefreshRatesActivities({ db, logger, rateSources }: RefreshRatesDeps): RefreshRatesActivities {
  const log = logger.child({ component: 'refresh-rates' });

  /**
   * One attempt at one source: the attempt is recorded first (GET /rates shows it even while the source
   * hangs), then the document is read. The failure says whether another attempt can help: an outage is
   * retryable, a malformed document or a refusal is not, and its message is what the Temporal UI shows.
   */
  async function fetchFrom(code: RateSourceCode): Promise<FetchedRates> {
    const attempt = Context.current().info.attempt;
    await recordAttempt(db, code);
    try {
      const document = await rateSources[code].fetchRates();
      for (const skip of document.skipped.slice(0, MAX_LOGGED_SKIPS)) {
        log.warn('rate row skipped', { source: code, row: skip.index, reason: skip.reason });
      }
      if (document.skipped.length > MAX_LOGGED_SKIPS) {
        log.warn('more rate rows skipped', { source: code, more: document.skipped.length - MAX_LOGGED_SKIPS });
      }
      return { source: code, rates: document.rates, skippedRows: document.skipped.length, fetchedAt: new Date().toISOString() };
    } catch (err) {
      log.warn('rate source failed', { source: code, attempt, reason: (err as Error).message });
      if (err instanceof MalformedRateDocument) throw ApplicationFailure.nonRetryable(err.message, FailureType.RatesDocumentMalformed);
      if (err instanceof RateSourceUnavailable) {
        throw err.retryable
          ? ApplicationFailure.retryable(err.message, RATES_SOURCE_UNAVAILABLE)
          : ApplicationFailure.nonRetryable(err.message, FailureType.RatesSourceRefused);
      }
      throw err;
    }
  }

  async function storeRates(outcomes: SourceOutcome[]): Promise<SourceSummary[]> {
    return db.transaction(async (tx) => {
      const summaries: SourceSummary[] = [];
      for (const o of outcomes) {
        if (o.ok) {
          const changed = await storePublication(tx, o.source, o.fetched.rates, new Date(o.fetched.fetchedAt));
          summaries.push({ source: o.source, status: 'STORED', rates: o.fetched.rates.length, skippedRows: o.fetched.skippedRows, changed });
          // A refresh that added or corrected rates is an event for every workspace with a subscriber, in
          // this commit (a retried store changes nothing and sends nothing again); the relay starts them.
          const effectiveDate = o.fetched.rates.map((r) => r.effectiveDate).sort().at(-1);
          if (changed > 0 && effectiveDate) {
            await recordWebhookEventForEverySubscriber(
              tx,
              { type: 'rates.refreshed', data: { source: o.source, effectiveDate, changedRates: changed } },
              { taskQueue: Context.current().info.taskQueue, dispatch: 'relay' },
            );
          }
        } else {
          await storeFailure(tx, o.source, o.reason);
          summaries.push({ source: o.source, status: 'FAILED', reason: o.reason });
        }
      }
      for (const s of summaries) log.info('rates refreshed', { ...s });
      return summaries;
    });
  }

  return {
    fetchCentralBankRates: () => fetchFrom('CBU'),
    fetchCommercialBankRates: () => fetchFrom('BANK'),
    storeRates,
  };
}
