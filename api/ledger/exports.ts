import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Decimal from 'decimal.js';
import { journalLinesAfter, lastEntryNumber, statementLinesAfter, type JournalPosition } from '../../db/repositories/ledger/exports';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { formatForeignAmount } from '../../core/ledger/currency';
import { hledgerTransaction, type ExportedEntry } from '../../core/ledger/hledger';
import type { Principal } from '../http/context';
import type { Schemas, StreamReply } from '../http/operation-handler';
import { tableReply, type Column, type TableType } from '../http/table-export';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { CompanyScopes } from '../organisation/company-scope';
import { toJournalLine } from '../../services/ledger/journal-entries';
import { toStatementLine } from './reports';

// The ledger's reports as CSV and XLSX, and the journal as an hledger journal too. The trial balance, the
// turnover sheet and Forms 1 and 2 are a row per account or per form row: they are built as for JSON and
// written out. The journal and an account statement can be a million lines: they are read in batches
// (db/repositories/ledger/exports.ts) and each batch is written before the next is read. Columns carry the JSON
// fields' names.

/** Lines per read: small enough to hold, large enough that a round trip per batch costs little. */
export const EXPORT_BATCH = 1000;

type Filter = { dateFrom?: string; dateTo?: string; accountCode?: string; currency?: string };
type JournalLine = Schemas['JournalEntry']['lines'][number];
interface JournalExportLine {
  entryId: string;
  number: number;
  entryDate: string;
  description: string;
  reference: string | null;
  kind: string;
  reversalOf: string | null;
  postedAt: string;
  line: JournalLine;
}

const UUID_WIDTH = 38;

const journalColumns: Column<JournalExportLine>[] = [
  { header: 'entryId', kind: 'code', width: UUID_WIDTH, value: (r) => r.entryId },
  { header: 'number', kind: 'integer', value: (r) => r.number },
  { header: 'entryDate', kind: 'code', value: (r) => r.entryDate },
  { header: 'description', kind: 'text', value: (r) => r.description },
  { header: 'reference', kind: 'text', value: (r) => r.reference },
  { header: 'kind', kind: 'code', value: (r) => r.kind },
  { header: 'reversalOf', kind: 'code', width: UUID_WIDTH, value: (r) => r.reversalOf },
  { header: 'postedAt', kind: 'code', width: 26, value: (r) => r.postedAt },
  { header: 'lineNo', kind: 'integer', value: (r) => r.line.lineNo },
  { header: 'accountCode', kind: 'code', value: (r) => r.line.accountCode },
  { header: 'subaccountId', kind: 'code', width: UUID_WIDTH, value: (r) => r.line.subaccountId },
  { header: 'counterpartyId', kind: 'code', width: UUID_WIDTH, value: (r) => r.line.counterpartyId },
  { header: 'debit', kind: 'amount', value: (r) => r.line.debit },
  { header: 'credit', kind: 'amount', value: (r) => r.line.credit },
  { header: 'memo', kind: 'text', value: (r) => r.line.memo },
  { header: 'currency', kind: 'code', value: (r) => r.line.currency },
  { header: 'currencyAmount', kind: 'amount', value: (r) => r.line.currencyAmount },
  { header: 'rate', kind: 'amount', value: (r) => r.line.rate },
  { header: 'rateSource', kind: 'code', value: (r) => r.line.rateSource },
  { header: 'rateDate', kind: 'code', value: (r) => r.line.rateDate },
];

type TrialBalanceRow = { line: Schemas['TrialBalanceLine']; currency: Schemas['CurrencyBalance'] | null };

/** A row per account, then a row per foreign currency of it, whose own amounts are left empty. */
const trialBalanceColumns: Column<TrialBalanceRow>[] = [
  { header: 'code', kind: 'code', value: (r) => r.line.code },
  { header: 'name', kind: 'text', value: (r) => r.line.name },
  { header: 'type', kind: 'code', value: (r) => r.line.type },
  { header: 'debit', kind: 'amount', value: (r) => (r.currency ? null : r.line.debit) },
  { header: 'credit', kind: 'amount', value: (r) => (r.currency ? null : r.line.credit) },
  { header: 'balance', kind: 'amount', value: (r) => (r.currency ? null : r.line.balance) },
  { header: 'currencies.currency', kind: 'code', value: (r) => r.currency?.currency ?? null },
  { header: 'currencies.balance', kind: 'amount', value: (r) => r.currency?.balance ?? null },
  { header: 'currencies.carryingAmount', kind: 'amount', value: (r) => r.currency?.carryingAmount ?? null },
];

