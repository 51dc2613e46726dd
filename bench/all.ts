// Every performance row in one run against a running service, each beside its floor measured in the same
// run (this machine is shared and noisy: compare the ratios, not the absolute numbers):
//   1. reads (wrk): GET /healthz (the floor), GET /me, the account list of 50, as shares of /healthz;
//   2. the account list's SQL in pgbench, simple protocol and prepared statements;
//   3. posting two-line entries over HTTP (wrk) beside pgbench of the same writes, one company and eight,
//      and beside pgbench of the posting request's whole SQL;
//   4. posting the same two-line entry with a USD line at the stored CBU rate beside it all in UZS (wrk,
//      two runs each);
//   5. a workflow-backed step (step-up with an email code: a Temporal update) beside the same step checked
//      in the API alone (an authenticator code), p50 of sequential requests; requestMagicLinkWorkflow
//      completions per second;
//   6. reads while password hashing is saturated: logins/s, the list's req/s against idle, event-loop lag;
//   7. a revaluation over 100,000 foreign lines (bulk-loaded, about 20 s) beside a trial balance of the same
//      lines (BENCH_REVALUATION_LINES, BENCH_SUBACCOUNTS as for npm run bench:revaluation).
//   8. the month-end reports of November over 1,000,000 lines of 2024 closed monthly (loaded straight into
//      the database, then closed through the API: minutes), each beside the trial balance of the same day;
//   9. a year of that journal exported as CSV (and BENCH_EXPORT_FORMATS), lines/s and the API's memory; then
//      another workspace's GET /me (a request at a time) idle and while that journal exports as XLSX and as CSV.
//   Sections 8 and 9 run first (the export's memory is measured on the API as it started).
//  10. two API processes behind nginx beside one process alone: /healthz, /me, posting (one company and
//      eight), on a cluster of its own (scripts/start-cluster.sh: own ports and databases, about a minute to start).
//  11. posting a SALES invoice of five lines (postInvoice of prepared drafts, wrk) beside postJournalEntry of the
//      entry it writes (Dr 4010 with the customer / Cr 9020 / Cr 6410), two runs each (bench/documents.ts);
//  12. the aging of receivables over 100,000 open invoices of 5,000 customers with partial payments (loaded
//      straight into the database, about a minute) beside the trial balance of the same day (BENCH_AGING_INVOICES,
//      BENCH_AGING_COUNTERPARTIES, BENCH_AGING_SAMPLES as for npm run bench:documents);
//  13. the VAT register of November over 20,000 sales invoices a month for a year (loaded straight into the
//      database, a few minutes) beside the trial balance of the month's end (BENCH_VAT_INVOICES=20000,
//      BENCH_VAT_MONTHS, BENCH_VAT_SAMPLES as for npm run bench:vat-register).
//  14. a bank statement of 10,000 lines imported and matched against 5,000 open invoices (half its lines pay one
//      each): time to COMPLETED beside parsing the file alone, and the API's and the worker's peak memory, for
//      half as many lines too (BENCH_BANK_LINES, BENCH_BANK_INVOICES as for npm run bench:bank-import).
//  15. the close of a month for a company with 10,000 fixed assets in service beside a company without any:
//      the close's time and its depreciation step's (BENCH_ASSETS as for npm run bench:fixed-assets).
//  16. the company overview over 1,000,000 journal lines and 100,000 invoices beside the trial balance of the
//      same day (BENCH_OVERVIEW_LINES, BENCH_OVERVIEW_INVOICES as for npm run bench:overview).
// BENCH_ONLY picks sections: reads,sql,posting,foreign,steps,hashing,revaluation,reports,exports,cluster,
// invoice-posting,aging,vat-register,bank-import,fixed-assets,overview (all by default; BENCH_REPORT_LINES sets the lines of sections 8 and 9).
// Start the service as production runs it (response validation off; every benchmark prints the API's
// configuration first, from its metrics), with the request-rate limits raised, and the password hashes one
// client address may have at once (the workspaces are registered eight at a time, all from this address; they
// would stop the load):
//   VALIDATE_RESPONSES=false RATE_LIMIT_MAGIC_LINK_PER_IP=1000000/3600 RATE_LIMIT_REGISTER_PER_IP=1000000/600 \
//   RATE_LIMIT_LOGIN_PER_IP=1000000/300 RATE_LIMIT_EMAIL_CHALLENGE_PER_IP=1000000/600 \
//   PASSWORD_HASH_PER_CLIENT=1000 CREDENTIAL_FAILURES_PER_IP_PER_DAY=1000000 \
//   CREDENTIAL_FAILURES_PER_EMAIL_AND_IP=1000000 npm start
// (section 6 sends hundreds of wrong logins a second: the day's 100 per address would be spent at once)
//   npm run bench      (BENCH_SECONDS=8, BENCH_CONCURRENCY=32, BENCH_STEPS=10, BENCH_WORKFLOWS=200;
//                       the event-loop lag is read from BENCH_METRICS_URL, default the API's METRICS_PORT)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomInt, randomUUID } from 'node:crypto';
import { loadConfig } from '../runtime/config';
import { convertToUzs } from '../core/ledger/currency';
import { createSequelize, inlineStatement, selectRows, withTenant } from '../db/connection';
import { companyStatement } from '../db/repositories/organisation/companies';
import { companyChartPageStatement } from '../db/repositories/accounting/chart-of-accounts';
import { auditEventStatement } from '../db/repositories/audit/events';
import { postJournalEntryStatement, postingContextStatement } from '../db/repositories/ledger/journal';
import { subscribedStatement } from '../db/repositories/webhooks/events';
import { BASE, CONCURRENCY, SECONDS, post, requireRunningApi } from './harness';
import { ensureWrk, wrk, type WrkResult } from './http';
import { POSTING_DATE, cbuRatesInForce, pgbenchPosting, storeCbuRates, workspace, wrkPosting, type Workspace } from './ledger';
import { measureRevaluation } from './revaluation';
import { measureCompletions } from './workflow-completions';
import { closeMonthly, measureReports } from './reports';
import { apiPid, loadLines, measureExports, readsDuringExports } from './exports';
import { signedMs, stepComparison } from './workflows';
import { clusterScaling } from './cluster';
import { AGING_AS_OF, measureAging, measureInvoicePosting, type AgingResult } from './documents';
import { measureVatRegister } from './vat-register';
import { measureBankImport } from './bank-import';
import { measureFixedAssetClose } from './fixed-assets';
import { measureOverview } from './overview';

