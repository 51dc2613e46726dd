// The month-end reports against a running API (`npm start`) and its database:
//   npm run bench:reports   (BENCH_URL, BENCH_REPORT_LINES=1000000, BENCH_REPORT_SAMPLES=40)
// One company gets BENCH_REPORT_LINES journal lines over 2024 (loaded straight into the database, as
// bench:exports does) and is closed monthly through November through the API; then each report of
// November is asked BENCH_REPORT_SAMPLES times, one at a time, beside the trial balance of the same day as the
// floor: the turnover sheet of the month, the account statement of the busiest account (5110, a page of 50),
// Form 1 at the month's end and Form 2 for the month. Printed: p50 and p95 in ms and each p95 over the trial
// balance's.
import { BASE, percentile, requireRunningApi } from './harness';
import { workspace, type Workspace } from './ledger';
import { loadLines } from './exports';

const LINES = Number(process.env.BENCH_REPORT_LINES ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_REPORT_SAMPLES ?? 40);
const MONTH_ENDS = ['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30', '2024-05-31', '2024-06-30', '2024-07-31', '2024-08-31', '2024-09-30', '2024-10-31', '2024-11-30'];

async function call(ws: Workspace, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ws.accessToken}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return res;
}

export async function closeMonthly(ws: Workspace): Promise<number> {
  const started = performance.now();
  for (const closeDate of MONTH_ENDS) {
    const res = await call(ws, '/periods/close', { method: 'POST', body: JSON.stringify({ requestId: crypto.randomUUID(), closeDate }) });
    if (res.status !== 202) throw new Error(`close ${closeDate} answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    for (;;) {
      const close = (await (await call(ws, `/periods/${id}`)).json()) as { status: string; failureReason: string | null };
      if (close.status === 'COMPLETED') break;
      if (close.status === 'FAILED') throw new Error(`close ${closeDate} failed: ${close.failureReason}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return (performance.now() - started) / 1000;
}

/** `SAMPLES` sequential requests of each report, interleaved so that a slow moment of the machine hits them all. */
async function sample(ws: Workspace, reports: Record<string, string>): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>(Object.keys(reports).map((name) => [name, []]));
  for (let i = 0; i < SAMPLES; i++) {
    for (const [name, path] of Object.entries(reports)) {
      const started = performance.now();
      const res = await call(ws, path);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${body.slice(0, 300)}`);
      times.get(name)!.push(performance.now() - started);
    }
  }
  return times;
}

export interface ReportTiming {
  report: string;
  p50: number;
  p95: number;
  /** p95 over the trial balance's p95 in the same run. */
  ratio: number;
}

/**
 * Each report of November over a company loaded and closed monthly (loadLines, closeMonthly), beside the trial
 * balance of the same day; and how many lines the account statement's account has in the month.
 */
export async function measureReports(ws: Workspace): Promise<{ statementLines: number; timings: ReportTiming[] }> {
  const reports = {
    'trial balance (floor)': '/trial-balance?asOf=2024-11-30',
    'turnover sheet, November': '/reports/turnover-sheet?from=2024-11-01&to=2024-11-30',
    'account statement 5110, November, page 1 of 50': '/reports/account-statement?accountCode=5110&from=2024-11-01&to=2024-11-30&size=50',
    'account statement 5110, November, last page': '/reports/account-statement?accountCode=5110&from=2024-11-01&to=2024-11-30&size=50&page=LAST',
    'Form 1 at 2024-11-30': '/reports/balance-sheet?asOf=2024-11-30',
    'Form 2 for November': '/reports/financial-results?from=2024-11-01&to=2024-11-30',
  };
  const first = (await (await call(ws, reports['account statement 5110, November, page 1 of 50'])).json()) as { totalPages: number; totalElements: number };
  reports['account statement 5110, November, last page'] = reports['account statement 5110, November, last page'].replace('LAST', String(first.totalPages - 1));
  await sample(ws, reports); // warm-up
  const times = await sample(ws, reports);
  const floor = percentile([...times.get('trial balance (floor)')!].sort((a, b) => a - b), 95);
  const timings = [...times.entries()].map(([report, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const p95 = percentile(sorted, 95);
    return { report, p50: Math.round(percentile(sorted, 50)), p95: Math.round(p95), ratio: Math.round((p95 / floor) * 100) / 100 };
  });
  return { statementLines: first.totalElements, timings };
}

async function main(): Promise<void> {
  await requireRunningApi();
  console.log(`Month-end reports against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  const ws = await workspace();
  const loadSeconds = await loadLines(ws, LINES);
  console.log(`loaded ${LINES} lines over 2024 into one company in ${loadSeconds.toFixed(1)} s`);
  console.log(`closed January to November monthly in ${(await closeMonthly(ws)).toFixed(1)} s`);
  const { statementLines, timings } = await measureReports(ws);
  console.log(`5110 has ${statementLines} lines in November`);
  console.table(timings.map((t) => ({ report: t.report, 'p50 ms': t.p50, 'p95 ms': t.p95, 'p95 / trial balance p95': t.ratio })));
}

if (require.main === module) main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