type TurnoverRow = Schemas['TurnoverRow'];

const turnoverColumns: Column<TurnoverRow>[] = [
  { header: 'accountCode', kind: 'code', value: (r) => r.accountCode },
  { header: 'name', kind: 'text', value: (r) => r.name },
  { header: 'type', kind: 'code', value: (r) => r.type },
  { header: 'subaccountId', kind: 'code', width: UUID_WIDTH, value: (r) => r.subaccountId },
  { header: 'openingDebit', kind: 'amount', value: (r) => r.openingDebit },
  { header: 'openingCredit', kind: 'amount', value: (r) => r.openingCredit },
  { header: 'turnoverDebit', kind: 'amount', value: (r) => r.turnoverDebit },
  { header: 'turnoverCredit', kind: 'amount', value: (r) => r.turnoverCredit },
  { header: 'closingDebit', kind: 'amount', value: (r) => r.closingDebit },
  { header: 'closingCredit', kind: 'amount', value: (r) => r.closingCredit },
  { header: 'foreign.opening', kind: 'amount', value: (r) => r.foreign?.opening ?? null },
  { header: 'foreign.turnoverDebit', kind: 'amount', value: (r) => r.foreign?.turnoverDebit ?? null },
  { header: 'foreign.turnoverCredit', kind: 'amount', value: (r) => r.foreign?.turnoverCredit ?? null },
  { header: 'foreign.closing', kind: 'amount', value: (r) => r.foreign?.closing ?? null },
];

/** A sheet by counterparty has its row's counterparty after the subaccount (the other sheets, as before, do not). */
const counterpartyColumns: Column<TurnoverRow>[] = [
  { header: 'counterpartyId', kind: 'code', width: UUID_WIDTH, value: (r) => r.counterpartyId },
  { header: 'counterpartyName', kind: 'text', value: (r) => r.counterpartyName },
];

function turnoverColumnsOf(detail: Schemas['TurnoverSheet']['detail']): Column<TurnoverRow>[] {
  if (detail !== 'COUNTERPARTY') return turnoverColumns;
  const at = turnoverColumns.findIndex((c) => c.header === 'subaccountId') + 1;
  return [...turnoverColumns.slice(0, at), ...counterpartyColumns, ...turnoverColumns.slice(at)];
}

type StatementLine = Schemas['AccountStatementLine'];

const statementColumns: Column<StatementLine>[] = [
  { header: 'entryId', kind: 'code', width: UUID_WIDTH, value: (r) => r.entryId },
  { header: 'entryNumber', kind: 'integer', value: (r) => r.entryNumber },
  { header: 'entryDate', kind: 'code', value: (r) => r.entryDate },
  { header: 'description', kind: 'text', value: (r) => r.description },
  { header: 'lineNo', kind: 'integer', value: (r) => r.lineNo },
  { header: 'memo', kind: 'text', value: (r) => r.memo },
  { header: 'subaccountId', kind: 'code', width: UUID_WIDTH, value: (r) => r.subaccountId },
  { header: 'counterAccounts', kind: 'code', width: 20, value: (r) => r.counterAccounts.join(' ') },
  { header: 'debit', kind: 'amount', value: (r) => r.debit },
  { header: 'credit', kind: 'amount', value: (r) => r.credit },
  { header: 'balance', kind: 'amount', value: (r) => r.balance },
  { header: 'currencyAmount', kind: 'amount', value: (r) => r.currencyAmount },
  { header: 'currencyBalance', kind: 'amount', value: (r) => r.currencyBalance },
];

type FinancialStatementRow = { row: Schemas['FinancialStatementRow']; account: Schemas['FinancialStatementRow']['accounts'][number] | null };

/**
 * A row per statement row, then a row per account of its drill-down, whose own amounts are left empty (as a
 * trial balance's currency rows): the rows without an account read down the amount column as on the form.
 */
