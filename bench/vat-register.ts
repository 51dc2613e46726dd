// The monthly VAT register against a running API (`npm start`) and its database:
//   npm run bench:vat-register   (BENCH_URL, BENCH_VAT_INVOICES=20000, BENCH_VAT_MONTHS=12, BENCH_VAT_SAMPLES=40)
// A throwaway company gets BENCH_VAT_INVOICES posted SALES invoices in each of the last BENCH_VAT_MONTHS months
// of 2024 (one to three lines at 12 %, 15 % or exempt, over 200 customers; November and October always) and a
// quarter as many PURCHASE invoices each month: a year of history by default, so that a read of the month
// that touched the company's whole history would show. 2 % of October's sales are cancelled in November. They are loaded straight into the
// database as posting and cancelling leave them, inside the rules the database enforces: the draft and its
// lines, the lines' UZS amounts, the entry (source INVOICE) and its lines, then the invoice POSTED with its
// number from the company's series; a cancellation's reversal entry, then the invoice CANCELLED. Then
// November's register is asked BENCH_VAT_SAMPLES times, one request at a time, beside the trial balance of the
// month's end as the floor, after one round of warm-up: the sales' first and last JSON page (each with the
// month's totals and ledgerVat), every sales row as CSV, the purchases' first page. Printed: the month's rows,
// p50 and p95 in ms, and each p95 over the trial balance's. Each JSON answer is checked: its VAT equals
// ledgerVat.
import { QueryTypes, type Transaction } from 'sequelize';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { BASE, percentile, requireRunningApi } from './harness';
import { signedInAgain, workspace, type Workspace } from './ledger';

const INVOICES = Number(process.env.BENCH_VAT_INVOICES ?? 20_000);
const SAMPLES = Number(process.env.BENCH_VAT_SAMPLES ?? 40);
const CUSTOMERS = 200;
/** The months loaded, the last BENCH_VAT_MONTHS of 2024 (at least October to December). */
const MONTH_COUNT = Math.min(12, Math.max(3, Number(process.env.BENCH_VAT_MONTHS ?? 12)));
const MONTHS = Array.from({ length: MONTH_COUNT }, (_, i) => {
  const month = 12 - MONTH_COUNT + i + 1;
  return { from: `2024-${String(month).padStart(2, '0')}-01`, days: new Date(Date.UTC(2024, month, 0)).getUTCDate() };
});
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });

