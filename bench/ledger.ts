// Ledger benchmarks against a running API (`npm start`) and its database:
//   npm run bench:ledger     (BENCH_URL, BENCH_SECONDS=10, BENCH_CONCURRENCY=32, BENCH_CLOSE_LINES=100000,1000000)
// 1. Posting throughput of two-line entries over HTTP (wrk), beside pgbench running the same inserts
//    (counter, entry, two lines, audit event, as the application role under row-level security).
// 2. Period close time for companies with 100k and 1M journal lines.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { cbuRatesOn } from '../db/repositories/rates/rates';
import { BASE, CONCURRENCY, PASSWORD, SECONDS, post, registerWorkspace, requireRunningApi } from './harness';
import { ensureWrk, wrk, type WrkResult } from './http';

const CLOSE_SIZES = (process.env.BENCH_CLOSE_LINES ?? '100000,1000000').split(',').map(Number).filter((n) => n > 0);
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });

/** The date of the entries wrkPosting posts (a foreign line takes the CBU rate stored on or before it). */
export const POSTING_DATE = '2026-01-15';

export interface Workspace {
  email: string;
  accessToken: string;
  tenantId: string;
  legalEntityId: string;
}

export async function workspace(): Promise<Workspace> {
  const { email, accessToken } = await registerWorkspace();
  const me = (await (await fetch(`${BASE}/api/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as {
    tenantId: string;
    company: { id: string };
  };
  return { email, accessToken, tenantId: me.tenantId, legalEntityId: me.company.id };
}

/**
 * The workspace with a fresh access token (its owner logs in again): a data set loaded for longer than an
 * access token lives (ACCESS_TOKEN_TTL_SECONDS, 15 minutes by default) is read with it.
 */
export async function signedInAgain(ws: Workspace): Promise<Workspace> {
  const res = await post('/api/v1/auth/login', { email: ws.email, password: PASSWORD });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return { ...ws, accessToken: ((await res.json()) as { accessToken: string }).accessToken };
}

/**
 * A foreign first line for wrkPosting: its account and currency, and amounts with their UZS conversions at
 * the stored CBU rate (worked out beforehand with core/ledger/currency.ts, as the API checks them; Lua's floats
 * would round some of them differently).
 */
export interface ForeignDebit {
  accountCode: string;
  currency: string;
  amounts: Array<{ amount: string; uzs: string }>;
}

/**
 * Posting over HTTP with wrk (a C load generator, as for the reads and as pgbench is): each request a
 * two-line entry with a fresh requestId and amount, to the companies in turn. A load generator written in
 * JavaScript spends as much CPU as the API on this 2-core machine, and that CPU was missing from the API.
 * With `foreign`, the debit line is in that currency at the stored CBU rate (no rate in the request), the
 * credit the same UZS amount to 9010: the same two-line shape as the UZS entry 5110/9010.
 */
export async function wrkPosting(companies: Workspace[], foreign?: ForeignDebit): Promise<WrkResult> {
  const targets = companies.map((ws) => `{ path = "/api/v1/ledger/${ws.legalEntityId}/entries", token = "${ws.accessToken}" }`).join(',\n  ');
  const conversions = (foreign?.amounts ?? []).map((a) => `{ "${a.amount}", "${a.uzs}" }`).join(', ');
  const debit = foreign
    ? `local pair = conversions[math.random(1, #conversions)]
  local amount = pair[2]
  local debit = '{"accountCode":"${foreign.accountCode}","debit":"' .. amount .. '","credit":"0","currency":"${foreign.currency}","currencyAmount":"' .. pair[1] .. '","rateSource":"CBU"}'`
    : `local amount = string.format("%d.%02d", math.random(1, 100000), math.random(0, 99))
  local debit = '{"accountCode":"5110","debit":"' .. amount .. '","credit":"0"}'`;
  const script = path.join(mkdtempSync(path.join(tmpdir(), 'wrk-posting-')), 'posting.lua');
  writeFileSync(
    script,
    `local targets = {
  ${targets}
}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("seed", threads)
end
local conversions = { ${conversions} }
local n = 0
function init(args)
  math.randomseed(os.time() * 100 + seed)
end
local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%012x", math.random(0, 0xffffffff), math.random(0, 0xffff), math.random(0, 0xfff),
    0x8000 + math.random(0, 0x3fff), math.random(0, 0xffffffffffff))
end
function request()
  n = n + 1
  local t = targets[n % #targets + 1]
  ${debit}
  local body = '{"requestId":"' .. uuid() .. '","entryDate":"${POSTING_DATE}","description":"Benchmark sale","lines":[' ..
    debit .. ',{"accountCode":"9010","debit":"0","credit":"' .. amount .. '"}]}'
  return wrk.format("POST", t.path, { ["Authorization"] = "Bearer " .. t.token, ["Content-Type"] = "application/json" }, body)
end
`,
  );
  return wrk(ensureWrk(), '/', {}, SECONDS, script);
}

/**
 * The same writes as one posting (audit event, then counter, entry and lines in one statement), as a
 * pgbench transaction; with several companies, one script per company, picked at random per transaction.
 */
export function pgbenchPosting(companies: Workspace[]) {
  const script = (ws: Workspace) =>
    [
      '\\set amount random(1, 10000000)',
      // Batched as the API sends them (pgbench's backslash-semicolon joins statements into one message): the opening, the
      // audit event with the posting, COMMIT.
      `BEGIN \\; SELECT set_config('app.tenant_id', '${ws.tenantId}', true);`,
      `INSERT INTO audit_events (tenant_id, id, action, category, system_actor, correlation_id, subject_type, subject_id) VALUES ('${ws.tenantId}', gen_random_uuid(), 'ledger.entry.posted', 'LEDGER', false, gen_random_uuid(), 'JOURNAL_ENTRY', gen_random_uuid()) \\; ` +
        `WITH counter AS (INSERT INTO ledger_states AS s (tenant_id, legal_entity_id, next_entry_number) VALUES ('${ws.tenantId}', '${ws.legalEntityId}', 2) ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = s.next_entry_number + 1 RETURNING s.next_entry_number - 1 AS number, s.locked_through), ` +
        `entry AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id) SELECT '${ws.tenantId}', gen_random_uuid(), '${ws.legalEntityId}', counter.number, '2026-01-16', 'pgbench', gen_random_uuid(), 'pgbench', :amount / 100.0, :amount / 100.0, 2, gen_random_uuid() FROM counter WHERE counter.locked_through IS NULL OR counter.locked_through < '2026-01-16' RETURNING id, number) ` +
        `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit) SELECT '${ws.tenantId}', entry.id, entry.number, l.n, '${ws.legalEntityId}', '2026-01-16', l.code, l.d, l.c FROM entry, (VALUES (1, '5110', :amount / 100.0, 0), (2, '9010', 0, :amount / 100.0)) AS l(n, code, d, c);`,
      'END;',
    ].join('\n');
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-'));
  const files = companies.map((ws, i) => {
    const file = path.join(dir, `posting-${i}.sql`);
    writeFileSync(file, `${script(ws)}\n`);
    return file;
  });
  const out = execFileSync(
    'pgbench',
    ['-n', '-M', 'simple', '-c', String(CONCURRENCY), '-j', '2', '-T', String(SECONDS), ...files.flatMap((f) => ['-f', f]), config.database.url],
    { encoding: 'utf8' },
  );
  const tps = Number(/tps = ([0-9.]+)/.exec(out)?.[1]);
  const latency = Number(/latency average = ([0-9.]+) ms/.exec(out)?.[1]);
  const failed = Number(/number of failed transactions: ([0-9]+)/.exec(out)?.[1] ?? 0);
  return { tps, latency, failed };
}

/**
 * Stores CBU rates (UZS per unit) as the rates job would, with the owner role; a rate already stored for a
 * date and currency stays (the benchmarks read back and use whatever rate is in force).
 */
export async function storeCbuRates(rates: Array<{ date: string; currency: string; name: string; rate: string }>): Promise<void> {
  if (rates.length === 0) return;
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    await owner.query(
      `INSERT INTO exchange_rates (source, effective_date, currency_code, currency_name, rate, fetched_at)
       SELECT 'CBU', r.d, r.c, r.n, r.r, now()
         FROM unnest(CAST(:dates AS date[]), CAST(:currencies AS text[]), CAST(:names AS text[]), CAST(:rates AS numeric[])) AS r(d, c, n, r)
       ON CONFLICT (source, effective_date, currency_code) DO NOTHING`,
      {
        replacements: {
          dates: `{${rates.map((r) => r.date).join(',')}}`,
          currencies: `{${rates.map((r) => r.currency).join(',')}}`,
          names: `{${rates.map((r) => `"${r.name}"`).join(',')}}`,
          rates: `{${rates.map((r) => r.rate).join(',')}}`,
        },
        type: QueryTypes.RAW,
      },
    );
  } finally {
    await owner.close();
  }
}

/** The CBU rate in force on `date` for each currency (the latest publication on or before it), as postings take it. */
export async function cbuRatesInForce(currencies: string[], date: string): Promise<Map<string, { rate: string; rateDate: string }>> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    return await cbuRatesOn(owner, currencies, date);
  } finally {
    await owner.close();
  }
}

/** Bulk-loads `lines` journal lines (two per entry, dated in the first half of 2025) straight into the database. */
async function bulkLoad(ws: Workspace, lines: number): Promise<number> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  const started = performance.now();
  const entries = Math.floor(lines / 2);
  try {
    await owner.transaction(async (tx) => {
      const q = (sql: string) =>
        owner.query(sql.replace(/:t\b/g, 'CAST(:t AS uuid)').replace(/:le\b/g, 'CAST(:le AS uuid)'), { replacements: { t: ws.tenantId, le: ws.legalEntityId, n: entries }, transaction: tx });
      // The owner is under row-level security too (forced): the rows are the workspace tenant's.
      await q(`SELECT set_config('app.tenant_id', CAST(:t AS text), true)`);
      await q(`INSERT INTO ledger_states (tenant_id, legal_entity_id, next_entry_number) VALUES (:t, :le, :n + 1)
               ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = ledger_states.next_entry_number + :n`);
      await q(`CREATE TEMP TABLE bulk ON COMMIT DROP AS
               SELECT gen_random_uuid() AS id, g AS number, DATE '2025-01-01' + (g % 181) AS d, (1 + g % 1000000) / 100.0 AS amount
                 FROM generate_series(1, :n) g`);
      await q(`INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash,
                                            total_debit, total_credit, line_count, correlation_id)
               SELECT :t, id, :le, number, d, 'bulk', gen_random_uuid(), 'bulk', amount, amount, 2, gen_random_uuid() FROM bulk`);
      await q(`INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
               SELECT :t, id, number, 1, :le, d, (ARRAY['5110', '4010', '9410', '1010'])[1 + number % 4], amount, 0 FROM bulk
               UNION ALL
               SELECT :t, id, number, 2, :le, d, (ARRAY['9010', '6010', '8330'])[1 + number % 3], 0, amount FROM bulk`);
    });
    await owner.query('ANALYZE journal_lines, journal_entries', { type: QueryTypes.RAW });
  } finally {
    await owner.close();
  }
  return (performance.now() - started) / 1000;
}

async function timeClose(ws: Workspace, closeDate: string): Promise<{ seconds: number; entryCount: number }> {
  const auth = { authorization: `Bearer ${ws.accessToken}` };
  const started = performance.now();
  const res = await post(`/api/v1/ledger/${ws.legalEntityId}/periods/close`, { requestId: randomUUID(), closeDate }, auth);
  if (res.status !== 202) throw new Error(`close answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const view = (await (await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/periods/${id}`, { headers: auth })).json()) as {
      status: string;
      entryCount: number;
      failureReason: string | null;
    };
    if (view.status === 'COMPLETED') return { seconds: (performance.now() - started) / 1000, entryCount: view.entryCount };
    if (view.status === 'FAILED') throw new Error(`close failed: ${view.failureReason}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function timeTrialBalance(ws: Workspace, asOf: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/trial-balance?asOf=${asOf}`, { headers: { authorization: `Bearer ${ws.accessToken}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`trial balance answered ${res.status}`);
  return Math.round(performance.now() - started);
}

async function main(): Promise<void> {
  await requireRunningApi();
  if (process.env.BENCH_SKIP_POSTING !== 'true') await postingTable();
  await closeTable();
}

async function postingTable(): Promise<void> {
  const http = { scenario: 'HTTP POST /ledger/{id}/entries (2 lines, wrk), one company', ...(await wrkPosting([await workspace()])) };
  const spread = { scenario: 'the same, spread over 8 companies', ...(await wrkPosting(await Promise.all(Array.from({ length: 8 }, () => workspace())))) };
  const raw = pgbenchPosting([await workspace()]);
  console.log(`\nPosting two-line entries into one company, ${CONCURRENCY} clients, ${SECONDS}s each, against ${BASE}\n`);
  console.table([
    { path: http.scenario, 'entries/s': Math.round(http.perSecond), 'p50 ms': http.p50, 'p99 ms': http.p99, errors: http.errors },
    { path: spread.scenario, 'entries/s': Math.round(spread.perSecond), 'p50 ms': spread.p50, 'p99 ms': spread.p99, errors: spread.errors },
    { path: 'pgbench, same inserts in one transaction (app role, RLS)', 'entries/s': Math.round(raw.tps), 'p50 ms': `avg ${raw.latency}`, 'p99 ms': '', errors: raw.failed },
  ]);
  console.log(`HTTP reaches ${Math.round((100 * http.perSecond) / raw.tps)}% of the database's own rate for the same writes.\n`);
}

async function closeTable(): Promise<void> {
  const closes = [];
  for (const lines of CLOSE_SIZES) {
    const ws = await workspace();
    const loadSeconds = await bulkLoad(ws, lines);
    const before = await timeTrialBalance(ws, '2025-06-29');
    const close = await timeClose(ws, '2025-06-30');
    const after = await timeTrialBalance(ws, '2025-07-31');
    closes.push({
      'journal lines': lines,
      'entries closed': close.entryCount,
      'bulk load s': Math.round(loadSeconds * 10) / 10,
      'close s (request → COMPLETED)': Math.round(close.seconds * 100) / 100,
      'trial balance before close ms': before,
      'trial balance after close ms': after,
    });
  }
  console.log('Period close of one company (all lines in the closed period)\n');
  console.table(closes);
}

if (require.main === module) main().catch((err) => {
  console.error(err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
  process.exit(1);
});