const STEPS = Number(process.env.BENCH_STEPS ?? 10);
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 200);
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
/** The API's metrics listener (its own port, METRICS_PORT), not the API's port. */
const METRICS_URL = process.env.BENCH_METRICS_URL ?? `http://127.0.0.1:${config.metricsPort}/metrics`;

const pct = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

interface Row {
  row: string;
  measured: string;
  floor: string;
  ratio: string;
  target: string;
}
const rows: Row[] = [];
const show = (title: string) => {
  console.log(`\n${title}`);
  console.table(rows.splice(0));
};

function wrkRow(r: WrkResult): string {
  return `${Math.round(r.perSecond)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''}`;
}

function entriesRow(r: WrkResult): string {
  return `${Math.round(r.perSecond)} entries/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''}`;
}

/** Prometheus' event-loop p99 since the previous scrape (prom-client resets the histogram on each). */
async function eventLoopP99Ms(): Promise<number> {
  // A kept-alive socket the server closed while idle fails before the request is sent: send it once more.
  const get = () => fetch(METRICS_URL);
  const text = await (await get().catch(get)).text();
  const p99 = Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1]);
  // The monitor samples every 10 ms and reports whole intervals: the lag is what exceeds the interval.
  return Math.max(0, Math.round((p99 - 0.01) * 1000 * 10) / 10);
}

async function reads(bin: string, ws: Workspace): Promise<void> {
  const floor = await wrk(bin, '/healthz');
  const me = await wrk(bin, '/api/v1/me', auth(ws.accessToken));
  const list = await wrk(bin, `/api/v1/accounting-settings/${ws.legalEntityId}/accounts?size=50`, auth(ws.accessToken));
  rows.push(
    { row: 'GET /healthz (floor: Express, logging, no database)', measured: wrkRow(floor), floor: '', ratio: '100%', target: '' },
    { row: 'GET /api/v1/me', measured: wrkRow(me), floor: `${Math.round(floor.perSecond)}`, ratio: pct(me.perSecond, floor.perSecond), target: '≥ 70%' },
    {
      row: 'GET /accounting-settings/{id}/accounts?size=50',
      measured: wrkRow(list),
      floor: `${Math.round(floor.perSecond)}`,
      ratio: pct(list.perSecond, floor.perSecond),
      target: '≥ 60%, p99 ≤ 60 ms',
    },
  );
  show(`1. Reads: wrk -t2 -c${CONCURRENCY} -d${SECONDS}s against ${BASE}`);
}