/** Loads the company's counterparties, then each month's invoices, then November's cancellations; returns the seconds taken. */
async function loadInvoices(ws: Workspace): Promise<number> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  const started = performance.now();
  try {
    const inTenant = async (work: (run: (sql: string, extra?: Record<string, unknown>) => Promise<Array<Record<string, unknown>>>) => Promise<void>) =>
      owner.transaction(async (tx: Transaction) => {
        const run = (sql: string, extra: Record<string, unknown> = {}) =>
          owner.query<Record<string, unknown>>(sql.replace(/:t\b/g, 'CAST(:t AS uuid)').replace(/:le\b/g, 'CAST(:le AS uuid)'), {
            replacements: { t: ws.tenantId, le: ws.legalEntityId, ...extra },
            type: QueryTypes.SELECT,
            transaction: tx,
          });
        // The owner is under row-level security too (forced): the rows are the workspace tenant's.
        await run(`SELECT set_config('app.tenant_id', CAST(:t AS text), true)`);
        await work(run);
      });
    await inTenant(async (run) => {
      await run(`INSERT INTO counterparties (tenant_id, id, legal_entity_id, name, tin, version)
                 SELECT :t, gen_random_uuid(), :le, 'Customer ' || g, (300000000 + g)::text, 1 FROM generate_series(1, :n) g`, { n: CUSTOMERS });
    });
    for (const month of MONTHS) {
      await inTenant(async (run) => {
        const n = INVOICES + Math.floor(INVOICES / 4);
        const [entries] = await run(
          `INSERT INTO ledger_states (tenant_id, legal_entity_id, next_entry_number) VALUES (:t, :le, :n + 1)
           ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = ledger_states.next_entry_number + :n
           RETURNING next_entry_number - :n AS first`,
          { n },
        );
        const [numbers] = await run(
          `INSERT INTO document_counters AS c (tenant_id, legal_entity_id, series, year, next_number) VALUES (:t, :le, 'SALES', 2024, :n + 1)
           ON CONFLICT (tenant_id, legal_entity_id, series, year) DO UPDATE SET next_number = c.next_number + :n
           RETURNING c.next_number - :n AS first`,
          { n: INVOICES },
        );
        // One row per invoice: its side, date, customer or supplier, its entry's id and number, its line count.
        await run(
          `CREATE TEMP TABLE bulk ON COMMIT DROP AS
           SELECT gen_random_uuid() AS id, gen_random_uuid() AS entry_id, g, CASE WHEN g <= :sales THEN 'SALES' ELSE 'PURCHASE' END AS kind,
                  CAST(:from AS date) + (g * 7) % :days AS d, CAST(:firstEntry AS bigint) + g - 1 AS entry_number,
                  CAST(:firstNumber AS integer) + g - 1 AS sequence_number, 1 + g % 3 AS line_count,
                  (SELECT array_agg(id ORDER BY name) FROM counterparties WHERE tenant_id = :t AND legal_entity_id = :le)[1 + g % :customers] AS counterparty_id
             FROM generate_series(1, :n) g`,
          { n, sales: INVOICES, from: month.from, days: month.days, firstEntry: Number(entries!.first), firstNumber: Number(numbers!.first), customers: CUSTOMERS },
        );
        // Net amounts from 1.00 to 100,000.99; VAT half-up per line, as computeInvoice has it.
        await run(
          `CREATE TEMP TABLE bulk_lines ON COMMIT DROP AS
           SELECT id, line_no, account_code, vat_rate, net, coalesce(round(net * vat_rate / 100, 2), 0) AS vat
             FROM (SELECT b.id, l AS line_no, CASE WHEN b.kind = 'SALES' THEN '9020' ELSE '1010' END AS account_code,
                          CASE (b.g + l) % 4 WHEN 0 THEN NULL WHEN 1 THEN 15 ELSE 12 END AS vat_rate,
                          round((100 + (b.g * 7919 + l * 104729) % 10000000) / 100.0, 2) AS net
                     FROM bulk b, generate_series(1, b.line_count) l) lines`,
        );
        await run(
          `CREATE TEMP TABLE bulk_totals ON COMMIT DROP AS
           SELECT b.*, sum(l.net) AS net, sum(l.vat) AS vat, sum(l.net + l.vat) AS gross
             FROM bulk b JOIN bulk_lines l ON l.id = b.id GROUP BY b.id, b.entry_id, b.g, b.kind, b.d, b.entry_number, b.sequence_number, b.line_count, b.counterparty_id`,
        );
        await run(
          `INSERT INTO invoices (tenant_id, id, legal_entity_id, kind, status, number, invoice_date, due_date, counterparty_id, currency,
                                 line_count, total_net, total_vat, total_gross, version)
           SELECT :t, id, :le, kind, 'DRAFT', CASE WHEN kind = 'PURCHASE' THEN 'P-' || d || '-' || g END, d, d + 30, counterparty_id, 'UZS',
                  line_count, net, vat, gross, 1
             FROM bulk_totals`,
        );
        await run(
          `INSERT INTO invoice_lines (tenant_id, invoice_id, line_no, description, quantity, unit_price, account_code, vat_rate, net, vat, gross, net_uzs, vat_uzs)
           SELECT :t, id, line_no, 'Item ' || line_no, 1, net, account_code, vat_rate, net, vat, net + vat, net, vat FROM bulk_lines`,
        );
        await run(
          `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, reference, request_id, request_hash,
                                        total_debit, total_credit, line_count, correlation_id, source_type, source_id)
           SELECT :t, entry_id, :le, entry_number, d, initcap(kind) || ' invoice ' || g, NULL, gen_random_uuid(), 'bulk', gross, gross,
                  CASE WHEN vat > 0 THEN 3 ELSE 2 END, gen_random_uuid(), 'INVOICE', id
             FROM bulk_totals`,
        );
        // SALES: Dr 4010 gross (the customer) / Cr 9020 net / Cr 6410 VAT; PURCHASE: Dr 1010 net / Dr 4410 VAT / Cr 6010 gross (the supplier).
        await run(
          `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, counterparty_id, debit, credit)
           SELECT :t, entry_id, entry_number, 1, :le, d, CASE WHEN kind = 'SALES' THEN '4010' ELSE '1010' END,
                  CASE WHEN kind = 'SALES' THEN counterparty_id END, CASE WHEN kind = 'SALES' THEN gross ELSE net END, 0 FROM bulk_totals
           UNION ALL
           SELECT :t, entry_id, entry_number, 2, :le, d, CASE WHEN kind = 'SALES' THEN '9020' ELSE '6010' END,
                  CASE WHEN kind = 'PURCHASE' THEN counterparty_id END, 0, CASE WHEN kind = 'SALES' THEN net ELSE gross END FROM bulk_totals
           UNION ALL
           SELECT :t, entry_id, entry_number, 3, :le, d, CASE WHEN kind = 'SALES' THEN '6410' ELSE '4410' END, NULL,
                  CASE WHEN kind = 'PURCHASE' THEN vat ELSE 0 END, CASE WHEN kind = 'SALES' THEN vat ELSE 0 END FROM bulk_totals WHERE vat > 0`,
        );
        await run(
          `UPDATE invoices i SET status = 'POSTED', number = CASE WHEN b.kind = 'SALES' THEN '2024-' || lpad(b.sequence_number::text, 6, '0') ELSE i.number END,
                  sequence_year = CASE WHEN b.kind = 'SALES' THEN 2024 END, sequence_number = CASE WHEN b.kind = 'SALES' THEN b.sequence_number END,
                  gross_uzs = b.gross, vat_uzs = b.vat, entry_id = b.entry_id, posted_at = now(), version = 2
             FROM bulk_totals b WHERE i.tenant_id = :t AND i.id = b.id`,
        );
      });
    }
    // 2 % of October's sales cancelled in November: the reversal of each one's entry, then the invoice CANCELLED.
    await inTenant(async (run) => {
      const cancelled = Math.floor(INVOICES / 50);
      const [entries] = await run(
        `UPDATE ledger_states SET next_entry_number = next_entry_number + :n WHERE tenant_id = :t AND legal_entity_id = :le RETURNING next_entry_number - :n AS first`,
        { n: cancelled },
      );
      await run(
        `CREATE TEMP TABLE bulk_cancel ON COMMIT DROP AS
         SELECT i.id, i.entry_id AS original, gen_random_uuid() AS entry_id, CAST(:first AS bigint) + row_number() OVER (ORDER BY i.id) - 1 AS entry_number,
                CAST('2024-11-01' AS date) + (row_number() OVER (ORDER BY i.id) % 30)::int AS d, i.gross_uzs AS gross, i.number
           FROM invoices i WHERE i.tenant_id = :t AND i.legal_entity_id = :le AND i.kind = 'SALES' AND i.invoice_date BETWEEN '2024-10-01' AND '2024-10-31'
          ORDER BY i.id LIMIT :n`,
        { n: cancelled, first: Number(entries!.first) },
      );
      await run(
        `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, reversal_of,
                                      total_debit, total_credit, line_count, correlation_id, source_type, source_id)
         SELECT :t, c.entry_id, :le, c.entry_number, c.d, 'Reversal of invoice ' || c.number, gen_random_uuid(), 'bulk', c.original, c.gross, c.gross,
                e.line_count, gen_random_uuid(), 'INVOICE', c.id
           FROM bulk_cancel c JOIN journal_entries e ON e.tenant_id = :t AND e.id = c.original`,
      );
      await run(
        `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, counterparty_id, debit, credit)
         SELECT :t, c.entry_id, c.entry_number, l.line_no, :le, c.d, l.account_code, l.counterparty_id, l.credit, l.debit
           FROM bulk_cancel c JOIN journal_lines l ON l.tenant_id = :t AND l.entry_id = c.original`,
      );
      await run(
        `UPDATE invoices i SET status = 'CANCELLED', cancellation_entry_id = c.entry_id, cancellation_date = c.d, cancellation_reason = 'bench',
                cancellation_request_id = gen_random_uuid(), version = version + 1
           FROM bulk_cancel c WHERE i.tenant_id = :t AND i.id = c.id`,
      );
    });
    // What autovacuum does within a minute of a load this size: statistics, and the visibility map.
    await owner.query('VACUUM (ANALYZE) invoices, invoice_lines, counterparties, journal_entries, journal_lines', { type: QueryTypes.RAW });
  } finally {
    await owner.close();
  }
  return (performance.now() - started) / 1000;
}

