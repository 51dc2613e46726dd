import { StatementFormatError, type ParsedLine } from '../../core/bank-statements/statements';
import { isCalendarDate } from '../../core/shared/calendar';
import { compact, decimalAmount, fieldText, optionalText, quote } from './fields';
import type { StatementHead, StatementReader } from './source';

// A CSV or XLSX export has no fixed layout: a saved column profile says which row holds the headers, which
// column is what, and where the balances are. Both formats become a stream of rows of cells, read here the
// same way: each table row becomes a transaction as it comes, and only the rows that may hold a value outside
// the table are kept.

/** A column by its header text (trimmed, any case) or its 1-based number. */
export type ColumnRef = string | number;

/**
 * A value outside the table: a cell by its 1-based row and column, the first non-empty cell right of a cell
 * whose text is `label`, or a fixed `value` when the file does not say it (its account, often).
 */
export type CellRef = { row: number; column: number } | { label: string } | { value: string };

export type DateFormat = 'DD.MM.YYYY' | 'YYYY-MM-DD' | 'DD/MM/YYYY' | 'MM/DD/YYYY' | 'DD-MM-YYYY';

export interface ColumnProfile {
  /** CSV only; "," unless said. */
  delimiter?: string;
  /** CSV only; UTF-8 unless said. */
  encoding?: 'utf-8' | 'windows-1251';
  /** The 1-based row of the column headers; 0 when there is none and the columns are named by number. */
  headerRow: number;
  dateFormat: DateFormat;
  decimalSeparator: '.' | ',';
  columns: {
    date: ColumnRef;
    /** A signed amount (negative is money out), or with `direction` an unsigned one. */
    amount?: ColumnRef;
    /** Money in and money out in two columns, as the bank prints them (credit and debit of the account). */
    credit?: ColumnRef;
    debit?: ColumnRef;
    direction?: ColumnRef;
    purpose: ColumnRef;
    counterpartyName?: ColumnRef;
    counterpartyTin?: ColumnRef;
    counterpartyAccount?: ColumnRef;
    counterpartyBankCode?: ColumnRef;
    reference?: ColumnRef;
    documentNumber?: ColumnRef;
  };
  /** The texts of the direction column (compared trimmed, in capitals); C/CR/CRDT/IN and D/DR/DBIT/OUT unless said. */
  directionValues?: { in: string[]; out: string[] };
  statement: { accountNumber: CellRef; openingBalance: CellRef; closingBalance: CellRef; currency?: CellRef };
}

/** A cell as read: its text, and whether the sheet held it as a number, a date or a formula (CSV cells are all text). */
export interface Cell {
  kind: 'text' | 'number' | 'date' | 'formula';
  /** A number's shortest decimal form, a date's YYYY-MM-DD, a formula's "=" and its text. */
  text: string;
}

export type Row = Cell[];

