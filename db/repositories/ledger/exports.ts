import { selectBatch, selectRows, type Db, type Statement, type Tx } from '../../connection';
import { entryConditions, type LedgerScope, type LineRow } from './journal';
import type { StatementLineData } from './reports';

// The reads of the ledger's exports: the journal's lines (listJournalEntries as CSV, XLSX or hledger) and one
// account's lines (getAccountStatement as CSV or XLSX), in journal order (date, entry number, line), one batch
// at a time: each read takes the lines after the last one the previous read returned (a keyset, never an
// offset), so a batch costs the same at the start of a million lines as at the end.
//
// An export reads the entries numbered up to the company's last number when it started. Numbers are taken
// under the company's ledger row and entries are never changed, so that is the journal as it stood then, with
// no transaction held open across batches (and a slow download holds no connection).

/** Where a batch starts: after this line. */
export interface JournalPosition {
  entryDate: string;
  number: string;
  lineNo: number;
}

/** The company's last entry number (0 with none): an export reads the entries up to it. */
export async function lastEntryNumber(tx: Db, scope: LedgerScope): Promise<string> {
  const [row] = await selectRows<{ n: string }>(
    tx,
    'SELECT coalesce(max(number), 0)::text AS n FROM journal_entries WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId',
    { ...scope },
  );
  return row!.n;
}

/**
 * The keyset: lines after `after` (the first batch has none), one comparison on the lines' journal order
 * (date, entry number, line: each line carries its entry's number). For the journal, the entries' side of the
 * join seeks to the same entry, so both indexes start there.
 */
function afterCondition(after: JournalPosition | null, withEntries: boolean): { sql: string; replacements: Record<string, unknown> } {
  if (!after) return { sql: 'true', replacements: {} };
  return {
    sql:
      '(line.entry_date, line.entry_number, line.line_no) > (CAST(:afterDate AS date), CAST(:afterNumber AS bigint), :afterLineNo)' +
      (withEntries ? ' AND (e.entry_date, e.number) >= (CAST(:afterDate AS date), CAST(:afterNumber AS bigint))' : ''),
    replacements: { afterDate: after.entryDate, afterNumber: after.number, afterLineNo: after.lineNo },
  };
}

/**
 * A batch is read in index order and sorted only within an entry (or a day): the planner estimates what is
 * left after the keyset from statistics over every company, and late in a long range it guesses so few rows
 * that it would rather collect all of them and sort them, making each batch cost the rest of the range. A
 * full sort is never the better plan for a batch, so its transaction turns it off; nor are parallel workers or
 * JIT compilation, whose start costs more than reading a thousand lines (each doubled a batch's time on
 * estimates made for the whole range). SET LOCAL ends with the transaction.
 */
const BATCH_PLAN: Statement[] = [
  { sql: 'SET LOCAL enable_sort = off' },
  { sql: 'SET LOCAL max_parallel_workers_per_gather = 0' },
  { sql: 'SET LOCAL jit = off' },
];

export interface JournalExportRow extends LineRow {
  number: string;
  entry_date: string;
  description: string;
  reference: string | null;
  kind: string;
  reversal_of: string | null;
  posted_at: Date;
}

export interface JournalExportQuery {
  dateFrom?: string;
  dateTo?: string;
  accountCode?: string;
  currency?: string;
  /** The last entry number the export reads (lastEntryNumber at its start). */
  through: string;
  after: JournalPosition | null;
  limit: number;
}

/**
 * Up to `limit` lines of the entries the filter matches (as listEntries matches them: an entry with a line on
 * the account or in the currency, with all its lines), after `after`, each with its entry's fields. The lines
 * (the period index) and the entries (their date index) are both read in journal order and merged on
 * (date, number): no lookup per entry.
 */
