// Documents against a running API (`npm start`) and its database:
//   npm run bench:documents   (BENCH_URL, BENCH_SECONDS=10, BENCH_CONCURRENCY=32, BENCH_DOCUMENTS=posting,aging,
//                              BENCH_AGING_INVOICES=100000, BENCH_AGING_COUNTERPARTIES=5000, BENCH_AGING_SAMPLES=40)
// 1. Posting a SALES invoice of five lines (postInvoice of drafts prepared beforehand, with wrk) beside posting
//    the entry it writes (Dr 4010 gross with the customer / Cr 9020 net / Cr 6410 VAT) with postJournalEntry,
//    two runs each into fresh companies, in the order entry, invoice, invoice, entry. The drafts are copies, made
//    in the database, of one draft created through the API; the entry's lines are read from the entry that
//    posting that draft's twin wrote. A request after the drafts ran out would post nothing: it asks for an
//    invoice that is not there and counts as an error.
// 2. The aging of receivables (getAgingReport, RECEIVABLE) over BENCH_AGING_INVOICES open SALES invoices of
//    BENCH_AGING_COUNTERPARTIES customers, beside the trial balance of the same company and day, one request
//    at a time, interleaved, after a round of warm-up. The company is loaded straight into the database as
//    posting and payments leave it: the customers; the invoices (one to three lines at 12 % or exempt, due 0
//    to 60 days after their date, over the second half of 2024) with their entries (Dr 4010 gross with the
//    customer / Cr 9020 net / Cr 6410 VAT), posted and numbered from the company's series; one payment in five
//    invoices, partly allocated to it (a fifth of them with an advance left over: Dr 5110 / Cr 4010 allocated
//    / Cr 6310 rest, both naming the customer); 1 % as many manual entries on 4010 (a tenth with no customer).
//    Each aging answer is checked against the trial balance: its outstanding total is the balance of 4010,
//    its advances that of 6310. The first aging request builds the kept aging (timed apart); then
//    BENCH_AGING_SAMPLES of the kept aging; then BENCH_AGING_CHANGED=100 customers pay through the API and as
//    many samples again of the kept aging patched with them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { QueryTypes, type Transaction } from 'sequelize';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { BASE, SECONDS, percentile, post, requireRunningApi } from './harness';
import { ensureWrk, wrk, type WrkResult } from './http';
import { POSTING_DATE, signedInAgain, workspace, type Workspace } from './ledger';

const AGING_INVOICES = Number(process.env.BENCH_AGING_INVOICES ?? 100_000);
const AGING_COUNTERPARTIES = Number(process.env.BENCH_AGING_COUNTERPARTIES ?? 5_000);
const AGING_SAMPLES = Number(process.env.BENCH_AGING_SAMPLES ?? 40);
const AGING_CHANGED = Number(process.env.BENCH_AGING_CHANGED ?? 100);
export const AGING_AS_OF = '2024-12-31';
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });

/** The five lines of the posted invoice: goods on 9020 (the default revenue account) at the company's 12 %. */
const INVOICE_LINES = [
  { description: 'Cement M400, 50 kg', quantity: '40', unitPrice: '62500.00' },
  { description: 'Rebar 12 mm, t', quantity: '1.250', unitPrice: '8450000.00' },
  { description: 'Sand, m3', quantity: '12', unitPrice: '95000.00' },
  { description: 'Delivery', quantity: '1', unitPrice: '350000.00' },
  { description: 'Pallets', quantity: '6', unitPrice: '45000.50' },
];

interface DocumentCompany extends Workspace {
  counterpartyId: string;
}

const auth = (ws: Workspace) => ({ authorization: `Bearer ${ws.accessToken}` });