const DEFAULT_DIRECTIONS = { in: ['C', 'CR', 'CRDT', 'IN'], out: ['D', 'DR', 'DBIT', 'OUT'] };
const DATE_PATTERNS: Record<DateFormat, { pattern: RegExp; order: [number, number, number] }> = {
  'DD.MM.YYYY': { pattern: /^([0-9]{2})\.([0-9]{2})\.([0-9]{4})$/, order: [3, 2, 1] },
  'YYYY-MM-DD': { pattern: /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/, order: [1, 2, 3] },
  'DD/MM/YYYY': { pattern: /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/, order: [3, 2, 1] },
  'MM/DD/YYYY': { pattern: /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/, order: [3, 1, 2] },
  'DD-MM-YYYY': { pattern: /^([0-9]{2})-([0-9]{2})-([0-9]{4})$/, order: [3, 2, 1] },
};
const TIME = /^[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?$/;
/** Digit group separators a bank's export may print inside an amount: spaces, no-break and narrow no-break spaces. */
const GROUP_SEPARATORS = /[ \u00a0\u202f]/g;

const norm = (text: string) => text.trim().replace(/\s+/g, ' ').toUpperCase();

/** Rows kept under the table (from the first row without a date), for a closing balance printed there. */
const FOOTER_ROWS = 200;

/** The profile checked as a whole (an amount column or credit and debit, a known date format…); a StatementFormatError says what is wrong. */
export function checkColumnProfile(profile: ColumnProfile): void {
  const c = profile.columns;
  const bad = (why: string) => new StatementFormatError('malformed', `the column profile ${why}`);
  if (!Number.isInteger(profile.headerRow) || profile.headerRow < 0) throw bad('has no valid headerRow');
  if (!DATE_PATTERNS[profile.dateFormat]) throw bad(`names an unknown date format ${quote(String(profile.dateFormat))}`);
  if (profile.decimalSeparator !== '.' && profile.decimalSeparator !== ',') throw bad('has a decimal separator other than "." or ","');
  const split = c.credit !== undefined || c.debit !== undefined;
  if (split === (c.amount !== undefined) || (split && (c.credit === undefined || c.debit === undefined))) {
    throw bad('must name either an amount column or both a credit and a debit column');
  }
  if (split && c.direction !== undefined) throw bad('names a direction column beside credit and debit columns');
}

/**
 * A sheet's date is a day count from 1899-12-30 (the 1900 date system) that the reader shows as a date only
 * when it has read the cell's style first; a zip may store the styles after the sheet. A number in a date
 * column is that day count (a time of day is its fraction).
 */
function serialDay(text: string, what: string, row: number): string {
  const serial = Number(text);
  if (!Number.isFinite(serial) || serial < 61 || serial >= 2958466) throw new StatementFormatError('malformed', `${what} ${quote(text)} is not a day`, row);
  return new Date(Date.UTC(1899, 11, 30) + Math.floor(serial) * 86_400_000).toISOString().slice(0, 10);
}

function readDate(cell: Cell | undefined, format: DateFormat, what: string, row: number): string {
  if (cell?.kind === 'date') return cell.text;
  if (cell?.kind === 'number') return serialDay(cell.text, what, row);
  if (cell?.kind !== 'text') throw new StatementFormatError('malformed', `${what} is not a date or text in the form ${format}`, row);
  let text = cell.text.trim();
  const space = text.indexOf(' ');
  if (space > 0 && TIME.test(text.slice(space + 1).trim())) text = text.slice(0, space);
  const { pattern, order } = DATE_PATTERNS[format];
  const m = text.length <= 10 ? pattern.exec(text) : null;
  const iso = m ? `${m[order[0]]}-${m[order[1]]}-${m[order[2]]}` : '';
  if (!isCalendarDate(iso)) throw new StatementFormatError('malformed', `${what} ${quote(cell.text)} is not a ${format} day`, row);
  return iso;
}

function readAmount(cell: Cell | undefined, profile: ColumnProfile, sign: 'positive' | 'non-negative' | 'any', what: string, row?: number): string {
  if (!cell || cell.kind === 'date' || cell.kind === 'formula') {
    throw new StatementFormatError('malformed', `${what} ${quote(cell?.text ?? '')} is not an amount${cell?.kind === 'formula' ? ' (a formula is never evaluated)' : ''}`, row);
  }
  // A sheet's number has no locale: its shortest decimal form uses ".". Text is read with the profile's separator.
  const separator = cell.kind === 'number' ? '.' : profile.decimalSeparator;
  return decimalAmount(cell.text.trim().replace(GROUP_SEPARATORS, ''), { separator, sign }, what, row);
}

/** The value of a cell as text; a formula is its own text ("=SUM(A1:A3)"), never evaluated. */
const textOf = (cell: Cell | undefined) => cell?.text ?? '';


type Columns = Record<Exclude<keyof ColumnProfile['columns'], 'date' | 'purpose'>, number | undefined> & { date: number; purpose: number };

/** The 0-based columns the profile names, by number or by their text in the header row. */
function columnsOf(header: Row | undefined, profile: ColumnProfile): Columns {
  const index = (ref: ColumnRef | undefined): number | undefined => {
    if (ref === undefined) return undefined;
    if (typeof ref === 'number') {
      if (!Number.isInteger(ref) || ref < 1) throw new StatementFormatError('malformed', `the column profile names column ${ref}`);
      return ref - 1;
    }
    if (!header) throw new StatementFormatError('malformed', `the column profile names column ${quote(ref)} by its header but has no headerRow`);
    const matches = header.flatMap((cell, i) => (norm(cell.text) === norm(ref) ? [i] : []));
    if (matches.length !== 1) {
      throw new StatementFormatError('malformed', `the header row has ${matches.length === 0 ? 'no' : 'more than one'} column ${quote(ref)}`, profile.headerRow);
    }
    return matches[0]!;
  };
  const c = profile.columns;
  return {
    date: index(c.date)!,
    amount: index(c.amount),
    credit: index(c.credit),
    debit: index(c.debit),
    direction: index(c.direction),
    purpose: index(c.purpose)!,
    counterpartyName: index(c.counterpartyName),
    counterpartyTin: index(c.counterpartyTin),
    counterpartyAccount: index(c.counterpartyAccount),
    counterpartyBankCode: index(c.counterpartyBankCode),
    reference: index(c.reference),
    documentNumber: index(c.documentNumber),
  };
}

/** The transaction of table row `n` (1-based). */
function lineOfRow(row: Row, n: number, col: Columns, profile: ColumnProfile, ins: Set<string>, outs: Set<string>): ParsedLine {
  const at = (i: number | undefined) => (i === undefined ? undefined : row[i]);
  let direction: 'IN' | 'OUT';
  let amount: string;
  if (col.amount !== undefined) {
    const dir = at(col.direction);
    if (col.direction !== undefined) {
      const d = norm(textOf(dir));
      if (!ins.has(d) && !outs.has(d)) throw new StatementFormatError('malformed', `the direction ${quote(textOf(dir))} is none of ${[...ins, ...outs].join(', ')}`, n);
      direction = ins.has(d) ? 'IN' : 'OUT';
      amount = readAmount(at(col.amount), profile, 'positive', 'the amount', n);
    } else {
      const signed = readAmount(at(col.amount), profile, 'any', 'the amount', n);
      if (signed === '0.00') throw new StatementFormatError('malformed', 'the amount is zero', n);
      direction = signed.startsWith('-') ? 'OUT' : 'IN';
      amount = signed.replace(/^-/, '');
    }
  } else {
    const filled = (i: number | undefined) => textOf(at(i)).trim() !== '';
    const [credit, debit] = [filled(col.credit), filled(col.debit)];
    if (credit === debit) throw new StatementFormatError('malformed', `the row has ${credit ? 'both a credit and a debit' : 'neither a credit nor a debit'}`, n);
    direction = credit ? 'IN' : 'OUT';
    amount = readAmount(at(credit ? col.credit : col.debit), profile, 'positive', credit ? 'the credit' : 'the debit', n);
  }
  const text = (i: number | undefined, what: string) => optionalText(i === undefined ? undefined : textOf(row[i]), what, n);
  return compact({
    date: readDate(at(col.date), profile.dateFormat, 'the date', n),
    direction,
    amount,
    reference: text(col.reference, 'the reference'),
    counterpartyName: text(col.counterpartyName, 'the counterparty name'),
    counterpartyTin: text(col.counterpartyTin, 'the counterparty TIN'),
    counterpartyAccount: text(col.counterpartyAccount, 'the counterparty account'),
    counterpartyBankCode: text(col.counterpartyBankCode, 'the counterparty bank code'),
    purpose: fieldText(textOf(row[col.purpose]), 'the purpose', n),
    documentNumber: text(col.documentNumber, 'the document number'),
  });
}

/** The rows kept for the values outside the table. */
interface KeptRows {
  /** The rows a label is looked for in, in the file's order, with their 0-based index: those above the table and FOOTER_ROWS under it. */
  searched: { index: number; row: Row }[];
  /** The rows a {row, column} reference names, by 0-based index. */
  named: Map<number, Row>;
}

function cellValue(kept: KeptRows, ref: CellRef, what: string): Cell | undefined {
  if ('value' in ref) return { kind: 'text', text: ref.value };
  if ('row' in ref) return kept.named.get(ref.row - 1)?.[ref.column - 1];
  const label = norm(ref.label);
  for (const { index, row } of kept.searched) {
    const at = row.findIndex((cell) => norm(cell.text) === label || norm(cell.text) === `${label}:`);
    if (at < 0) continue;
    const value = row.slice(at + 1).find((cell) => cell.text.trim() !== '');
    if (!value) throw new StatementFormatError('malformed', `no value right of ${quote(ref.label)} for ${what}`, index + 1);
    return value;
  }
  throw new StatementFormatError('malformed', `no cell reads ${quote(ref.label)}, where ${what} should be`);
}

/**
 * The statement of a stream of rows read with a profile (its one statement, index 0): the table runs from
 * the row after the headers to the first row without a date, and each of its rows is yielded as it comes.
 * Kept are only the rows above the table, the rows a {row, column} reference names, and FOOTER_ROWS rows
 * under the table; the rows are left unread past those (the reader of the file stops there).
 *
 * A label is looked for in the rows above the table and in the FOOTER_ROWS rows under it, not further: the
 * rows after those are never read. (When the whole grid was held, every row before the header, the line limit
 * and FOOTER_ROWS more was searched, so a label further under a short table was found there.)
 */
export async function* statementOfRowStream(format: 'csv' | 'xlsx', rows: AsyncIterable<Row>, profile: ColumnProfile, maxLines: number): StatementReader {
  checkColumnProfile(profile);
  const s = profile.statement;
  // Rows past the header, the line limit and FOOTER_ROWS more were never read: a cell named there is empty.
  const limit = profile.headerRow + maxLines + FOOTER_ROWS;
  const named = new Set<number>();
  for (const ref of [s.accountNumber, s.openingBalance, s.closingBalance, s.currency]) {
    if (ref && 'row' in ref && Number.isInteger(ref.row) && ref.row >= 1 && ref.row <= limit) named.add(ref.row - 1);
  }
  const lastNamed = Math.max(-1, ...named);
  const directions = profile.directionValues ?? DEFAULT_DIRECTIONS;
  const [ins, outs] = [new Set(directions.in.map(norm)), new Set(directions.out.map(norm))];
  const kept: KeptRows = { searched: [], named: new Map() };
  let col = profile.headerRow === 0 ? columnsOf(undefined, profile) : undefined;
  /** The 0-based index of the first row without a date, once read. */
  let tableEnd: number | undefined;
  let lines = 0;
  let r = 0;
  for await (const row of rows) {
    if (named.has(r)) kept.named.set(r, row);
    if (r < profile.headerRow) {
      kept.searched.push({ index: r, row });
      if (r === profile.headerRow - 1) col = columnsOf(row, profile);
    } else if (tableEnd === undefined && textOf(row[col!.date]).trim() !== '') {
      if (lines >= maxLines) throw new StatementFormatError('too-many-lines', `the table has more than ${maxLines} rows`, r + 1);
      yield { statement: 0, line: lineOfRow(row, r + 1, col!, profile, ins, outs) };
      lines += 1;
    } else {
      tableEnd ??= r;
      if (r < tableEnd + FOOTER_ROWS) kept.searched.push({ index: r, row });
    }
    r += 1;
    if (tableEnd !== undefined && r >= tableEnd + FOOTER_ROWS && r > lastNamed) break;
  }
  if (col === undefined) throw new StatementFormatError('truncated', `the file has no header row ${profile.headerRow}`);
  const balance = (ref: CellRef, what: string) => readAmount(cellValue(kept, ref, what), profile, 'any', what);
  const account = textOf(cellValue(kept, s.accountNumber, 'the account number')).trim();
  if (account === '') throw new StatementFormatError('malformed', 'the account number is empty');
  const head: StatementHead = compact({
    format,
    accountNumber: account,
    currency: s.currency ? optionalText(textOf(cellValue(kept, s.currency, 'the currency')), 'the currency') : undefined,
    openingBalance: balance(s.openingBalance, 'the opening balance'),
    closingBalance: balance(s.closingBalance, 'the closing balance'),
  });
  return [head];
}
