// The journal export against a running API (`npm start`) and its database:
//   npm run bench:exports   (BENCH_URL, BENCH_EXPORT_LINES=1000000, BENCH_EXPORT_FORMATS=csv[,xlsx,hledger], BENCH_API_PID)
// One company gets BENCH_EXPORT_LINES journal lines (two-line UZS entries over 2024), loaded straight into the
// database; then a year of its journal is exported through the API (GET .../entries with Accept) and read to the
// end. Printed per format: the lines and bytes received, lines/s, and the API process's resident memory: before
// the export, the peak sampled while it ran, and the kernel's peak (VmHWM, reset before the export where the
// kernel lets this process reset it). The API process is the one listening on BENCH_URL's port (or BENCH_API_PID).
// readsDuringExports (npm run bench, section 9) times another workspace's GET /me idle and while that journal is
// exported as XLSX and as CSV: what one workspace's export costs everyone else.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { BASE, percentile, requireRunningApi } from './harness';
import { workspace, type Workspace } from './ledger';

const LINES = Number(process.env.BENCH_EXPORT_LINES ?? 1_000_000);
const FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'csv').split(',').map((f) => f.trim()).filter(Boolean);
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });

const YEAR = { from: '2024-01-01', to: '2024-12-31', days: 366 };
const ACCEPT: Record<string, string> = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  hledger: 'text/plain',
};
/** Entries per loading transaction: the commit-time checks of a transaction queue up until its commit. */
const CHUNK = 100_000;

/**
 * Loads `lines` lines (two per entry) as the owner role, inside the rules the database enforces: numbers taken
 * from ledger_states, each entry balanced (checked at commit), detail accounts only, dated in an open period.
 */