async function call<T>(ws: Workspace, method: string, url: string, body: unknown, expected: number): Promise<T> {
  const res =
    method === 'POST'
      ? await post(url, body, auth(ws))
      : await fetch(`${BASE}${url}`, { method, headers: { ...auth(ws), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** A fresh workspace with its accounting settings saved (GENERAL, 12 %) and one customer. */
async function documentCompany(): Promise<DocumentCompany> {
  const ws = await workspace();
  const settings = `/api/v1/accounting-settings/${ws.legalEntityId}`;
  const { version } = await call<{ version: number }>(ws, 'GET', settings, undefined, 200);
  await call(ws, 'PUT', settings, { depreciationMethod: 'STRAIGHT_LINE', inventoryValuationMethod: 'FIFO', taxRegime: 'GENERAL', vatRate: 12, expectedVersion: version }, 200);
  const customer = await call<{ id: string }>(ws, 'POST', `/api/v1/counterparties/${ws.legalEntityId}`, { name: 'Qurilish Savdo MChJ', tin: '301234567', paymentTermsDays: 30 }, 201);
  return { ...ws, counterpartyId: customer.id };
}

const draftOf = (company: DocumentCompany) => call<{ id: string }>(company, 'POST', `/api/v1/invoices/${company.legalEntityId}`, { kind: 'SALES', date: POSTING_DATE, counterpartyId: company.counterpartyId, lines: INVOICE_LINES }, 201);

interface EntryLine {
  accountCode: string;
  counterpartyId: string | null;
  debit: string;
  credit: string;
}

/** The lines of the entry postInvoice writes for the five-line draft, read from one it posted in `company`. */
async function invoiceEntryLines(company: DocumentCompany): Promise<EntryLine[]> {
  const draft = await draftOf(company);
  const posted = await call<{ entryId: string }>(company, 'POST', `/api/v1/invoices/${company.legalEntityId}/${draft.id}/posting`, undefined, 200);
  const entry = await call<{ lines: EntryLine[] }>(company, 'GET', `/api/v1/ledger/${company.legalEntityId}/entries/${posted.entryId}`, undefined, 200);
  return entry.lines.map(({ accountCode, counterpartyId, debit, credit }) => ({ accountCode, counterpartyId, debit, credit }));
}

/** Runs `work` in one transaction of the owner role, in the workspace's tenant (row-level security is forced on the owner too). */
export async function inTenant<T>(ws: Workspace, work: (run: (sql: string, extra?: Record<string, unknown>) => Promise<Array<Record<string, unknown>>>) => Promise<T>): Promise<T> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    return await owner.transaction(async (tx: Transaction) => {
      const run = (sql: string, extra: Record<string, unknown> = {}) =>
        owner.query<Record<string, unknown>>(sql.replace(/:t\b/g, 'CAST(:t AS uuid)').replace(/:le\b/g, 'CAST(:le AS uuid)'), {
          replacements: { t: ws.tenantId, le: ws.legalEntityId, ...extra },
          type: QueryTypes.SELECT,
          transaction: tx,
        });
      await run(`SELECT set_config('app.tenant_id', CAST(:t AS text), true)`);
      return work(run);
    });
  } finally {
    await owner.close();
  }
}

/** `n` copies of a draft (its row and lines, each with a new id), as createInvoice would have written them; their ids. */
async function copiesOfDraft(ws: Workspace, draftId: string, n: number): Promise<string[]> {
  return inTenant(ws, async (run) => {
    await run('CREATE TEMP TABLE copies ON COMMIT DROP AS SELECT gen_random_uuid() AS id FROM generate_series(1, :n)', { n });
    await run(
      `INSERT INTO invoices SELECT (jsonb_populate_record(i, jsonb_build_object('id', c.id))).*
         FROM invoices i, copies c WHERE i.tenant_id = :t AND i.id = CAST(:draft AS uuid) AND i.status = 'DRAFT'`,
      { draft: draftId },
    );
    await run(
      `INSERT INTO invoice_lines SELECT (jsonb_populate_record(l, jsonb_build_object('invoice_id', c.id))).*
         FROM invoice_lines l, copies c WHERE l.tenant_id = :t AND l.invoice_id = CAST(:draft AS uuid)`,
      { draft: draftId },
    );
    const rows = await run('SELECT id FROM copies');
    return rows.map((r) => String(r.id));
  });
}

function luaScript(name: string, body: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), `wrk-${name}-`)), `${name}.lua`);
  writeFileSync(file, body);
  return file;
}

