import { selectBatch, type Statement, type Tx } from '../../connection';
import { SETTLEMENT_RANGES } from '../../../core/ledger/accounts';
import type { CompanyScope } from '../organisation/companies';

// The reconciliation statement with one counterparty (getReconciliationStatement), read from the journal: the
// lines naming the counterparty on settlement accounts (SETTLEMENT_RANGES, as isSettlementAccount decides),
// each entry's lines in one currency grouped into one statement line, in journal order (date, entry number,
// currency, UZS first), with the document that posted the entry. Two reads, as the account statement's:
//
// - A page (the JSON answer): one statement gives the counterparty's name and TIN, the balance before `from`,
//   the range's turnovers, the number of statement lines and the page with the running balance up to each
//   line, all from one snapshot, so they always tie. The counterparty's lines are one range of
//   journal_lines_counterparty_idx (tenant, company, counterparty, account, ...): its history through `to`,
//   whatever the company's size; only the page's lines then read their entry and document.
// - A batch (the exports): the next statement lines after a position (keyset, never an offset), a
//   transaction each, up to the entry number the export started at, so a long download holds no transaction.
//
// Amounts are NUMERIC text inside the JSON (never a JSON number, which would be a float).

/** The settlement accounts as a condition on `column` (four-digit text compares as the number). */
function settlementCondition(column: string): string {
  const between = ([first, last]: readonly [string, string]) => `${column} BETWEEN '${first}' AND '${last}'`;
  return `((${SETTLEMENT_RANGES.included.map(between).join(' OR ')}) AND NOT (${SETTLEMENT_RANGES.excluded.map(between).join(' OR ')}))`;
}

/** The counterparty's settlement lines of the company. */
const COUNTERPARTY_LINES = `l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.counterparty_id = :counterpartyId
  AND ${settlementCondition('l.account_code')}`;

/** An entry's lines in one currency, summed: a statement line. Foreign amounts per side; null on UZS lines. */
const GROUPED = `l.entry_date, l.entry_number, l.entry_id, l.currency,
  sum(l.debit) AS debit, sum(l.credit) AS credit,
  sum(l.currency_amount) FILTER (WHERE l.debit > 0) AS currency_debit,
  sum(l.currency_amount) FILTER (WHERE l.credit > 0) AS currency_credit,
  array_agg(DISTINCT l.account_code ORDER BY l.account_code) AS accounts`;
const GROUP_BY = 'GROUP BY l.entry_date, l.entry_number, l.entry_id, l.currency';

const ORDER = "g.entry_date, g.entry_number, coalesce(g.currency, '')";

/** The entry of each statement line `g` and the document that posted it (an invoice, a payment, or none). */
const DOCUMENTS = `
  JOIN journal_entries e ON e.tenant_id = :tenantId AND e.id = g.entry_id
  LEFT JOIN invoices i ON e.source_type = 'INVOICE' AND i.tenant_id = :tenantId AND i.id = e.source_id
  LEFT JOIN payments p ON e.source_type = 'PAYMENT' AND p.tenant_id = :tenantId AND p.id = e.source_id`;

/** A statement line as ReconciliationLineRow has it, from `g`, its entry `e` and its document `i` or `p`. */
function lineJson(withRunning: boolean): string {
  return `json_build_object(
    'entryId', g.entry_id, 'entryNumber', g.entry_number::text, 'date', to_char(g.entry_date, 'YYYY-MM-DD'), 'currency', g.currency,
    'debit', g.debit::text, 'credit', g.credit::text, 'currencyDebit', g.currency_debit::text, 'currencyCredit', g.currency_credit::text,
    'accounts', g.accounts, 'running', ${withRunning ? 'g.running::text' : 'NULL'},
    'description', e.description, 'sourceType', e.source_type, 'sourceId', e.source_id,
    'invoiceKind', i.kind, 'invoiceNumber', i.number, 'invoiceCancellation', i.cancellation_entry_id IS NOT DISTINCT FROM g.entry_id,
    'paymentDirection', p.direction, 'paymentDate', to_char(p.payment_date, 'YYYY-MM-DD'),
    'paymentRole', CASE WHEN p.entry_id = g.entry_id THEN 'PAYMENT' WHEN p.cancellation_entry_id = g.entry_id THEN 'CANCELLATION' WHEN p.id IS NOT NULL THEN 'ALLOCATION' END,
    'allocatedInvoices', (SELECT coalesce(array_agg(DISTINCT ai.number ORDER BY ai.number), '{}')
                            FROM payment_allocations a JOIN invoices ai ON ai.tenant_id = a.tenant_id AND ai.id = a.invoice_id
                           WHERE a.tenant_id = :tenantId AND a.payment_id = p.id AND a.entry_id = g.entry_id))`;
}