export interface Timing {
  report: string;
  rows: number | null;
  p50: number;
  p95: number;
  ratio: number;
}

/** Each request SAMPLES times, interleaved, after a round of warm-up; every register answer checked for the tie. */
async function measure(ws: Workspace, requests: Record<string, { path: string; accept?: string }>): Promise<Timing[]> {
  const times = new Map<string, number[]>(Object.keys(requests).map((name) => [name, []]));
  const rows = new Map<string, number | null>();
  for (let i = 0; i <= SAMPLES; i++) {
    for (const [name, { path, accept }] of Object.entries(requests)) {
      const started = performance.now();
      const res = await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}${path}`, {
        headers: { authorization: `Bearer ${ws.accessToken}`, accept: accept ?? 'application/json' },
      });
      const body = await res.text();
      const elapsed = performance.now() - started;
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${body.slice(0, 300)}`);
      if (path.includes('vat-register') && !accept) {
        const register = JSON.parse(body) as { totalElements: number; totals: { vat: string }; ledgerVat: string };
        if (register.totals.vat !== register.ledgerVat) throw new Error(`${name}: VAT ${register.totals.vat} but ledgerVat ${register.ledgerVat}`);
        rows.set(name, register.totalElements);
      } else if (accept === 'text/csv') rows.set(name, body.trimEnd().split('\n').length - 1);
      if (i > 0) times.get(name)!.push(elapsed);
    }
  }
  const floor = percentile([...times.get(Object.keys(requests)[0]!)!].sort((a, b) => a - b), 95);
  return [...times.entries()].map(([report, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const p95 = percentile(sorted, 95);
    return { report, rows: rows.get(report) ?? null, p50: Math.round(percentile(sorted, 50)), p95: Math.round(p95), ratio: Math.round((p95 / floor) * 100) / 100 };
  });
}