/** The principal lookup of a request with the workspace's token, as the API sends it. */
async function principalSql(db: ReturnType<typeof createSequelize>, ws: Workspace, permission: string): Promise<{ sql: string; membershipId: string }> {
  const claims = JSON.parse(Buffer.from(ws.accessToken.split('.')[1]!, 'base64url').toString()) as { tenant_id: string; sid: string };
  const [session] = await withTenant(db, ws.tenantId, (tx) =>
    selectRows<{ membership_id: string }>(tx, 'SELECT membership_id FROM sessions WHERE id = :sid', { sid: claims.sid }),
  );
  const replacements = { t: claims.tenant_id, s: claims.sid, m: session!.membership_id, p: permission };
  return { sql: inlineStatement(db, { sql: 'SELECT * FROM app_load_principal(:t, :s, :m, :p)', replacements }), membershipId: session!.membership_id };
}

/** Runs a pgbench script of `statements` (one transaction each time) and returns its tx/s. */
function pgbench(statements: string[], mode: 'simple' | 'prepared', clients = CONCURRENCY): number {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pgbench-request-')), 'request.sql');
  writeFileSync(file, `${statements.map((s) => (s.startsWith('\\') ? s : `${s.replace(/\s+/g, ' ').trim()};`)).join('\n')}\n`);
  const out = execFileSync('pgbench', ['-n', '-M', mode, '-c', String(clients), '-j', '2', '-T', String(SECONDS), '-f', file, config.database.url], { encoding: 'utf8' });
  return Number(/tps = ([0-9.]+)/.exec(out)?.[1]);
}

/** The list request's SQL as the API sends it: the principal lookup, then the read-only transaction. */
async function listSql(ws: Workspace): Promise<void> {
  const db = createSequelize(config.database.url, { poolMax: 1 });
  const scope = { tenantId: ws.tenantId, legalEntityId: ws.legalEntityId };
  const script = [
    (await principalSql(db, ws, 'listCompanyAccounts')).sql,
    'START TRANSACTION READ ONLY',
    `SELECT set_config('app.tenant_id', '${ws.tenantId}', true)`,
    inlineStatement(db, companyStatement(scope)),
    inlineStatement(db, companyChartPageStatement(scope, { q: '', type: null, header: null, limit: 50, offset: 0 })),
    'COMMIT',
  ];
  await db.close();
  const simple = pgbench(script, 'simple');
  const prepared = pgbench(script, 'prepared');
  rows.push(
    { row: 'pgbench of the list request SQL, simple protocol', measured: `${Math.round(simple)} tx/s`, floor: '', ratio: '', target: '' },
    { row: 'the same, prepared statements', measured: `${Math.round(prepared)} tx/s`, floor: `${Math.round(simple)}`, ratio: pct(prepared, simple), target: '' },
  );
  show(`2. The account list's SQL in pgbench (${CONCURRENCY} clients, ${SECONDS}s)`);
}

/**
 * A posting request's whole SQL as the API sends it: the principal lookup, the opening with the posting
 * checks, the audit event with the posting, COMMIT. Each transaction gets its own requestId and entry id.
 */
const NO_CURRENCY = { currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null };

async function postingRequestSql(ws: Workspace): Promise<string[]> {
  const db = createSequelize(config.database.url, { poolMax: 1 });
  const scope = { tenantId: ws.tenantId, legalEntityId: ws.legalEntityId };
  const principal = await principalSql(db, ws, 'postJournalEntry');
  const requestId = randomUUID();
  const entryId = randomUUID();
  const lines = [
    { lineNo: 1, accountCode: '5110', subaccountId: null, debit: '12.34', credit: '0', memo: null, ...NO_CURRENCY },
    { lineNo: 2, accountCode: '9010', subaccountId: null, debit: '0', credit: '12.34', memo: null, ...NO_CURRENCY },
  ];
  const audit = auditEventStatement(scope, {
    action: 'ledger.entry.posted', actorMembershipId: principal.membershipId, systemActor: false, correlationId: randomUUID(),
    subjectType: 'JOURNAL_ENTRY', subjectId: entryId, ipAddress: null, details: 'dated 2026-01-15, 2 lines, total 12.34',
  });
  const entry = {
    id: entryId, entryDate: '2026-01-15', description: 'Benchmark sale', reference: null, requestId, requestHash: 'bench', reversalOf: null,
    total: '12.34', postedByMembershipId: principal.membershipId, correlationId: randomUUID(),
  };
  // As the API sends them: four round trips (pgbench's backslash-semicolon joins statements into one message),
  // the principal, the opening with the posting's checks and the webhook subscription, the audit event with
  // the writes (the workspace has no webhook endpoint: no event statement), COMMIT.
  const script = [
    principal.sql,
    [
      'START TRANSACTION',
      `SELECT set_config('app.tenant_id', '${ws.tenantId}', true)`,
      inlineStatement(db, postingContextStatement(scope, { requestId, codes: ['5110', '9010'], subaccountIds: [], currencies: [], entryDate: '2026-01-15' })),
      inlineStatement(db, subscribedStatement(scope, 'journal-entry.posted')),
    ].join(' \\; '),
    [inlineStatement(db, audit.statement), inlineStatement(db, postJournalEntryStatement(scope, entry, lines))].join(' \\; '),
    'COMMIT',
  ];
  await db.close();
  // pgbench fills :r in anew for each transaction: the ids below become unique per transaction.
  return ['\\set r random(1, 1000000000000)', ...script.map((s) => s.replaceAll(`'${requestId}'`, "md5(':r')::uuid").replaceAll(`'${entryId}'`, "md5(':r' || 'e')::uuid").replaceAll(`'${audit.id}'`, "md5(':r' || 'a')::uuid"))];
}

