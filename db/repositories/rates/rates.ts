import { Op, col, fn } from 'sequelize';
import { ExchangeRate, RateSourceState } from '../../models';
import { selectRows, transactionOf, type Db, type Tx } from '../../connection';
import { canonical, type RateSourceCode, type SourcedRate } from '../../../core/rates/rates';

// Rates and each source's refresh state. Serves listRates and refreshRatesWorkflow's activities (run by the
// `rates-refresh` Schedule, which refreshRates asks for a run). Reads and the sources' states go through the
// models; the refresh writes one transaction per run (its sources' rates and states together).

export interface StoredRate {
  currency: string;
  name: string;
  effectiveDate: string;
  rate: string | null;
  buyRate: string | null;
  sellRate: string | null;
  sourceUpdatedAt: Date | null;
  fetchedAt: Date;
}

export interface SourceState {
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
}

const decimal = (value: string | null) => (value === null ? null : canonical(value));

export async function sourceState(db: Db, source: RateSourceCode): Promise<SourceState> {
  const row = await RateSourceState.findByPk(source, { transaction: transactionOf(db) });
  return { lastAttemptAt: row?.lastAttemptAt ?? null, lastSuccessAt: row?.lastSuccessAt ?? null, lastError: row?.lastError ?? null };
}

/**
 * The source's latest publication that applies on `date`: every rate of the greatest effective day on or
 * before it (a weekend or holiday shows the last working day's rates), by currency code.
 */
export async function publicationOn(db: Db, source: RateSourceCode, date: string): Promise<StoredRate[]> {
  const transaction = transactionOf(db);
  const latest = await ExchangeRate.max<string, ExchangeRate>('effectiveDate', {
    where: { source, effectiveDate: { [Op.lte]: date } },
    transaction,
  });
  if (!latest) return [];
  const rows = await ExchangeRate.findAll({ where: { source, effectiveDate: latest }, order: [['currencyCode', 'ASC']], transaction });
  return rows.map((r) => ({
    currency: r.currencyCode,
    name: r.currencyName,
    effectiveDate: r.effectiveDate,
    rate: decimal(r.rate),
    buyRate: decimal(r.buyRate),
    sellRate: decimal(r.sellRate),
    sourceUpdatedAt: r.sourceUpdatedAt,
    fetchedAt: r.fetchedAt,
  }));
}

/** Each attempt to read a source moves its last attempt, committed at once (whatever the attempt's fate). */
export async function recordAttempt(db: Db, source: RateSourceCode): Promise<void> {
  await RateSourceState.update(
    { lastAttemptAt: fn('greatest', col('last_attempt_at'), fn('now')) as unknown as Date },
    { where: { code: source }, transaction: transactionOf(db) },
  );
}

/**
 * Stores what a source published: new rows are added; a row whose values changed is corrected (its
 * fetchedAt moves); an unchanged row keeps the time it was first stored. The source's last success moves.
 * Raw SQL for the rates: one batched upsert (ON CONFLICT … WHERE the values differ) for the whole publication.
 */
export async function storePublication(tx: Tx, source: RateSourceCode, rates: SourcedRate[], fetchedAt: Date): Promise<number> {
  const rows = rates.map((r) => ({
    currency_code: r.currency,
    currency_name: r.name,
    effective_date: r.effectiveDate,
    rate: r.rate,
    buy_rate: r.buyRate,
    sell_rate: r.sellRate,
    source_updated_at: r.sourceUpdatedAt,
  }));
  const stored = await selectRows<{ n: string }>(
    tx,
    `WITH written AS (
       INSERT INTO exchange_rates AS e (source, effective_date, currency_code, currency_name, rate, buy_rate, sell_rate, source_updated_at, fetched_at)
       SELECT :source, r.effective_date, r.currency_code, r.currency_name, r.rate, r.buy_rate, r.sell_rate, r.source_updated_at, :fetchedAt
         FROM jsonb_to_recordset(CAST(:rows AS jsonb))
              AS r (currency_code text, currency_name text, effective_date date, rate numeric, buy_rate numeric, sell_rate numeric, source_updated_at timestamptz)
       ON CONFLICT (source, effective_date, currency_code) DO UPDATE
          SET currency_name = EXCLUDED.currency_name, rate = EXCLUDED.rate, buy_rate = EXCLUDED.buy_rate,
              sell_rate = EXCLUDED.sell_rate, source_updated_at = EXCLUDED.source_updated_at, fetched_at = EXCLUDED.fetched_at
        WHERE (e.currency_name, e.rate, e.buy_rate, e.sell_rate, e.source_updated_at)
              IS DISTINCT FROM (EXCLUDED.currency_name, EXCLUDED.rate, EXCLUDED.buy_rate, EXCLUDED.sell_rate, EXCLUDED.source_updated_at)
       RETURNING 1)
     SELECT count(*) AS n FROM written`,
    { source, rows: JSON.stringify(rows), fetchedAt },
  );
  await RateSourceState.update(
    { lastSuccessAt: fn('greatest', col('last_success_at'), fetchedAt) as unknown as Date, lastError: null },
    { where: { code: source }, transaction: tx },
  );
  return Number(stored[0]?.n ?? 0);
}

/** A refresh that got nothing from the source: its reason is kept, its rates and last success stay. */
export async function storeFailure(tx: Tx, source: RateSourceCode, reason: string): Promise<void> {
  await RateSourceState.update({ lastError: reason.slice(0, 1000) }, { where: { code: source }, transaction: tx });
}

/**
 * Per currency, the latest CBU rate on or before `date` (a weekend or holiday takes the last working day's),
 * with the day it was published for. Raw SQL: DISTINCT ON over the currency index. Serves the revaluation;
 * a posting reads the same in its checks (postingContextStatement).
 */
export async function cbuRatesOn(db: Db, currencies: string[], date: string): Promise<Map<string, { rate: string; rateDate: string }>> {
  if (currencies.length === 0) return new Map();
  const rows = await selectRows<{ currency_code: string; rate: string; rate_date: string }>(
    db,
    `SELECT DISTINCT ON (currency_code) currency_code, rate::text AS rate, to_char(effective_date, 'YYYY-MM-DD') AS rate_date
       FROM exchange_rates WHERE source = 'CBU' AND currency_code = ANY(CAST(:currencies AS text[])) AND effective_date <= :date
      ORDER BY currency_code, effective_date DESC`,
    { currencies: `{${currencies.join(',')}}`, date },
  );
  return new Map(rows.map((r) => [r.currency_code, { rate: canonical(r.rate), rateDate: r.rate_date }]));
}
