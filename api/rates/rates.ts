import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { isCalendarDate } from '../../core/shared/calendar';
import { AppError } from '../../core/shared/problems';
import { BASE_CURRENCY, currencySymbol, currencyName, ratesStatus, tashkentDate, type RateSourceCode } from '../../core/rates/rates';
import { withTenant } from '../../db/connection';
import { publicationOn, sourceState } from '../../db/repositories/rates/rates';
import type { RatesScheduleSettings } from '../../adapters/temporal/rates-schedule';
import type { WorkflowClient } from '../workflow-client';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../../services/audit/caller-events';

type CurrencyView = Schemas['CurrencyView'];

/**
 * A stored decimal as a JSON number. Rates keep at most 15 significant digits, so the number's shortest
 * text (what JSON.stringify writes) is exactly the stored decimal: "0.77" is written 0.77, never 0.7699….
 */
const numberOf = (value: string | null): number | null => (value === null ? null : Number(value));

/** Exchange rates: read from the stored publications, refreshed through the Schedule. */
export function createRates(deps: { db: Sequelize; workflows: Pick<WorkflowClient, 'triggerRatesRefresh'>; schedule: RatesScheduleSettings; now?: () => Date }) {
  const { db, schedule } = deps;
  const now = deps.now ?? (() => new Date());

  async function listRates(query: { date?: string; source?: RateSourceCode }): Promise<Schemas['RatesResponse']> {
    if (query.date !== undefined && !isCalendarDate(query.date)) {
      throw new AppError('validation', '/query/date must be a date that exists (YYYY-MM-DD)', { errors: [{ path: '/query/date', message: 'must be a date that exists' }] });
    }
    const source = query.source ?? 'CBU';
    const at = now();
    const date = query.date ?? tashkentDate(at);
    const [state, rates] = await Promise.all([sourceState(db, source), publicationOn(db, source, date)]);
    const status = ratesStatus({ hasRates: rates.length > 0, lastSuccessAt: state.lastSuccessAt, now: at, refreshIntervalSeconds: schedule.refreshIntervalSeconds });
    const base: CurrencyView = {
      code: BASE_CURRENCY,
      name: currencyName(BASE_CURRENCY) ?? BASE_CURRENCY,
      symbol: currencySymbol(BASE_CURRENCY),
      base: true,
      effectiveDate: rates[0]?.effectiveDate ?? date,
      updatedAt: state.lastSuccessAt?.toISOString() ?? null,
      sourceUpdatedAt: null,
      rate: 1,
      buyRate: source === 'BANK' ? 1 : null,
      sellRate: source === 'BANK' ? 1 : null,
    };
    const items = rates.map(
      (r): CurrencyView => ({
        code: r.currency,
        name: r.name,
        symbol: currencySymbol(r.currency),
        base: false,
        effectiveDate: r.effectiveDate,
        updatedAt: r.fetchedAt.toISOString(),
        sourceUpdatedAt: r.sourceUpdatedAt?.toISOString() ?? null,
        rate: numberOf(r.rate),
        buyRate: numberOf(r.buyRate),
        sellRate: numberOf(r.sellRate),
      }),
    );
    return {
      baseCurrency: BASE_CURRENCY,
      source,
      status,
      stale: status !== 'FRESH',
      updatedAt: state.lastSuccessAt?.toISOString() ?? null,
      lastAttemptAt: state.lastAttemptAt?.toISOString() ?? null,
      refreshIntervalSeconds: schedule.refreshIntervalSeconds,
      items: [base, ...items],
    };
  }

  /**
   * Asks the Schedule for a run now and audits the request; both or neither (an unreachable Temporal
   * answers 503 and records nothing).
   */
  async function refreshRates(principal: Principal, ctx: RequestContext): Promise<Schemas['RatesRefreshAccepted']> {
    const requestedAt = now();
    await withTenant(db, principal.tenantId, async (tx) => {
      await recordCallerEvent(tx, principal, ctx, {
        action: 'rates.refresh.requested',
        subjectType: 'RATES_REFRESH',
        subjectId: randomUUID(),
        details: `schedule ${schedule.scheduleId}`,
      });
      try {
        await deps.workflows.triggerRatesRefresh(schedule);
      } catch (err) {
        throw new AppError('dependency-unavailable', `The rate refresh could not be requested: Temporal did not answer (${(err as Error).message})`);
      }
    });
    return { scheduleId: schedule.scheduleId, requestedAt: requestedAt.toISOString() };
  }

  return { listRates, refreshRates };
}
