// Revaluation of foreign-currency balances against a running API (`npm start`) and its database:
//   npm run bench:revaluation   (BENCH_URL, BENCH_REVALUATION_LINES=100000, BENCH_SUBACCOUNTS=50)
// One company gets BENCH_REVALUATION_LINES foreign journal lines (two-line entries in USD and EUR between
// 5210, 4010 and 6010, the last two over BENCH_SUBACCOUNTS subaccounts each), loaded straight into the
// database; then the CBU rates of the revaluation date are stored and the revaluation is requested over
// HTTP and timed from the request to COMPLETED, beside a trial balance over the same lines (the floor: the
// same sums, without the entry).
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { BASE, post, requireRunningApi } from './harness';
import { storeCbuRates, timeTrialBalance, workspace, type Workspace } from './ledger';

const LINES = Number(process.env.BENCH_REVALUATION_LINES ?? 100000);
const SUBACCOUNTS = Number(process.env.BENCH_SUBACCOUNTS ?? 50);
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });

/** The lines are dated over the second half of 2025 and revalued on its last day. */
const FIRST_DAY = '2025-07-01';
const DAYS = 183;
const REVALUATION_DATE = '2025-12-31';
const CURRENCIES = [
  { code: 'USD', name: 'US Dollar', base: 12000 },
  { code: 'EUR', name: 'Euro', base: 13000 },
];

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** A CBU rate that drifts over the days (four decimals, as CBU publishes some), so lines carry many rates. */
const rateOn = (base: number, day: number) => (base + day * 5 + ((day * 37) % 100) / 100 + ((day * 13) % 100) / 10000).toFixed(4);