async function posting(): Promise<void> {
  const one = await workspace();
  const eight = await Promise.all(Array.from({ length: 8 }, () => workspace()));
  const http1 = await wrkPosting([one]);
  const http8 = await wrkPosting(eight);
  const raw1 = pgbenchPosting([await workspace()]);
  const raw8 = pgbenchPosting(await Promise.all(Array.from({ length: 8 }, () => workspace())));
  const whole = pgbench(await postingRequestSql(await workspace()), 'simple');
  rows.push(
    { row: 'POST /ledger/{id}/entries (2 lines, wrk), one company', measured: entriesRow(http1), floor: `pgbench ${Math.round(raw1.tps)}`, ratio: pct(http1.perSecond, raw1.tps), target: '≥ 60%, p99 ≤ 150 ms' },
    { row: 'the same over 8 companies', measured: entriesRow(http8), floor: `pgbench ${Math.round(raw8.tps)}`, ratio: pct(http8.perSecond, raw8.tps), target: '≥ 50%' },
    { row: "pgbench of the request's whole SQL (principal, checks, writes)", measured: `${Math.round(whole)} tx/s`, floor: `${Math.round(raw1.tps)}`, ratio: pct(whole, raw1.tps), target: '≥ 80%' },
    { row: 'the HTTP posting against that', measured: `${Math.round(http1.perSecond)} entries/s`, floor: `${Math.round(whole)}`, ratio: pct(http1.perSecond, whole), target: '' },
  );
  show(`3. Posting beside pgbench of the same writes (audit event, counter, entry, lines; app role, RLS), ${CONCURRENCY} clients`);
}

/**
 * The same two-line entry posted in UZS (5110/9010) and with its debit in USD at the stored CBU rate
 * (5210 USD/9010), two runs each into fresh companies: the foreign line adds the rate lookup with the
 * posting checks, the conversion check and five more columns. The USD rate of the posting date is stored
 * first (a rate already stored for that date stays, and is the one used).
 */
async function foreignPosting(): Promise<void> {
  await storeCbuRates([{ date: POSTING_DATE, currency: 'USD', name: 'US Dollar', rate: '12850.12' }]);
  const usd = (await cbuRatesInForce(['USD'], POSTING_DATE)).get('USD');
  if (!usd) throw new Error(`no CBU rate for USD on or before ${POSTING_DATE} after storing one`);
  const amounts = Array.from({ length: 1000 }, () => {
    const amount = `${randomInt(1, 10001)}.${String(randomInt(100)).padStart(2, '0')}`;
    return { amount, uzs: convertToUzs(amount, usd.rate)! };
  });
  const foreign = { accountCode: '5210', currency: 'USD', amounts };
  // One request first: a refused foreign line would otherwise only show as wrk's error count.
  const probe = await workspace();
  const { amount, uzs } = amounts[0]!;
  const res = await post(
    `/api/v1/ledger/${probe.legalEntityId}/entries`,
    {
      requestId: randomUUID(),
      entryDate: POSTING_DATE,
      description: 'Benchmark sale',
      lines: [
        { accountCode: '5210', debit: uzs, credit: '0', currency: 'USD', currencyAmount: amount, rateSource: 'CBU' },
        { accountCode: '9010', debit: '0', credit: uzs },
      ],
    },
    auth(probe.accessToken),
  );
  if (res.status !== 201) throw new Error(`a USD posting answered ${res.status}: ${await res.text()}`);
  // UZS, USD, USD, UZS, each into a fresh company: a drift of this shared machine during the runs weighs on
  // both alike.
  const uzsFirst = await wrkPosting([await workspace()]);
  const usdFirst = await wrkPosting([await workspace()], foreign);
  const usdSecond = await wrkPosting([await workspace()], foreign);
  const uzsSecond = await wrkPosting([await workspace()]);
  const both = (a: WrkResult, b: WrkResult) => {
    const errors = a.errors + b.errors;
    return {
      perSecond: (a.perSecond + b.perSecond) / 2,
      text: `${Math.round((a.perSecond + b.perSecond) / 2)} entries/s (${Math.round(a.perSecond)}, ${Math.round(b.perSecond)}), p50 ${a.p50} / ${b.p50} ms, p99 ${a.p99} / ${b.p99} ms${errors ? `, ${errors} errors` : ''}`,
    };
  };
  const inUzs = both(uzsFirst, uzsSecond);
  const inUsd = both(usdFirst, usdSecond);
  rows.push(
    { row: 'POST /ledger/{id}/entries, 2 UZS lines (5110/9010), one company, 2 runs', measured: inUzs.text, floor: '', ratio: '100%', target: '' },
    {
      row: `the same with the debit in USD at the CBU rate (5210 USD/9010; ${usd.rate}, ${usd.rateDate})`,
      measured: inUsd.text,
      floor: `${Math.round(inUzs.perSecond)}`,
      ratio: pct(inUsd.perSecond, inUzs.perSecond),
      target: 'reported',
    },
  );
  show(`4. Posting with a foreign line beside the same posting in UZS (wrk -t2 -c${CONCURRENCY} -d${SECONDS}s each; runs in the order UZS, USD, USD, UZS)`);
}