/** postJournalEntry of `lines` into the company with wrk, a fresh requestId each. */
async function wrkEntries(company: DocumentCompany, lines: EntryLine[]): Promise<WrkResult> {
  const json = JSON.stringify(lines.map((l) => ({ accountCode: l.accountCode, ...(l.counterpartyId ? { counterpartyId: l.counterpartyId } : {}), debit: l.debit, credit: l.credit })));
  const script = luaScript(
    'entries',
    `local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("seed", threads)
end
function init(args)
  math.randomseed(os.time() * 100 + seed)
end
local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%012x", math.random(0, 0xffffffff), math.random(0, 0xffff), math.random(0, 0xfff),
    0x8000 + math.random(0, 0x3fff), math.random(0, 0xffffffffffff))
end
local headers = { ["Authorization"] = "Bearer ${company.accessToken}", ["Content-Type"] = "application/json" }
function request()
  local body = '{"requestId":"' .. uuid() .. '","entryDate":"${POSTING_DATE}","description":"Sales invoice 2026-000001, Qurilish Savdo MChJ","reference":"2026-000001","lines":${json}}'
  return wrk.format("POST", "/api/v1/ledger/${company.legalEntityId}/entries", headers, body)
end
`,
  );
  return wrk(ensureWrk(), '/', {}, SECONDS, script);
}

/** postInvoice of the drafts with wrk, each once (wrk's two threads take alternate drafts); past the last, an unknown invoice (404). */
async function wrkInvoicePostings(company: DocumentCompany, drafts: string[]): Promise<WrkResult> {
  const halves = [drafts.filter((_, i) => i % 2 === 0), drafts.filter((_, i) => i % 2 === 1)];
  const script = luaScript(
    'invoices',
    `local drafts = {
  { ${halves[0]!.map((id) => `"${id}"`).join(', ')} },
  { ${halves[1]!.map((id) => `"${id}"`).join(', ')} },
}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("slot", threads)
end
local n = 0
local headers = { ["Authorization"] = "Bearer ${company.accessToken}" }
function request()
  n = n + 1
  local id = drafts[slot][n] or "${randomUUID()}"
  return wrk.format("POST", "/api/v1/invoices/${company.legalEntityId}/" .. id .. "/posting", headers)
end
`,
  );
  return wrk(ensureWrk(), '/', {}, SECONDS, script);
}

export interface InvoicePostingResult {
  entries: [WrkResult, WrkResult];
  invoices: [WrkResult, WrkResult];
  lines: EntryLine[];
  drafts: number;
}

/**
 * Invoice posting beside postJournalEntry of the same entry, two runs each into fresh companies (entry,
 * invoice, invoice, entry). Each invoice run gets 1.5 times as many drafts as the faster entry run posted
 * entries in its time (at least 500).
 */
export async function measureInvoicePosting(): Promise<InvoicePostingResult> {
  const entryCompany = async () => {
    const company = await documentCompany();
    return { company, lines: await invoiceEntryLines(company) };
  };
  const invoiceCompany = async (drafts: number) => {
    const company = await documentCompany();
    const draft = await draftOf(company);
    return { company, drafts: [draft.id, ...(await copiesOfDraft(company, draft.id, drafts - 1))] };
  };
  const first = await entryCompany();
  const entryFirst = await wrkEntries(first.company, first.lines);
  const drafts = Math.max(500, Math.ceil(entryFirst.perSecond * SECONDS * 1.5));
  const a = await invoiceCompany(drafts);
  const invoiceFirst = await wrkInvoicePostings(a.company, a.drafts);
  const b = await invoiceCompany(drafts);
  const invoiceSecond = await wrkInvoicePostings(b.company, b.drafts);
  const second = await entryCompany();
  const entrySecond = await wrkEntries(second.company, second.lines);
  return { entries: [entryFirst, entrySecond], invoices: [invoiceFirst, invoiceSecond], lines: first.lines, drafts };
}

/**
 * Loads the aging's company: customers, posted invoices with their lines and entries, payments with their
 * allocations and entries, manual entries on 4010; returns the seconds taken.
 */