const financialStatementColumns: Column<FinancialStatementRow>[] = [
  { header: 'code', kind: 'code', value: (r) => r.row.code },
  { header: 'name', kind: 'text', width: 60, value: (r) => r.row.name },
  { header: 'total', kind: 'code', value: (r) => String(r.row.total) },
  { header: 'column', kind: 'code', value: (r) => r.row.column },
  { header: 'formula', kind: 'code', width: 30, value: (r) => r.row.formula },
  { header: 'amount', kind: 'amount', value: (r) => (r.account ? null : r.row.amount) },
  { header: 'priorAmount', kind: 'amount', value: (r) => (r.account ? null : r.row.priorAmount) },
  { header: 'accounts.accountCode', kind: 'code', value: (r) => r.account?.accountCode ?? null },
  { header: 'accounts.amount', kind: 'amount', value: (r) => r.account?.amount ?? null },
  { header: 'accounts.priorAmount', kind: 'amount', value: (r) => r.account?.priorAmount ?? null },
];

/**
 * Reads the first batch now, so that whatever refuses the export (no such company, account or range) refuses
 * it before the answer starts; the rest is read while the answer is written.
 */
async function primed<T>(batches: AsyncGenerator<T>): Promise<AsyncIterable<T>> {
  const first = await batches.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* batches;
  })();
}

const positionOf = (row: { entry_date: string; number: string; line_no: number }): JournalPosition => ({ entryDate: row.entry_date, number: row.number, lineNo: row.line_no });

/**
 * The lines after each batch's last one, EXPORT_BATCH at a time, one read ahead: the next batch is read while
 * this one is written (the database and the writer each keep a core busy). At most one read is in flight, so
 * an export holds two batches at most; a read nobody waits for any more (the client went away) is let go.
 */
async function* readAhead<R extends { entry_date: string; number: string; line_no: number }>(
  read: (after: JournalPosition | null) => Promise<R[]>,
): AsyncGenerator<R[]> {
  const start = (after: JournalPosition | null) => {
    const next = read(after);
    next.catch(() => undefined);
    return next;
  };
  let pending = start(null);
  for (;;) {
    const rows = await pending;
    const more = rows.length === EXPORT_BATCH;
    if (more) pending = start(positionOf(rows[rows.length - 1]!));
    if (rows.length > 0) yield rows;
    if (!more) return;
  }
}

/** hledger transactions from the journal's lines (an entry's lines may span two batches), a blank line between. */
async function* hledgerText(batches: AsyncIterable<JournalExportLine[]>): AsyncGenerator<string> {
  let entry = null as (ExportedEntry & { id: string }) | null;
  let written = 0;
  const text = (e: ExportedEntry) => `${written++ > 0 ? '\n' : ''}${hledgerTransaction(e)}\n`;
  for await (const batch of batches) {
    let chunk = '';
    for (const r of batch) {
      if (entry?.id !== r.entryId) {
        if (entry) chunk += text(entry);
        entry = { id: r.entryId, number: r.number, entryDate: r.entryDate, description: r.description, lines: [] };
      }
      entry.lines.push(r.line);
    }
    if (chunk) yield chunk;
  }
  if (entry) yield text(entry);
}

/**
 * The exports of the ledger's reports and journal, for the handlers of getTrialBalance, getTurnoverSheet,
 * getAccountStatement, getBalanceSheet, getFinancialResults and listJournalEntries.
 */
