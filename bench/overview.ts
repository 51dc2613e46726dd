// The company overview against a running API (`npm start`) and its database:
//   npm run bench:overview   (BENCH_URL, BENCH_OVERVIEW_LINES=1000000, BENCH_OVERVIEW_INVOICES=100000, BENCH_OVERVIEW_SAMPLES=40)
// One company gets the aging's data set (BENCH_OVERVIEW_INVOICES posted sales invoices of 5,000 customers in the
// second half of 2024, a fifth of them paid in part), then two-line UZS entries over 2024 (sales for cash, expenses
// paid) until its journal holds BENCH_OVERVIEW_LINES lines, loaded straight into the database. The overview at
// the year's end is timed one request at a time beside the trial balance of the same day (the floor: the same
// cumulative totals, without the aging, the months and the counts).
import { loadAging, AGING_AS_OF, inTenant } from './documents';
import { BASE, percentile, requireRunningApi } from './harness';
import { signedInAgain, workspace, type Workspace } from './ledger';

const LINES = Number(process.env.BENCH_OVERVIEW_LINES ?? 1_000_000);
const INVOICES = Number(process.env.BENCH_OVERVIEW_INVOICES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_OVERVIEW_SAMPLES ?? 40);

/** Two-line UZS entries over 2024 until the company's journal has `lines` lines; the seconds taken. */
async function loadEntries(ws: Workspace, lines: number): Promise<number> {
  const started = performance.now();
  await inTenant(ws, async (run) => {
    const [counted] = await run('SELECT count(*)::bigint AS n FROM journal_lines WHERE tenant_id = :t AND legal_entity_id = :le');
    const entries = Math.max(0, Math.floor((lines - Number(counted!.n)) / 2));
    if (entries === 0) return;
    const [numbers] = await run(
      `INSERT INTO ledger_states (tenant_id, legal_entity_id, next_entry_number) VALUES (:t, :le, :n + 1)
       ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = ledger_states.next_entry_number + :n
       RETURNING next_entry_number - :n AS first`,
      { n: entries },
    );
    // Even entries a sale for cash (Dr 5110 / Cr 9020), odd ones an expense paid (Dr 9420 / Cr 5110), 1.00 to 50,000.99.
    await run(
      `CREATE TEMP TABLE bulk_entries ON COMMIT DROP AS
       SELECT gen_random_uuid() AS id, CAST(:first AS bigint) + g - 1 AS number, DATE '2024-01-01' + CAST((g * 13) % 366 AS integer) AS d,
              round((100 + (g * 7919) % 5000000) / 100.0, 2) AS amount,
              CASE WHEN g % 2 = 0 THEN '5110' ELSE '9420' END AS debit_code, CASE WHEN g % 2 = 0 THEN '9020' ELSE '5110' END AS credit_code
         FROM generate_series(CAST(1 AS bigint), CAST(:n AS bigint)) g`,
      { n: entries, first: Number(numbers!.first) },
    );
    await run(
      `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
       SELECT :t, id, :le, number, d, 'bulk', gen_random_uuid(), 'bulk', amount, amount, 2, gen_random_uuid() FROM bulk_entries`,
    );
    await run(
      `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
       SELECT :t, id, number, 1, :le, d, debit_code, amount, 0 FROM bulk_entries
       UNION ALL
       SELECT :t, id, number, 2, :le, d, credit_code, 0, amount FROM bulk_entries`,
    );
    await run('ANALYZE journal_lines');
  });
  return (performance.now() - started) / 1000;
}

export interface OverviewResult {
  lines: number;
  invoices: number;
  loadSeconds: number;
  trialBalance: { p50: number; p95: number };
  overview: { p50: number; p95: number };
}

/** The overview at AGING_AS_OF over `lines` journal lines and `invoices` invoices, beside the trial balance. */
export async function measureOverview(lines = LINES, invoices = INVOICES): Promise<OverviewResult> {
  const loaded = await workspace();
  const loadSeconds = (await loadAging(loaded, invoices, 5_000)) + (await loadEntries(loaded, lines));
  const ws = await signedInAgain(loaded);
  const requests = {
    trialBalance: `/api/v1/ledger/${ws.legalEntityId}/trial-balance?asOf=${AGING_AS_OF}`,
    overview: `/api/v1/ledger/${ws.legalEntityId}/overview?asOf=${AGING_AS_OF}`,
  };
  const times = { trialBalance: [] as number[], overview: [] as number[] };
  for (let i = 0; i <= SAMPLES; i++) {
    for (const [name, url] of Object.entries(requests) as Array<[keyof typeof requests, string]>) {
      const started = performance.now();
      const res = await fetch(`${BASE}${url}`, { headers: { authorization: `Bearer ${ws.accessToken}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${body.slice(0, 300)}`);
      // The first round warms the caches; it is not counted.
      if (i > 0) times[name].push(performance.now() - started);
    }
  }
  const latency = (ms: number[]) => {
    const sorted = [...ms].sort((x, y) => x - y);
    return { p50: Math.round(percentile(sorted, 50)), p95: Math.round(percentile(sorted, 95)) };
  };
  return { lines, invoices, loadSeconds, trialBalance: latency(times.trialBalance), overview: latency(times.overview) };
}

async function main(): Promise<void> {
  await requireRunningApi();
  console.log(`The company overview against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  const r = await measureOverview();
  console.log(`\nOverview at ${AGING_AS_OF} over ${r.lines} journal lines and ${r.invoices} invoices (loaded in ${r.loadSeconds.toFixed(0)} s), ${SAMPLES} samples\n`);
  console.table([
    { request: `trial balance at ${AGING_AS_OF} (floor)`, 'p50 ms': r.trialBalance.p50, 'p95 ms': r.trialBalance.p95, 'p95 / floor': 1 },
    { request: 'overview', 'p50 ms': r.overview.p50, 'p95 ms': r.overview.p95, 'p95 / floor': Math.round((r.overview.p95 / r.trialBalance.p95) * 100) / 100 },
  ]);
  console.log(`Goal: p95 ≤ 300 ms.`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? `${err.stack}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
    process.exit(1);
  });
}