export function journalLinesAfter(tx: Tx, scope: LedgerScope, query: JournalExportQuery): Promise<JournalExportRow[]> {
  const { through, after, limit, ...filter } = query;
  const keyset = afterCondition(after, true);
  const lineDates = [filter.dateFrom ? 'line.entry_date >= :dateFrom' : 'true', filter.dateTo ? 'line.entry_date <= :dateTo' : 'true'].join(' AND ');
  return selectBatch<JournalExportRow>(tx, [
    ...BATCH_PLAN,
    {
      sql: `SELECT e.id AS entry_id, e.number::text AS number, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date, e.description, e.reference,
            e.kind, e.reversal_of, e.posted_at,
            line.line_no, line.account_code, line.subaccount_id, line.counterparty_id, line.debit::text AS debit, line.credit::text AS credit, line.memo,
            line.currency, line.currency_amount::text AS currency_amount, line.rate::text AS rate, line.rate_source,
            to_char(line.rate_date, 'YYYY-MM-DD') AS rate_date
       FROM journal_lines line
       JOIN journal_entries e ON e.tenant_id = line.tenant_id AND e.id = line.entry_id AND e.entry_date = line.entry_date AND e.number = line.entry_number
      WHERE ${entryConditions(filter)} AND e.number <= CAST(:through AS bigint)
        AND line.tenant_id = :tenantId AND line.legal_entity_id = :legalEntityId AND ${lineDates} AND line.entry_number <= CAST(:through AS bigint)
        AND ${keyset.sql}
      ORDER BY line.entry_date, line.entry_number, line.line_no
      LIMIT :limit`,
      replacements: { ...scope, ...filter, ...keyset.replacements, through, limit },
    },
  ]);
}


export interface StatementExportQuery {
  accountCode: string;
  subaccountId?: string;
  /** Only the lines naming this counterparty. */
  counterpartyId?: string;
  from: string;
  to: string;
  /** The UZS lines ('UZS'), one foreign currency's, or all (undefined). */
  currency?: string;
  through: string;
  after: JournalPosition | null;
  limit: number;
}

/**
 * Up to `limit` of the account's lines of the range after `after`, with the counter-accounts of each one's
 * entry (as statementPage has them). The running balance is the caller's: it carries it from batch to batch.
 */
export function statementLinesAfter(tx: Tx, scope: LedgerScope, query: StatementExportQuery): Promise<StatementLineData[]> {
  const keyset = afterCondition(query.after, false);
  const currency = query.currency === undefined ? 'true' : query.currency === 'UZS' ? 'line.currency IS NULL' : 'line.currency = :currency';
  return selectBatch<StatementLineData>(tx, [
    ...BATCH_PLAN,
    {
      sql: `WITH batch AS (
       SELECT line.entry_id, line.entry_number AS number, line.entry_date, line.line_no, line.memo, line.subaccount_id, line.debit, line.credit,
              CASE WHEN line.debit > 0 THEN line.currency_amount ELSE -line.currency_amount END AS currency_amount
         FROM journal_lines line
        WHERE line.tenant_id = :tenantId AND line.legal_entity_id = :legalEntityId AND line.account_code = :accountCode
          AND ${query.subaccountId === undefined ? 'true' : 'line.subaccount_id = :subaccountId'}
          AND ${query.counterpartyId === undefined ? 'true' : 'line.counterparty_id = :counterpartyId'}
          AND line.entry_date BETWEEN :from AND :to AND ${currency}
          AND line.entry_number <= CAST(:through AS bigint) AND ${keyset.sql}
        ORDER BY line.entry_date, line.entry_number, line.line_no
        LIMIT :limit
     )
     SELECT batch.entry_id, batch.number::text AS number, to_char(batch.entry_date, 'YYYY-MM-DD') AS entry_date, e.description, batch.line_no,
            batch.memo, batch.subaccount_id, batch.debit::text AS debit, batch.credit::text AS credit, batch.currency_amount::text AS currency_amount,
            (SELECT array_agg(DISTINCT o.account_code ORDER BY o.account_code) FROM journal_lines o
              WHERE o.tenant_id = :tenantId AND o.entry_id = batch.entry_id AND (o.debit > 0) <> (batch.debit > 0)) AS counter_accounts
       FROM batch JOIN journal_entries e ON e.tenant_id = :tenantId AND e.id = batch.entry_id
      ORDER BY batch.entry_date, batch.number, batch.line_no`,
      replacements: {
        ...scope,
        accountCode: query.accountCode,
        subaccountId: query.subaccountId ?? null,
        counterpartyId: query.counterpartyId ?? null,
        from: query.from,
        to: query.to,
        currency: query.currency ?? null,
        through: query.through,
        limit: query.limit,
        ...keyset.replacements,
      },
    },
  ]);
}