export async function loadLines(ws: Workspace, lines: number): Promise<number> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  const started = performance.now();
  try {
    for (let done = 0; done < Math.floor(lines / 2); done += CHUNK) {
      const n = Math.min(CHUNK, Math.floor(lines / 2) - done);
      await owner.transaction(async (tx) => {
        const replacements = { t: ws.tenantId, le: ws.legalEntityId, n, from: YEAR.from, days: YEAR.days };
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
                 SELECT gen_random_uuid() AS id, ${Number(counter!.first)} + g - 1 AS number, CAST(:from AS date) + ((g * 7) % :days) AS d,
                        (1 + (g * 7919) % 10000000) / 100.0 AS amount
                   FROM generate_series(1, :n) g`);
        await run(`INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash,
                                              total_debit, total_credit, line_count, correlation_id)
                 SELECT :t, id, :le, number, d, 'Invoice ' || number, gen_random_uuid(), 'bulk', amount, amount, 2, gen_random_uuid() FROM bulk`);
        await run(`INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit, memo)
                 SELECT :t, id, number, 1, :le, d, (ARRAY['5110', '4010', '9410', '1010'])[1 + number % 4], amount, 0, NULL FROM bulk
                 UNION ALL
                 SELECT :t, id, number, 2, :le, d, (ARRAY['9010', '6010', '8330'])[1 + number % 3], 0, amount, 'counterparty ' || (number % 997) FROM bulk`);
      });
    }
    // What autovacuum does within a minute of a load this size (its insert threshold): statistics, and the
    // visibility map that lets the account statement read its index alone. A ledger that has been in use
    // is in this state but for its newest pages.
    await owner.query('VACUUM (ANALYZE) journal_lines, journal_entries', { type: QueryTypes.RAW });
  } finally {
    await owner.close();
  }
  return (performance.now() - started) / 1000;
}

/** The pid of the process listening on `port` (IPv4 or IPv6), from /proc: the socket's inode and who holds it. */
function listeningPid(port: number): number {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address "ADDR:PORT" (hex), state 0A is LISTEN, inode in the tenth column.
      if (parseInt(f[1]!.split(':').pop()!, 16) === port && f[3] === '0A') inodes.add(f[9]!);
    }
  }
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(pid);
      } catch {
        // the fd closed meanwhile
      }
    }
  }
  throw new Error(`no process of this user listens on port ${port}: set BENCH_API_PID`);
}

/** A field of /proc/<pid>/status in MiB (VmRSS, VmHWM). */
function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kib) / 1024);
}

/** Resets the process's VmHWM to its current RSS (Linux: "5" to clear_refs); false where not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface ExportResult {
  format: string;
  lines: number;
  bytes: number;
  seconds: number;
  rssBefore: number;
  rssPeakSampled: number;
  hwm: number | null;
}

/** Exports the year in `format`, reading the body as it comes (counting lines, keeping nothing), while sampling the API's memory. */
async function timeExport(ws: Workspace, pid: number, format: string, total: number): Promise<ExportResult> {
  const rssBefore = memoryMiB(pid, 'VmRSS');
  const reset = resetPeak(pid);
  let rssPeakSampled = rssBefore;
  const sampler = setInterval(() => (rssPeakSampled = Math.max(rssPeakSampled, memoryMiB(pid, 'VmRSS'))), 50);
  const started = performance.now();
  let bytes = 0;
  let newlines = 0;
  try {
    const res = await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/entries?dateFrom=${YEAR.from}&dateTo=${YEAR.to}`, {
      headers: { authorization: `Bearer ${ws.accessToken}`, accept: ACCEPT[format]! },
    });
    if (res.status !== 200 || !res.body) throw new Error(`the ${format} export answered ${res.status}: ${await res.text()}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  rssPeakSampled = Math.max(rssPeakSampled, memoryMiB(pid, 'VmRSS'));
  // CSV: a header and a row per line; hledger: per two-line entry a header, two postings and a blank line.
  const lines = format === 'csv' ? newlines - 1 : format === 'hledger' ? Math.round(newlines / 2) : total;
  return { format, lines, bytes, seconds, rssBefore, rssPeakSampled, hwm: reset ? memoryMiB(pid, 'VmHWM') : null };
}

/** The API process: the one listening on BENCH_URL's port, or BENCH_API_PID. */
export function apiPid(): number {
  return process.env.BENCH_API_PID ? Number(process.env.BENCH_API_PID) : listeningPid(Number(new URL(BASE).port || 80));
}

/** A year of the company's journal (`lines` lines loaded by loadLines) exported in each format, one after the other. */
export async function measureExports(ws: Workspace, pid: number, lines: number, formats: string[]): Promise<ExportResult[]> {
  const results: ExportResult[] = [];
  for (const format of formats) {
    if (!ACCEPT[format]) throw new Error(`unknown format ${format}: csv, xlsx or hledger`);
    const r = await timeExport(ws, pid, format, lines);
    if (format === 'csv' && r.lines !== Math.floor(lines / 2) * 2) throw new Error(`the CSV export has ${r.lines} lines, not ${lines}`);
    results.push(r);
  }
  return results;
}

/** Latencies of sequential requests, in milliseconds. */
export interface Latencies {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** GET /me a request at a time, one every PACE_MS at most: another client's light traffic, not a load test. */
const PACE_MS = 10;

/** Samples `token`'s GET /me until `stop` settles (or, with a number, for that many milliseconds). */
async function sampleMe(token: string, stop: Promise<unknown> | number): Promise<Latencies> {
  let stopped = false;
  const until = typeof stop === 'number' ? new Promise((r) => setTimeout(r, stop)) : stop;
  void until.then(() => (stopped = true), () => (stopped = true));
  const times: number[] = [];
  const get = () => fetch(`${BASE}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  while (!stopped) {
    const t0 = performance.now();
    // A kept-alive socket the server closed while idle fails before the request is sent: send it once more.
    const res = await get().catch(get);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /me answered ${res.status}`);
    const ms = performance.now() - t0;
    times.push(ms);
    if (ms < PACE_MS) await new Promise((r) => setTimeout(r, PACE_MS - ms));
  }
  times.sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return { samples: times.length, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times[times.length - 1] ?? NaN) };
}

export interface ReadsDuringExport {
  format: string;
  seconds: number;
  bytes: number;
  reads: Latencies;
}

/**
 * Another workspace's GET /me (one request at a time, every 10 ms at most) idle for `idleMs`, then while
 * `exporter`'s journal of the year is exported in each format, one export at a time, read to the end as it
 * comes: what one workspace's export costs everyone else's requests.
 */
export async function readsDuringExports(exporter: Workspace, other: Workspace, formats: string[], idleMs = 10_000): Promise<{ idle: Latencies; during: ReadsDuringExport[] }> {
  const idle = await sampleMe(other.accessToken, idleMs);
  const during: ReadsDuringExport[] = [];
  for (const format of formats) {
    if (!ACCEPT[format]) throw new Error(`unknown format ${format}: csv, xlsx or hledger`);
    const started = performance.now();
    const download = (async () => {
      const res = await fetch(`${BASE}/api/v1/ledger/${exporter.legalEntityId}/entries?dateFrom=${YEAR.from}&dateTo=${YEAR.to}`, {
        headers: { authorization: `Bearer ${exporter.accessToken}`, accept: ACCEPT[format]! },
      });
      if (res.status !== 200 || !res.body) throw new Error(`the ${format} export answered ${res.status}: ${await res.text()}`);
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
      return bytes;
    })();
    const [bytes, reads] = await Promise.all([download, sampleMe(other.accessToken, download)]);
    during.push({ format, seconds: (performance.now() - started) / 1000, bytes, reads });
  }
  return { idle, during };
}

async function main(): Promise<void> {
  await requireRunningApi();
  const pid = apiPid();
  console.log(`Journal export against ${BASE} (API pid ${pid}), Node ${process.version}, ${new Date().toISOString()}`);
  const ws = await workspace();
  const loadSeconds = await loadLines(ws, LINES);
  console.log(`loaded ${LINES} lines into one company in ${loadSeconds.toFixed(1)} s`);
  const results = await measureExports(ws, pid, LINES, FORMATS);
  console.log(`\nA year (${YEAR.from}..${YEAR.to}) of one company's journal, ${LINES} lines, exported through the API\n`);
  console.table(
    results.map((r) => ({
      format: r.format,
      lines: r.lines,
      MiB: Math.round(r.bytes / 1024 / 1024),
      seconds: Math.round(r.seconds * 10) / 10,
      'lines/s': Math.round(r.lines / r.seconds),
      'API RSS before MiB': r.rssBefore,
      'API RSS peak (sampled) MiB': r.rssPeakSampled,
      'API VmHWM since reset MiB': r.hwm ?? 'n/a',
    })),
  );
}

if (require.main === module) main().catch((err) => {
  console.error(err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
  process.exit(1);
});