async function stepUps(): Promise<void> {
  // Each sample is a fresh session's step-up, so no code is reused and no attempt window fills.
  const { totpP50: p50t, emailP50: p50e, samples } = await stepComparison(STEPS);
  const completions = await measureCompletions(WORKFLOWS, 16);
  rows.push(
    { row: 'step-up, authenticator code (checked in the API)', measured: `p50 ${p50t.toFixed(1)} ms (${samples} samples)`, floor: '', ratio: '', target: '' },
    {
      row: 'step-up, email code (Temporal update to the challenge workflow)',
      measured: `p50 ${p50e.toFixed(1)} ms (${samples} samples)`,
      floor: `${p50t.toFixed(1)} ms`,
      ratio: signedMs(p50e - p50t),
      target: '≤ +25 ms',
    },
    {
      row: `requestMagicLinkWorkflow runs, ${completions.workflows} from 16 clients`,
      measured: `${((completions.workflows / completions.done) * 1000).toFixed(1)} completions/s`,
      floor: `${Math.round((completions.workflows / completions.answered) * 1000)} requests/s`,
      ratio: '',
      target: '≥ 50/s',
    },
  );
  show(`5. A workflow-backed step beside the same step without Temporal; workflow completions (Temporal at ${completions.address})`);
}

async function underHashing(bin: string, ws: Workspace): Promise<void> {
  const list = `/api/v1/accounting-settings/${ws.legalEntityId}/accounts?size=50`;
  await eventLoopP99Ms();
  const idle = await wrk(bin, list, auth(ws.accessToken));
  const idleLag = await eventLoopP99Ms();
  let stop = false;
  let logins = 0;
  const statuses = new Map<number, number>();
  const clients = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const res = await post('/api/v1/auth/login', { email: `nobody-${randomUUID().slice(0, 8)}@example.com`, password: 'not a password of anyone here' });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 401) logins++;
      else if (res.status === 503) await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
    }
  });
  await new Promise((r) => setTimeout(r, 2000)); // let the hashing reach its steady state
  // Hashing alone: its capacity, and what it does to the event loop.
  await eventLoopP99Ms();
  const alone0 = performance.now();
  const aloneBefore = logins;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const aloneLoginsPerSecond = ((logins - aloneBefore) / (performance.now() - alone0)) * 1000;
  const aloneLag = await eventLoopP99Ms();
  const t0 = performance.now();
  const loginsBefore = logins;
  const loaded = await wrk(bin, list, auth(ws.accessToken));
  const loginsPerSecond = ((logins - loginsBefore) / (performance.now() - t0)) * 1000;
  const loadedLag = await eventLoopP99Ms();
  stop = true;
  await Promise.all(clients);
  if (!statuses.has(401)) throw new Error(`the logins were not checked: ${JSON.stringify([...statuses])}`);
  rows.push(
    { row: 'account list, idle', measured: wrkRow(idle), floor: '', ratio: '100%', target: '' },
    {
      row: 'account list while 4 clients send logins of unknown emails',
      measured: wrkRow(loaded),
      floor: `${Math.round(idle.perSecond)}`,
      ratio: pct(loaded.perSecond, idle.perSecond),
      target: '≥ 85%',
    },
    {
      row: 'logins checked (Argon2id, 19 MiB, t=2) during that',
      measured: `${loginsPerSecond.toFixed(1)} logins/s; answers ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`,
      floor: '',
      ratio: '',
      target: 'reported',
    },
    { row: 'logins alone (no reads)', measured: `${aloneLoginsPerSecond.toFixed(1)} logins/s`, floor: '', ratio: '', target: '≥ 25/s' },
    { row: 'event-loop lag p99 while only hashing', measured: `${aloneLag} ms`, floor: '', ratio: '', target: '< 20 ms' },
    { row: 'event-loop lag p99, reads idle → reads under hashing', measured: `${idleLag} ms → ${loadedLag} ms`, floor: '', ratio: '', target: '' },
  );
  show('6. Reads while password hashing is saturated');
}