/** One statement line: the counterparty's settlement lines of one entry in one currency, with the entry's document. */
export interface ReconciliationLineRow {
  entryId: string;
  entryNumber: string;
  date: string;
  /** Null for UZS lines. */
  currency: string | null;
  debit: string;
  credit: string;
  /** The foreign amounts on each side; null on UZS lines or where that side has none. */
  currencyDebit: string | null;
  currencyCredit: string | null;
  accounts: string[];
  /** The range's debit minus credit up to and including this line (a page's lines only). */
  running: string | null;
  description: string;
  sourceType: 'INVOICE' | 'PAYMENT' | null;
  sourceId: string | null;
  invoiceKind: 'SALES' | 'PURCHASE' | null;
  invoiceNumber: string | null;
  invoiceCancellation: boolean;
  paymentDirection: 'IN' | 'OUT' | null;
  paymentDate: string | null;
  paymentRole: 'PAYMENT' | 'CANCELLATION' | 'ALLOCATION' | null;
  allocatedInvoices: string[];
}

export interface ReconciliationRange {
  counterpartyId: string;
  from: string;
  to: string;
}

/** A page: the counterparty, the balance before `from` and the range's turnovers (debit minus credit, UZS), the page. */
export interface ReconciliationPage {
  name: string;
  tin: string | null;
  opening: string;
  debit: string;
  credit: string;
  total: number;
  lines: ReconciliationLineRow[];
}

/** The statement of a page (see ReconciliationPage); no row when the counterparty is not the company's. */
export function reconciliationPageStatement(scope: CompanyScope, query: ReconciliationRange & { offset: number; limit: number }): Statement {
  return {
    sql: `WITH counterparty AS (
            SELECT c.name, coalesce(c.tin, c.pinfl) AS tin FROM counterparties c
             WHERE c.tenant_id = :tenantId AND c.legal_entity_id = :legalEntityId AND c.id = :counterpartyId
          ), settled AS (
            SELECT l.entry_date, l.entry_number, l.entry_id, l.account_code, l.currency, l.debit, l.credit, l.currency_amount
              FROM journal_lines l
             WHERE ${COUNTERPARTY_LINES} AND l.entry_date <= :to
          ), totals AS (
            SELECT coalesce(sum(l.debit - l.credit) FILTER (WHERE l.entry_date < :from), 0) AS opening,
                   coalesce(sum(l.debit) FILTER (WHERE l.entry_date >= :from), 0) AS debit,
                   coalesce(sum(l.credit) FILTER (WHERE l.entry_date >= :from), 0) AS credit
              FROM settled l
          ), grouped AS (
            SELECT ${GROUPED} FROM settled l WHERE l.entry_date >= :from ${GROUP_BY}
          ), page AS (
            SELECT g.*, sum(g.debit - g.credit) OVER (ORDER BY ${ORDER}) AS running
              FROM grouped g ORDER BY ${ORDER} OFFSET :offset LIMIT :limit
          )
          SELECT c.name, c.tin, t.opening::text AS opening, t.debit::text AS debit, t.credit::text AS credit,
                 (SELECT count(*) FROM grouped)::int AS total,
                 (SELECT coalesce(json_agg(${lineJson(true)} ORDER BY ${ORDER}), '[]') FROM page g ${DOCUMENTS}) AS lines
            FROM counterparty c CROSS JOIN totals t`,
    replacements: { ...scope, ...query },
  };
}

/** The page from readBatch's results for reconciliationPageStatement; null when the counterparty is not the company's. */
export function reconciliationPageOf(rows: Record<string, unknown>[]): ReconciliationPage | null {
  return (rows[0] as unknown as ReconciliationPage | undefined) ?? null;
}

/** Where a batch starts: after this statement line. */
export interface ReconciliationPosition {
  date: string;
  entryNumber: string;
  currency: string | null;
}

/**
 * Up to `limit` statement lines after `after` (from the range's start when null), of the entries numbered up
 * to `through`, in journal order. The running balance is the caller's: it carries it from batch to batch.
 */
export async function reconciliationBatch(
  tx: Tx,
  scope: CompanyScope,
  query: ReconciliationRange & { through: string; after: ReconciliationPosition | null; limit: number },
): Promise<ReconciliationLineRow[]> {
  const { after, ...rest } = query;
  const keyset = after
    ? "AND (l.entry_date, l.entry_number, coalesce(l.currency, '')) > (CAST(:afterDate AS date), CAST(:afterNumber AS bigint), CAST(:afterCurrency AS text))"
    : '';
  const [row] = await selectBatch<{ lines: ReconciliationLineRow[] }>(tx, [
    { sql: 'SET LOCAL jit = off' },
    {
      sql: `WITH g AS (
              SELECT ${GROUPED}
                FROM journal_lines l
               WHERE ${COUNTERPARTY_LINES} AND l.entry_date BETWEEN :from AND :to AND l.entry_number <= CAST(:through AS bigint) ${keyset}
               ${GROUP_BY}
               ORDER BY l.entry_date, l.entry_number, coalesce(l.currency, '')
               LIMIT :limit
            )
            SELECT coalesce(json_agg(${lineJson(false)} ORDER BY ${ORDER}), '[]') AS lines FROM g ${DOCUMENTS}`,
      replacements: { ...scope, ...rest, ...(after ? { afterDate: after.date, afterNumber: after.entryNumber, afterCurrency: after.currency ?? '' } : {}) },
    },
  ]);
  return row!.lines;
}