async function createSubaccounts(ws: Workspace, parentCode: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const res = await post(
      `/api/v1/accounting-settings/${ws.legalEntityId}/accounts/${parentCode}/subaccounts`,
      { code: `B${String(i).padStart(4, '0')}`, name: `Benchmark counterparty ${i}`, enabled: true },
      { authorization: `Bearer ${ws.accessToken}` },
    );
    if (res.status !== 201) throw new Error(`creating a subaccount of ${parentCode} answered ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

/**
 * Loads `lines` foreign lines (two per entry) as the owner role, inside the rules the database enforces:
 * numbers taken from ledger_states, each line's UZS amount its foreign amount at the CBU rate in force on
 * its date (read from exchange_rates) rounded half-up, each entry balanced in UZS (checked at commit).
 * The entries alternate between a customer paying (5210 / 4010), paying a supplier (6010 / 5210) and a
 * set-off of a receivable against a payable (6010 / 4010).
 */
async function loadForeignLines(ws: Workspace, lines: number, receivables: string[], payables: string[]): Promise<number> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  const started = performance.now();
  const entries = Math.floor(lines / 2);
  try {
    await owner.transaction(async (tx) => {
      const replacements = {
        t: ws.tenantId,
        le: ws.legalEntityId,
        n: entries,
        from: FIRST_DAY,
        days: DAYS,
        receivables: `{${receivables.join(',')}}`,
        payables: `{${payables.join(',')}}`,
      };
      const typed = (sql: string) => sql.replace(/:t\b/g, 'CAST(:t AS uuid)').replace(/:le\b/g, 'CAST(:le AS uuid)');
      const select = <T extends object>(sql: string) => owner.query<T>(typed(sql), { replacements, type: QueryTypes.SELECT, transaction: tx });
      const run = (sql: string) => owner.query(typed(sql), { replacements, type: QueryTypes.RAW, transaction: tx });
      // The owner is under row-level security too (forced): the rows are the workspace tenant's.
      await select(`SELECT set_config('app.tenant_id', CAST(:t AS text), true)`);
      const [counter] = await select<{ first: string }>(
        `INSERT INTO ledger_states (tenant_id, legal_entity_id, next_entry_number) VALUES (:t, :le, :n + 1)
         ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = ledger_states.next_entry_number + :n
         RETURNING next_entry_number - :n AS first`,
      );
      await run(`CREATE TEMP TABLE bulk ON COMMIT DROP AS
               SELECT b.id, b.number, b.d, b.currency, b.amount, b.debit_code, b.debit_sub, b.credit_code, b.credit_sub,
                      r.rate, r.effective_date AS rate_date, round(b.amount * r.rate, 2) AS uzs
                 FROM (SELECT gen_random_uuid() AS id, ${Number(counter!.first)} + g - 1 AS number, CAST(:from AS date) + (g % :days) AS d,
                              (ARRAY['USD', 'EUR'])[1 + g % 2] AS currency, (1 + (g * 7919) % 1000000) / 100.0 AS amount,
                              (ARRAY['5210', '6010', '6010'])[1 + g % 3] AS debit_code,
                              CASE g % 3 WHEN 0 THEN NULL ELSE (CAST(:payables AS uuid[]))[1 + (g / 6) % ${payables.length}] END AS debit_sub,
                              (ARRAY['4010', '5210', '4010'])[1 + g % 3] AS credit_code,
                              CASE g % 3 WHEN 1 THEN NULL ELSE (CAST(:receivables AS uuid[]))[1 + (g / 6) % ${receivables.length}] END AS credit_sub
                         FROM generate_series(1, :n) g) b
                 CROSS JOIN LATERAL (SELECT rate, effective_date FROM exchange_rates
                                      WHERE source = 'CBU' AND currency_code = b.currency AND effective_date <= b.d
                                      ORDER BY effective_date DESC LIMIT 1) r`);
      const [rated] = await select<{ n: string }>('SELECT count(*) AS n FROM bulk');
      if (Number(rated!.n) !== entries) throw new Error(`only ${rated!.n} of ${entries} entries found a CBU rate on or before their date`);
      await run(`INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash,
                                            total_debit, total_credit, line_count, correlation_id)
               SELECT :t, id, :le, number, d, 'bulk ' || currency, gen_random_uuid(), 'bulk', uzs, uzs, 2, gen_random_uuid() FROM bulk`);
      await run(`INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, subaccount_id, debit, credit,
                                          currency, currency_amount, rate, rate_source, rate_date)
               SELECT :t, id, number, 1, :le, d, debit_code, debit_sub, uzs, 0, currency, amount, rate, 'CBU', rate_date FROM bulk
               UNION ALL
               SELECT :t, id, number, 2, :le, d, credit_code, credit_sub, 0, uzs, currency, amount, rate, 'CBU', rate_date FROM bulk`);
    });
    await owner.query('ANALYZE journal_lines, journal_entries', { type: QueryTypes.RAW });
  } finally {
    await owner.close();
  }
  return (performance.now() - started) / 1000;
}

/** Requests the revaluation and polls it to COMPLETED: the wall time, and what its entry adjusted. */
async function timeRevaluation(ws: Workspace, revaluationDate: string): Promise<{ seconds: number; adjusted: number; gainTotal: string; lossTotal: string }> {
  const auth = { authorization: `Bearer ${ws.accessToken}` };
  const started = performance.now();
  const res = await post(`/api/v1/ledger/${ws.legalEntityId}/revaluations`, { revaluationDate }, auth);
  if (res.status !== 202) throw new Error(`revaluation answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const view = (await (await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/revaluations/${id}`, { headers: auth })).json()) as {
      status: string;
      adjustments: unknown[];
      gainTotal: string | null;
      lossTotal: string | null;
      failureReason: string | null;
    };
    if (view.status === 'COMPLETED') {
      return { seconds: (performance.now() - started) / 1000, adjusted: view.adjustments.length, gainTotal: view.gainTotal!, lossTotal: view.lossTotal! };
    }
    if (view.status === 'FAILED') throw new Error(`revaluation failed: ${view.failureReason}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RevaluationResult {
  lines: number;
  loadSeconds: number;
  revaluationSeconds: number;
  adjusted: number;
  gainTotal: string;
  lossTotal: string;
  trialBalanceMs: number;
}

/** One company with `lines` foreign lines, revalued at REVALUATION_DATE; the trial balance over the same lines beside it. */
export async function measureRevaluation(lines = LINES, subaccounts = SUBACCOUNTS): Promise<RevaluationResult> {
  await storeCbuRates(
    CURRENCIES.flatMap((c) => Array.from({ length: DAYS }, (_, day) => ({ date: addDays(FIRST_DAY, day), currency: c.code, name: c.name, rate: rateOn(c.base, day) }))),
  );
  const ws = await workspace();
  const receivables = await createSubaccounts(ws, '4010', subaccounts);
  const payables = await createSubaccounts(ws, '6010', subaccounts);
  const loadSeconds = await loadForeignLines(ws, lines, receivables, payables);
  // The closing rates: stored after the load, as the rates job stores them on the day.
  await storeCbuRates(CURRENCIES.map((c) => ({ date: REVALUATION_DATE, currency: c.code, name: c.name, rate: rateOn(c.base, DAYS + 7) })));
  // The first trial balance reads the freshly loaded pages in; the second is the one compared.
  await timeTrialBalance(ws, REVALUATION_DATE);
  const trialBalanceMs = await timeTrialBalance(ws, REVALUATION_DATE);
  const revaluation = await timeRevaluation(ws, REVALUATION_DATE);
  return { lines, loadSeconds, revaluationSeconds: revaluation.seconds, adjusted: revaluation.adjusted, gainTotal: revaluation.gainTotal, lossTotal: revaluation.lossTotal, trialBalanceMs };
}

async function main(): Promise<void> {
  await requireRunningApi();
  console.log(`Revaluation against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  const r = await measureRevaluation();
  console.log(`\nRevaluation of one company's foreign balances at ${REVALUATION_DATE} (USD, EUR; 5210, 4010 and 6010 × ${SUBACCOUNTS} subaccounts)\n`);
  console.table([
    {
      'foreign lines': r.lines,
      'bulk load s': Math.round(r.loadSeconds * 10) / 10,
      'revaluation s (request → COMPLETED)': Math.round(r.revaluationSeconds * 100) / 100,
      'balances adjusted': r.adjusted,
      gain: r.gainTotal,
      loss: r.lossTotal,
      'trial balance ms (floor)': r.trialBalanceMs,
      'revaluation / trial balance': `${((r.revaluationSeconds * 1000) / r.trialBalanceMs).toFixed(1)}×`,
    },
  ]);
}

if (require.main === module) main().catch((err) => {
  console.error(err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
  process.exit(1);
});