async function revaluation(): Promise<void> {
  const r = await measureRevaluation();
  rows.push(
    { row: `trial balance over ${r.lines} foreign lines (USD, EUR)`, measured: `${r.trialBalanceMs} ms`, floor: '', ratio: '', target: '' },
    {
      row: 'revaluation of the same balances (request → COMPLETED)',
      measured: `${r.revaluationSeconds.toFixed(2)} s, ${r.adjusted} balances adjusted`,
      floor: `${r.trialBalanceMs} ms`,
      ratio: `${((r.revaluationSeconds * 1000) / r.trialBalanceMs).toFixed(1)}×`,
      target: 'reported',
    },
  );
  show(`7. Revaluation beside a trial balance of the same foreign lines (loaded in ${r.loadSeconds.toFixed(1)} s)`);
}

const REPORT_LINES = Number(process.env.BENCH_REPORT_LINES ?? 1_000_000);
const EXPORT_FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'csv').split(',').map((f) => f.trim()).filter(Boolean);

/**
 * One company with REPORT_LINES lines over 2024, closed monthly through November when section 8 runs (the
 * exports of section 9 read it closed or not): sections 8 and 9 read it.
 */
async function monthEndCompany(close: boolean): Promise<{ ws: Workspace; loadSeconds: number; closeSeconds: number }> {
  const ws = await workspace();
  const loadSeconds = await loadLines(ws, REPORT_LINES);
  const closeSeconds = close ? await closeMonthly(ws) : 0;
  return { ws, loadSeconds, closeSeconds };
}

async function reports(company: { ws: Workspace; loadSeconds: number; closeSeconds: number }): Promise<void> {
  const { statementLines, timings } = await measureReports(company.ws);
  const floor = timings[0]!;
  const targets: Record<string, string> = {
    'turnover sheet, November': '≤ 200 ms and ≤ 3×',
    'account statement 5110, November, page 1 of 50': '≤ 200 ms and ≤ 3×',
    'account statement 5110, November, last page': '≤ 200 ms and ≤ 3×',
    'Form 1 at 2024-11-30': '≤ 300 ms',
  };
  for (const t of timings.slice(1)) {
    rows.push({ row: t.report, measured: `p50 ${t.p50} ms, p95 ${t.p95} ms`, floor: `${floor.p95} ms`, ratio: `${t.ratio}×`, target: targets[t.report] ?? 'reported' });
  }
  show(
    `8. Month-end reports over ${REPORT_LINES} lines (loaded in ${company.loadSeconds.toFixed(0)} s, closed monthly in ${company.closeSeconds.toFixed(0)} s; ` +
      `5110 has ${statementLines} lines in November), p95 beside the trial balance's`,
  );
}