export interface VatRegisterResult {
  /** Sales invoices a month, and the months loaded. */
  invoices: number;
  months: number;
  loadSeconds: number;
  timings: Timing[];
}

/** Loads a throwaway company with the invoices of MONTHS and times November's register beside the trial balance. */
export async function measureVatRegister(): Promise<VatRegisterResult> {
  const loaded = await workspace();
  const loadSeconds = await loadInvoices(loaded);
  const ws = await signedInAgain(loaded);
  const sales = '/reports/vat-register?month=2024-11&side=SALES';
  const first = (await (await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}${sales}`, { headers: { authorization: `Bearer ${ws.accessToken}` } })).json()) as { totalPages: number };
  const timings = await measure(ws, {
    'trial balance (floor)': { path: '/trial-balance?asOf=2024-11-30' },
    'VAT register, November, SALES, page 1 of 50': { path: sales },
    'VAT register, November, SALES, last page': { path: `${sales}&page=${first.totalPages - 1}` },
    'VAT register, November, SALES, every row as CSV': { path: sales, accept: 'text/csv' },
    'VAT register, November, PURCHASES, page 1 of 50': { path: '/reports/vat-register?month=2024-11&side=PURCHASES' },
  });
  return { invoices: INVOICES, months: MONTHS.length, loadSeconds, timings };
}

async function main(): Promise<void> {
  await requireRunningApi();
  console.log(`VAT register against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  const { loadSeconds, timings } = await measureVatRegister();
  console.log(`loaded ${INVOICES} sales and ${Math.floor(INVOICES / 4)} purchase invoices a month, ${MONTHS.length} months of 2024, into one company in ${loadSeconds.toFixed(1)} s`);
  console.table(timings.map((t) => ({ report: t.report, rows: t.rows ?? '', 'p50 ms': t.p50, 'p95 ms': t.p95, 'p95 / trial balance p95': t.ratio })));
}

if (require.main === module) main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