export function createLedgerExports(companies: CompanyScopes, xlsxThreads: XlsxThreads) {
  /** Every line of the entries the filter matches, in journal order, a batch at a time, as the journal stood at the first read. */
  async function* journalBatches(principal: Principal, legalEntityId: string, filter: Filter): AsyncGenerator<JournalExportLine[]> {
    let through: string | null = null;
    const read = (after: JournalPosition | null) =>
      companies.read(principal, legalEntityId, async (tx, scope) => {
        through ??= await lastEntryNumber(tx, scope);
        return journalLinesAfter(tx, scope, { ...filter, through, after, limit: EXPORT_BATCH });
      });
    for await (const rows of readAhead(read)) {
      yield rows.map((r) => ({
          entryId: r.entry_id,
          number: Number(r.number),
          entryDate: r.entry_date,
          description: r.description,
          reference: r.reference,
          kind: r.kind,
          reversalOf: r.reversal_of,
        postedAt: r.posted_at.toISOString(),
        line: toJournalLine(r),
      }));
    }
  }

  async function journal(
    principal: Principal,
    legalEntityId: string,
    filter: Filter,
    contentType: TableType | 'text/plain',
  ): Promise<StreamReply<TableType | 'text/plain'>> {
    const batches = await primed(journalBatches(principal, legalEntityId, filter));
    const name = `journal-${legalEntityId}-${filter.dateFrom ?? 'start'}-${filter.dateTo ?? 'end'}`;
    if (contentType !== 'text/plain') return tableReply(contentType, name, 'Journal', journalColumns, batches, xlsxThreads);
    return {
      status: 200,
      contentType,
      filename: `${name}.journal`,
      stream: (out) => pipeline(Readable.from(hledgerText(batches)), out),
    };
  }

  function trialBalance(contentType: TableType, legalEntityId: string, tb: Schemas['TrialBalance']): StreamReply<TableType> {
    const rows = tb.lines.flatMap((line): TrialBalanceRow[] => [{ line, currency: null }, ...line.currencies.map((currency) => ({ line, currency }))]);
    return tableReply(contentType, `trial-balance-${legalEntityId}-${tb.asOf}`, 'Trial balance', trialBalanceColumns, [rows], xlsxThreads);
  }

  function turnoverSheet(contentType: TableType, legalEntityId: string, sheet: Schemas['TurnoverSheet']): StreamReply<TableType> {
    return tableReply(contentType, `turnover-sheet-${legalEntityId}-${sheet.from}-${sheet.to}`, 'Turnover sheet', turnoverColumnsOf(sheet.detail), [sheet.rows], xlsxThreads);
  }

  /** Form 1 or Form 2, as its JSON answer has it. */
  function financialStatement(contentType: TableType, legalEntityId: string, statement: Schemas['FinancialStatement']): StreamReply<TableType> {
    const rows = statement.rows.flatMap((row): FinancialStatementRow[] => [{ row, account: null }, ...row.accounts.map((account) => ({ row, account }))]);
    const [name, sheetName] = statement.form === 'FORM_1'
      ? [`balance-sheet-${legalEntityId}-${statement.to}`, 'Balance sheet']
      : [`financial-results-${legalEntityId}-${statement.from}-${statement.to}`, 'Financial results'];
    return tableReply(contentType, name, sheetName, financialStatementColumns, [rows], xlsxThreads);
  }

  /**
   * Every line of the statement's range, from its opening balance on: `head` is the statement's JSON answer
   * (its first page), which checked the account and the range and has the opening balances; the lines carry
   * the running balances on from them, batch to batch, as the JSON pages do.
   */
  async function accountStatement(
    principal: Principal,
    legalEntityId: string,
    query: { accountCode: string; subaccountId?: string; counterpartyId?: string; from: string; to: string; currency?: string },
    head: Schemas['AccountStatement'],
    contentType: TableType,
  ): Promise<StreamReply<TableType>> {
    const credit = head.normalSide === 'CREDIT';
    const foreign = query.currency !== undefined && query.currency !== 'UZS';
    // Running sums debit positive, shown on the normal side.
    let net = numericToMinorUnits(head.openingBalance) * (credit ? -1n : 1n);
    let foreignNet = foreign ? new Decimal(head.currencyOpeningBalance ?? 0).times(credit ? -1 : 1) : new Decimal(0);
    const onNormalSide = (value: bigint) => formatMinorUnits(credit ? -value : value);
    async function* batches(): AsyncGenerator<StatementLine[]> {
      let through: string | null = null;
      const read = (after: JournalPosition | null) =>
        companies.read(principal, legalEntityId, async (tx, scope) => {
          through ??= await lastEntryNumber(tx, scope);
          return statementLinesAfter(tx, scope, { ...query, through, after, limit: EXPORT_BATCH });
        });
      for await (const rows of readAhead(read)) {
        yield rows.map((l): StatementLine => {
          net += numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit);
          if (foreign && l.currency_amount !== null) foreignNet = foreignNet.plus(l.currency_amount);
          const currencyBalance =
            foreign && l.currency_amount !== null ? formatForeignAmount((credit ? foreignNet.negated() : foreignNet).toFixed(), query.currency!) : null;
          return toStatementLine(l, onNormalSide(net), currencyBalance, foreign ? query.currency! : null);
        });
      }
    }
    const name = `account-statement-${legalEntityId}-${query.accountCode}-${query.from}-${query.to}`;
    return tableReply(contentType, name, 'Account statement', statementColumns, await primed(batches()), xlsxThreads);
  }

  return { journal, trialBalance, turnoverSheet, financialStatement, accountStatement };
}