export async function loadAging(ws: Workspace, invoices: number, counterparties: number): Promise<number> {
  const started = performance.now();
  const payments = Math.floor(invoices / 5);
  const manual = Math.max(1, Math.floor(invoices / 100));
  await inTenant(ws, async (run) => {
    await run(
      `INSERT INTO counterparties (tenant_id, id, legal_entity_id, name, tin, payment_terms_days, version)
       SELECT :t, gen_random_uuid(), :le, 'Customer ' || lpad(g::text, 5, '0'), (300000000 + g)::text, 30, 1 FROM generate_series(1, :n) g`,
      { n: counterparties },
    );
    await run(
      `CREATE TEMP TABLE customers ON COMMIT DROP AS
       SELECT row_number() OVER (ORDER BY id) AS k, id FROM counterparties WHERE tenant_id = :t AND legal_entity_id = :le`,
    );
    const [entries] = await run(
      `INSERT INTO ledger_states (tenant_id, legal_entity_id, next_entry_number) VALUES (:t, :le, :n + 1)
       ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = ledger_states.next_entry_number + :n
       RETURNING next_entry_number - :n AS first`,
      { n: invoices + payments + manual },
    );
    const firstEntry = Number(entries!.first);
    const [numbers] = await run(
      `INSERT INTO document_counters AS c (tenant_id, legal_entity_id, series, year, next_number) VALUES (:t, :le, 'SALES', 2024, :n + 1)
       ON CONFLICT (tenant_id, legal_entity_id, series, year) DO UPDATE SET next_number = c.next_number + :n
       RETURNING c.next_number - :n AS first`,
      { n: invoices },
    );
    // One row per invoice: its date (July to December 2024), due date, customer, entry and number, line count.
    await run(
      `CREATE TEMP TABLE bulk ON COMMIT DROP AS
       SELECT gen_random_uuid() AS id, gen_random_uuid() AS entry_id, g, d, d + (g % 5) * 15 AS due,
              CAST(:firstEntry AS bigint) + g - 1 AS entry_number, CAST(:firstNumber AS integer) + g - 1 AS sequence_number, 1 + g % 3 AS line_count,
              c.id AS counterparty_id
         FROM (SELECT g, DATE '2024-07-01' + (g * 7) % 184 AS d FROM generate_series(1, :n) g) s JOIN customers c ON c.k = 1 + g % :customers`,
      { n: invoices, firstEntry, firstNumber: Number(numbers!.first), customers: counterparties },
    );
    // Net amounts from 1.00 to 100,000.99; VAT half-up per line, as computeInvoice has it.
    await run(
      `CREATE TEMP TABLE bulk_lines ON COMMIT DROP AS
       SELECT id, line_no, vat_rate, net, coalesce(round(net * vat_rate / 100, 2), 0) AS vat
         FROM (SELECT b.id, l AS line_no, CASE (b.g + l) % 4 WHEN 0 THEN NULL ELSE 12 END AS vat_rate,
                      round((100 + (b.g * 7919 + l * 104729) % 10000000) / 100.0, 2) AS net
                 FROM bulk b, generate_series(1, b.line_count) l) lines`,
    );
    await run(
      `CREATE TEMP TABLE bulk_totals ON COMMIT DROP AS
       SELECT b.*, sum(l.net) AS net, sum(l.vat) AS vat, sum(l.net + l.vat) AS gross
         FROM bulk b JOIN bulk_lines l ON l.id = b.id GROUP BY b.id, b.entry_id, b.g, b.d, b.due, b.entry_number, b.sequence_number, b.line_count, b.counterparty_id`,
    );
    await run(
      `INSERT INTO invoices (tenant_id, id, legal_entity_id, kind, status, invoice_date, due_date, counterparty_id, currency, line_count, total_net, total_vat, total_gross, version)
       SELECT :t, id, :le, 'SALES', 'DRAFT', d, due, counterparty_id, 'UZS', line_count, net, vat, gross, 1 FROM bulk_totals`,
    );
    await run(
      `INSERT INTO invoice_lines (tenant_id, invoice_id, line_no, description, quantity, unit_price, account_code, vat_rate, net, vat, gross, net_uzs, vat_uzs)
       SELECT :t, id, line_no, 'Item ' || line_no, 1, net, '9020', vat_rate, net, vat, net + vat, net, vat FROM bulk_lines`,
    );
    await run(
      `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, reference, request_id, request_hash,
                                    total_debit, total_credit, line_count, correlation_id, source_type, source_id)
       SELECT :t, entry_id, :le, entry_number, d, 'Sales invoice 2024-' || lpad(sequence_number::text, 6, '0'), '2024-' || lpad(sequence_number::text, 6, '0'),
              gen_random_uuid(), 'bulk', gross, gross, CASE WHEN vat > 0 THEN 3 ELSE 2 END, gen_random_uuid(), 'INVOICE', id
         FROM bulk_totals`,
    );
    await run(
      `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, counterparty_id, debit, credit)
       SELECT :t, entry_id, entry_number, 1, :le, d, '4010', counterparty_id, gross, 0 FROM bulk_totals
       UNION ALL
       SELECT :t, entry_id, entry_number, 2, :le, d, '9020', NULL, 0, net FROM bulk_totals
       UNION ALL
       SELECT :t, entry_id, entry_number, 3, :le, d, '6410', NULL, 0, vat FROM bulk_totals WHERE vat > 0`,
    );
    await run(
      `UPDATE invoices i SET status = 'POSTED', number = '2024-' || lpad(b.sequence_number::text, 6, '0'), sequence_year = 2024, sequence_number = b.sequence_number,
              gross_uzs = b.gross, vat_uzs = b.vat, entry_id = b.entry_id, posted_at = now(), version = 2
         FROM bulk_totals b WHERE i.tenant_id = :t AND i.id = b.id`,
    );
    // One invoice in five paid in part ten days after its date (by the aging's day at the latest): 40 % of its
    // gross allocated; one payment in five of those brings 500.00 more, left as an advance.
    await run(
      `CREATE TEMP TABLE bulk_payments ON COMMIT DROP AS
       SELECT gen_random_uuid() AS id, gen_random_uuid() AS entry_id, gen_random_uuid() AS allocation_id, b.id AS invoice_id, b.counterparty_id,
              least(b.d + 10, CAST(:asOf AS date)) AS d, CAST(:firstEntry AS bigint) + :invoices + row_number() OVER (ORDER BY b.g) - 1 AS entry_number,
              round(b.gross * 0.4, 2) AS allocated, round(b.gross * 0.4, 2) + CASE WHEN b.g % 25 = 0 THEN 500 ELSE 0 END AS amount
         FROM bulk_totals b WHERE b.g % 5 = 0`,
      { asOf: AGING_AS_OF, firstEntry, invoices },
    );
    await run(
      `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash,
                                    total_debit, total_credit, line_count, correlation_id, source_type, source_id)
       SELECT :t, entry_id, :le, entry_number, d, 'Payment received', gen_random_uuid(), 'bulk', amount, amount,
              CASE WHEN amount > allocated THEN 3 ELSE 2 END, gen_random_uuid(), 'PAYMENT', id
         FROM bulk_payments`,
    );
    await run(
      `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, counterparty_id, debit, credit)
       SELECT :t, entry_id, entry_number, 1, :le, d, '5110', NULL, amount, 0 FROM bulk_payments
       UNION ALL
       SELECT :t, entry_id, entry_number, 2, :le, d, '4010', counterparty_id, 0, allocated FROM bulk_payments
       UNION ALL
       SELECT :t, entry_id, entry_number, 3, :le, d, '6310', counterparty_id, 0, amount - allocated FROM bulk_payments WHERE amount > allocated`,
    );
    await run(
      `INSERT INTO payments (tenant_id, id, legal_entity_id, direction, status, payment_date, counterparty_id, currency, amount, allocated, money_account,
                             amount_uzs, request_id, request_hash, entry_id, version)
       SELECT :t, id, :le, 'IN', 'POSTED', d, counterparty_id, 'UZS', amount, allocated, '5110', amount, gen_random_uuid(), 'bulk', entry_id, 1 FROM bulk_payments`,
    );
    await run(
      `INSERT INTO payment_allocations (tenant_id, id, legal_entity_id, payment_id, invoice_id, amount, amount_uzs, allocation_date, entry_id)
       SELECT :t, allocation_id, :le, id, invoice_id, allocated, allocated, d, entry_id FROM bulk_payments`,
    );
    await run(
      `UPDATE invoices i SET allocated = p.allocated, version = i.version + 1
         FROM bulk_payments p WHERE i.tenant_id = :t AND i.id = p.invoice_id`,
    );
    // Manual entries on 4010 (Dr 4010 / Cr 9030), a tenth of them naming no customer.
    await run(
      `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash,
                                    total_debit, total_credit, line_count, correlation_id)
       SELECT :t, gen_random_uuid(), :le, CAST(:first AS bigint) + g - 1, DATE '2024-07-01' + (g * 11) % 184, 'Services billed by hand', gen_random_uuid(), 'bulk',
              (1000 + g % 9000) * 100.00, (1000 + g % 9000) * 100.00, 2, gen_random_uuid()
         FROM generate_series(1, :n) g`,
      { n: manual, first: firstEntry + invoices + payments },
    );
    await run(
      `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, counterparty_id, debit, credit)
       SELECT :t, e.id, e.number, l.line_no, :le, e.entry_date, l.code, CASE WHEN l.line_no = 1 AND e.number % 10 <> 0 THEN c.id END,
              CASE WHEN l.line_no = 1 THEN e.total_debit ELSE 0 END, CASE WHEN l.line_no = 2 THEN e.total_debit ELSE 0 END
         FROM journal_entries e
         JOIN customers c ON c.k = 1 + e.number % :customers
         CROSS JOIN (VALUES (1, '4010'), (2, '9030')) AS l(line_no, code)
        WHERE e.tenant_id = :t AND e.legal_entity_id = :le AND e.number >= :first`,
      { first: firstEntry + invoices + payments, customers: counterparties },
    );
  });
  // What autovacuum does within a minute of a load this size: statistics, and the visibility map.
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    await owner.query('VACUUM (ANALYZE) invoices, invoice_lines, counterparties, payments, payment_allocations, journal_entries, journal_lines', { type: QueryTypes.RAW });
  } finally {
    await owner.close();
  }
  return (performance.now() - started) / 1000;
}