async function journalExports(company: { ws: Workspace }): Promise<void> {
  for (const r of await measureExports(company.ws, apiPid(), REPORT_LINES, EXPORT_FORMATS)) {
    rows.push({
      row: `journal of 2024 as ${r.format}`,
      measured: `${Math.round(r.lines / r.seconds)} lines/s, ${Math.round(r.bytes / 1024 / 1024)} MiB in ${r.seconds.toFixed(1)} s`,
      floor: '',
      ratio: `API RSS ${r.rssBefore} → peak ${r.rssPeakSampled} MiB`,
      target: r.format === 'csv' ? '≥ 50,000 lines/s, RSS < 200 MiB' : 'reported',
    });
  }
  show(`9. A year of the journal (${REPORT_LINES} lines) exported through the API`);

  // What one workspace's export costs another's requests: its GET /me beside the same idle.
  const { idle, during } = await readsDuringExports(company.ws, await workspace(), ['xlsx', 'csv']);
  const latency = (l: { p50: number; p99: number; max: number; samples: number }) => `p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms (${l.samples} requests)`;
  rows.push({ row: 'GET /me of another workspace, idle', measured: latency(idle), floor: '', ratio: '1×', target: '' });
  for (const d of during) {
    rows.push({
      row: `the same while the journal exports as ${d.format} (${Math.round(d.bytes / 1024 / 1024)} MiB in ${d.seconds.toFixed(1)} s)`,
      measured: latency(d.reads),
      floor: `p99 ${idle.p99} ms`,
      ratio: `${(d.reads.p99 / idle.p99).toFixed(1)}×`,
      target: '≤ 2×',
    });
  }
  show(`9b. Another workspace's GET /me (one at a time, every 10 ms at most) while one workspace exports ${REPORT_LINES} journal lines`);
}

async function invoicePosting(): Promise<void> {
  const r = await measureInvoicePosting();
  const both = (runs: [WrkResult, WrkResult]) => {
    const [a, b] = runs;
    const errors = a.errors + b.errors;
    return {
      perSecond: (a.perSecond + b.perSecond) / 2,
      text: `${Math.round((a.perSecond + b.perSecond) / 2)} req/s (${Math.round(a.perSecond)}, ${Math.round(b.perSecond)}), p99 ${a.p99} / ${b.p99} ms, p50 ${a.p50} / ${b.p50} ms${errors ? `, ${errors} errors` : ''}`,
    };
  };
  const entries = both(r.entries);
  const invoices = both(r.invoices);
  const shape = r.lines.map((l) => `${l.debit !== '0.00' ? 'Dr' : 'Cr'} ${l.accountCode}`).join(' / ');
  rows.push(
    { row: `POST /ledger/{id}/entries, the invoice's entry (${shape}), one company, 2 runs`, measured: entries.text, floor: '', ratio: '100%', target: '' },
    {
      row: `POST /invoices/{id}/{invoiceId}/posting, a draft of 5 lines (${r.drafts} drafts a run), one company, 2 runs`,
      measured: invoices.text,
      floor: `${Math.round(entries.perSecond)}`,
      ratio: pct(invoices.perSecond, entries.perSecond),
      target: '≥ 70%',
    },
  );
  show(`11. Posting an invoice beside posting its entry directly (wrk -t2 -c${CONCURRENCY} -d${SECONDS}s each; runs in the order entry, invoice, invoice, entry)`);
}

async function aging(): Promise<void> {
  const r = await measureAging();
  const beside = (what: string, x: AgingResult['kept']) => ({
    row: what,
    measured: `p50 ${x.aging.p50} ms, p95 ${x.aging.p95} ms`,
    floor: `${x.trialBalance.p95} ms`,
    ratio: `${(x.aging.p95 / x.trialBalance.p95).toFixed(2)}×`,
    target: 'p95 ≤ 200 ms and ≤ 3×',
  });
  rows.push(
    { row: `trial balance at ${AGING_AS_OF} (floor)`, measured: `p50 ${r.kept.trialBalance.p50} ms, p95 ${r.kept.trialBalance.p95} ms`, floor: '', ratio: '1×', target: '' },
    { row: 'aging, first request (builds the kept aging)', measured: `${r.firstMs} ms`, floor: '', ratio: '', target: '' },
    beside(`aging of receivables at ${AGING_AS_OF} (${r.items} rows), kept`, r.kept),
    beside(`aging, ${r.changed} customers changed since kept`, r.patched),
  );
  show(
    `12. The aging over ${r.invoices} open invoices of ${r.counterparties} customers (loaded in ${r.loadSeconds.toFixed(0)} s), ` +
      "p95 beside the trial balance's, one request at a time; each answer ties to 4010 and 6310",
  );
}

async function vatRegister(): Promise<void> {
  const r = await measureVatRegister();
  const floor = r.timings[0]!;
  rows.push({ row: floor.report, measured: `p50 ${floor.p50} ms, p95 ${floor.p95} ms`, floor: '', ratio: '1×', target: '' });
  for (const t of r.timings.slice(1)) {
    rows.push({ row: `${t.report} (${t.rows} rows)`, measured: `p50 ${t.p50} ms, p95 ${t.p95} ms`, floor: `${floor.p95} ms`, ratio: `${t.ratio}×`, target: t.report.includes('CSV') ? 'reported' : 'p95 ≤ 300 ms' });
  }
  show(
    `13. The VAT register of November, ${r.invoices} sales and ${Math.floor(r.invoices / 4)} purchase invoices a month over ${r.months} months ` +
      `(loaded in ${r.loadSeconds.toFixed(0)} s), p95 beside the trial balance's; each JSON answer ties to ledgerVat`,
  );
}