interface Latency {
  p50: number;
  p95: number;
}

export interface AgingResult {
  invoices: number;
  counterparties: number;
  loadSeconds: number;
  items: number;
  /** The first request: it built the kept aging. */
  firstMs: number;
  changed: number;
  /** The kept aging, and the kept aging after `changed` customers paid; each beside the trial balance. */
  kept: { trialBalance: Latency; aging: Latency };
  patched: { trialBalance: Latency; aging: Latency };
}

interface AgingAnswer {
  items: unknown[];
  totals: Array<{ currency: string; outstanding: string; advances: string }>;
}
interface TrialBalanceAnswer {
  lines: Array<{ code: string; balance: string }>;
}

/** The aging's totals against the trial balance of the same day: outstanding the balance of 4010, advances that of 6310. */
function checkTie(aging: AgingAnswer, trialBalance: TrialBalanceAnswer): void {
  const balance = (code: string) => new Decimal(trialBalance.lines.find((l) => l.code === code)?.balance ?? 0);
  const uzs = aging.totals.find((t) => t.currency === 'UZS');
  const outstanding = new Decimal(uzs?.outstanding ?? 0);
  const advances = new Decimal(uzs?.advances ?? 0);
  if (!outstanding.equals(balance('4010')) || !advances.equals(balance('6310'))) {
    throw new Error(`the aging does not tie: outstanding ${outstanding.toFixed()} against 4010's ${balance('4010').toFixed()}, advances ${advances.toFixed()} against 6310's ${balance('6310').toFixed()}`);
  }
}

/** Payments allocated oldest first to each of `n` customers, dated AGING_AS_OF: `n` counterparties changed since the aging was kept. */
async function payCustomers(ws: Workspace, n: number): Promise<void> {
  const customers = await inTenant(ws, (run) =>
    run(`SELECT id FROM counterparties WHERE tenant_id = :t AND legal_entity_id = :le ORDER BY name LIMIT :n`, { n }),
  );
  for (const { id } of customers) {
    const res = await post(
      `/api/v1/payments/${ws.legalEntityId}`,
      { requestId: randomUUID(), direction: 'IN', date: AGING_AS_OF, counterpartyId: id, amount: '1000.00', cashAccount: '5110', allocate: 'OLDEST_FIRST' },
      auth(ws),
    );
    if (res.status !== 201) throw new Error(`a payment answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }
}

/**
 * The aging of receivables over a company loaded with AGING_INVOICES open invoices, beside its trial balance:
 * the first request (it builds the kept aging), AGING_SAMPLES requests of the kept aging, and as many again
 * after AGING_CHANGED customers paid (the kept aging patched with those customers, computed from their
 * documents). Requests are one at a time, the aging and the trial balance interleaved.
 */
export async function measureAging(): Promise<AgingResult> {
  const loaded = await workspace();
  const loadSeconds = await loadAging(loaded, AGING_INVOICES, AGING_COUNTERPARTIES);
  const ws = await signedInAgain(loaded);
  const requests = {
    trialBalance: `/api/v1/ledger/${ws.legalEntityId}/trial-balance?asOf=${AGING_AS_OF}`,
    aging: `/api/v1/ledger/${ws.legalEntityId}/reports/aging?asOf=${AGING_AS_OF}&side=RECEIVABLE`,
  };
  let items = 0;
  let first = 0;
  const sample = async (warmUp: boolean) => {
    const times = { trialBalance: [] as number[], aging: [] as number[] };
    for (let i = warmUp ? 0 : 1; i <= AGING_SAMPLES; i++) {
      const answers: Record<string, unknown> = {};
      for (const [name, url] of Object.entries(requests) as Array<[keyof typeof requests, string]>) {
        const started = performance.now();
        const res = await fetch(`${BASE}${url}`, { headers: auth(ws) });
        const body = await res.text();
        const elapsed = performance.now() - started;
        if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${body.slice(0, 300)}`);
        answers[name] = JSON.parse(body);
        if (i > 0) times[name].push(elapsed);
        else if (name === 'aging') first = elapsed;
      }
      const aging = answers.aging as AgingAnswer;
      checkTie(aging, answers.trialBalance as TrialBalanceAnswer);
      items = aging.items.length;
    }
    return { trialBalance: latency(times.trialBalance), aging: latency(times.aging) };
  };
  const kept = await sample(true);
  await payCustomers(ws, AGING_CHANGED);
  const patched = await sample(false);
  return { invoices: AGING_INVOICES, counterparties: AGING_COUNTERPARTIES, loadSeconds, items, firstMs: Math.round(first), changed: AGING_CHANGED, kept, patched };
}