async function bankImport(): Promise<void> {
  const runs = await measureBankImport();
  for (const r of runs) {
    rows.push({
      row: `import of a ${r.lines}-line 1C statement (${(r.bytes / 1024 / 1024).toFixed(1)} MiB) against ${r.invoices} open invoices, ${r.proposed} proposed`,
      measured: `${r.seconds.toFixed(1)} s to COMPLETED; API +${r.apiPeakMiB} MiB, worker +${r.workerPeakMiB} MiB peak`,
      floor: `parse alone ${r.parseSeconds.toFixed(2)} s`,
      ratio: `${(r.seconds / r.parseSeconds).toFixed(0)}×`,
      target: r === runs.at(-1) ? '≤ 30 s, memory flat in the file' : '',
    });
  }
  show('14. A bank statement imported and matched (workflow bank-import-<account>-<sha256>), time to COMPLETED and peak memory above idle, at two sizes');
}

async function fixedAssetClose(): Promise<void> {
  const r = await measureFixedAssetClose();
  rows.push({ row: 'close of a month, a company without assets (request → COMPLETED)', measured: `${r.emptyCloseSeconds.toFixed(2)} s`, floor: '', ratio: '1×', target: '' });
  rows.push({
    row: `close of a month, ${r.assets} assets in service (one DEPRECIATION entry of ${r.lines} lines)`,
    measured: `${r.closeSeconds.toFixed(2)} s; the depreciation step ${r.stepSeconds.toFixed(2)} s`,
    floor: `${r.emptyCloseSeconds.toFixed(2)} s`,
    ratio: `+${(r.closeSeconds - r.emptyCloseSeconds).toFixed(2)} s`,
    target: 'the step adds ≤ 2 s',
  });
  show(`15. The month-end close with fixed assets (child workflow depreciation-<company>-<date>), beside the close of a company without assets`);
}

async function companyOverview(): Promise<void> {
  const r = await measureOverview();
  rows.push(
    { row: 'trial balance at the year end (floor)', measured: `p50 ${r.trialBalance.p50} ms, p95 ${r.trialBalance.p95} ms`, floor: '', ratio: '1×', target: '' },
    {
      row: `company overview (${r.lines} lines, ${r.invoices} invoices)`,
      measured: `p50 ${r.overview.p50} ms, p95 ${r.overview.p95} ms`,
      floor: `${r.trialBalance.p95} ms`,
      ratio: `${(r.overview.p95 / r.trialBalance.p95).toFixed(2)}×`,
      target: 'p95 ≤ 300 ms',
    },
  );
  show(`16. The company overview over a year of journal lines and the aging's invoices (loaded in ${r.loadSeconds.toFixed(0)} s), one request at a time`);
}

async function main(): Promise<void> {
  await requireRunningApi();
  const bin = ensureWrk();
  console.log(`Benchmarks against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  const ws = await workspace();
  const only = (process.env.BENCH_ONLY ?? 'reads,sql,posting,foreign,steps,hashing,revaluation,reports,exports,cluster,invoice-posting,aging,vat-register,bank-import,fixed-assets,overview').split(',');
  // Sections 8 and 9 run first, on the API as it started: an export's memory is then its own, not what the
  // other sections' load left in the process (password hashing's native memory, the heap of 32 connections).
  if (only.includes('reports') || only.includes('exports')) {
    const company = await monthEndCompany(only.includes('reports'));
    if (only.includes('reports')) await reports(company);
    if (only.includes('exports')) await journalExports(company);
  }
  if (only.includes('reads')) await reads(bin, ws);
  if (only.includes('sql')) await listSql(ws);
  if (only.includes('posting')) await posting();
  if (only.includes('foreign')) await foreignPosting();
  if (only.includes('steps')) await stepUps();
  if (only.includes('hashing')) await underHashing(bin, ws);
  if (only.includes('revaluation')) await revaluation();
  if (only.includes('invoice-posting')) await invoicePosting();
  if (only.includes('aging')) await aging();
  if (only.includes('vat-register')) await vatRegister();
  if (only.includes('bank-import')) await bankImport();
  if (only.includes('fixed-assets')) await fixedAssetClose();
  if (only.includes('overview')) await companyOverview();
  if (only.includes('cluster')) await clusterScaling(bin);
}

main().catch((err) => {
  console.error(err instanceof Error ? `${err.stack}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
  process.exit(1);
});