const latency = (ms: number[]): Latency => {
  const sorted = [...ms].sort((x, y) => x - y);
  return { p50: Math.round(percentile(sorted, 50)), p95: Math.round(percentile(sorted, 95)) };
};

const mean = (a: WrkResult, b: WrkResult) => (a.perSecond + b.perSecond) / 2;

async function main(): Promise<void> {
  await requireRunningApi();
  const only = (process.env.BENCH_DOCUMENTS ?? 'posting,aging').split(',');
  console.log(`Documents against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  if (only.includes('posting')) {
    const r = await measureInvoicePosting();
    const row = (what: string, x: WrkResult) => ({ request: what, 'req/s': Math.round(x.perSecond), 'p50 ms': x.p50, 'p99 ms': x.p99, errors: x.errors });
    console.log(`\nPosting an invoice of five lines beside its entry posted directly (${r.lines.map((l) => `${l.accountCode} ${l.debit !== '0.00' ? 'Dr' : 'Cr'}`).join(' / ')}; ${r.drafts} drafts a run)\n`);
    console.table([
      row('POST /ledger/{id}/entries, run 1', r.entries[0]),
      row('POST /invoices/{id}/{invoiceId}/posting, run 1', r.invoices[0]),
      row('POST /invoices/{id}/{invoiceId}/posting, run 2', r.invoices[1]),
      row('POST /ledger/{id}/entries, run 2', r.entries[1]),
    ]);
    console.log(`Invoice posting reaches ${Math.round((100 * mean(...r.invoices)) / mean(...r.entries))}% of the entry's rate (goal ≥ 70%).`);
  }
  if (only.includes('aging')) {
    const r = await measureAging();
    console.log(`\nAging over ${r.invoices} open invoices of ${r.counterparties} customers (loaded in ${r.loadSeconds.toFixed(1)} s; ${r.items} rows), ${AGING_SAMPLES} samples each\n`);
    console.table([
      { report: `trial balance at ${AGING_AS_OF} (floor)`, 'p50 ms': r.kept.trialBalance.p50, 'p95 ms': r.kept.trialBalance.p95, 'p95 / trial balance p95': 1 },
      { report: 'aging, RECEIVABLE, first request (builds it)', 'p50 ms': r.firstMs, 'p95 ms': '', 'p95 / trial balance p95': '' },
      { report: 'aging, RECEIVABLE, kept', 'p50 ms': r.kept.aging.p50, 'p95 ms': r.kept.aging.p95, 'p95 / trial balance p95': Math.round((r.kept.aging.p95 / r.kept.trialBalance.p95) * 100) / 100 },
      { report: `trial balance after ${r.changed} customers paid (floor)`, 'p50 ms': r.patched.trialBalance.p50, 'p95 ms': r.patched.trialBalance.p95, 'p95 / trial balance p95': 1 },
      { report: `aging, RECEIVABLE, ${r.changed} customers changed since kept`, 'p50 ms': r.patched.aging.p50, 'p95 ms': r.patched.aging.p95, 'p95 / trial balance p95': Math.round((r.patched.aging.p95 / r.patched.trialBalance.p95) * 100) / 100 },
    ]);
  }
}

if (require.main === module) main().catch((err) => {
  console.error(err instanceof Error ? `${err.stack}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
  process.exit(1);
});
