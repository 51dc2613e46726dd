import { StatementFormatError, type ParsedLine, type ParsedStatement } from '../../core/bank-statements/statements';
import { isCalendarDate } from '../../core/shared/calendar';
import { compact, decimalAmount, fieldText, optionalText, quote } from './fields';

// A CSV or XLSX export has no fixed layout: a saved column profile says which row holds the headers, which
// column is what, and where the balances are. Both formats become a grid of cells, read here the same way.

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

/** Rows read past the header and the table's limit, for a closing balance printed under the table. */
export const FOOTER_ROWS = 200;

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

interface Layout {
  index: (ref: ColumnRef | undefined) => number | undefined;
  firstDataRow: number;
}

function layoutOf(rows: Row[], profile: ColumnProfile): Layout {
  const header = profile.headerRow > 0 ? rows[profile.headerRow - 1] : undefined;
  if (profile.headerRow > 0 && !header) throw new StatementFormatError('truncated', `the file has no header row ${profile.headerRow}`);
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
  return { index, firstDataRow: profile.headerRow };
}

function cellValue(rows: Row[], ref: CellRef, tableRows: Set<number>, what: string): Cell | undefined {
  if ('value' in ref) return { kind: 'text', text: ref.value };
  if ('row' in ref) return rows[ref.row - 1]?.[ref.column - 1];
  const label = norm(ref.label);
  for (let r = 0; r < rows.length; r += 1) {
    if (tableRows.has(r)) continue;
    const row = rows[r]!;
    const at = row.findIndex((cell) => norm(cell.text) === label || norm(cell.text) === `${label}:`);
    if (at < 0) continue;
    const value = row.slice(at + 1).find((cell) => cell.text.trim() !== '');
    if (!value) throw new StatementFormatError('malformed', `no value right of ${quote(ref.label)} for ${what}`, r + 1);
    return value;
  }
  throw new StatementFormatError('malformed', `no cell reads ${quote(ref.label)}, where ${what} should be`);
}

/**
 * The statement of a grid of rows read with a profile: the table runs from the row after the headers to the
 * first row without a date; `more` says the reader stopped before the end of the file.
 */
export function statementOfRows(format: 'csv' | 'xlsx', rows: Row[], more: boolean, profile: ColumnProfile, maxLines: number): ParsedStatement {
  checkColumnProfile(profile);
  const { index, firstDataRow } = layoutOf(rows, profile);
  const c = profile.columns;
  const col = {
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
  const directions = profile.directionValues ?? DEFAULT_DIRECTIONS;
  const [ins, outs] = [new Set(directions.in.map(norm)), new Set(directions.out.map(norm))];
  const lines: ParsedLine[] = [];
  const tableRows = new Set<number>();
  let r = firstDataRow;
  for (; r < rows.length; r += 1) {
    const row = rows[r]!;
    const n = r + 1;
    if (textOf(row[col.date]).trim() === '') break;
    if (lines.length >= maxLines) throw new StatementFormatError('too-many-lines', `the table has more than ${maxLines} rows`, n);
    tableRows.add(r);
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
    lines.push(
      compact({
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
      }),
    );
  }
  if (r >= rows.length && more) throw new StatementFormatError('too-many-lines', `the table has more than ${maxLines} rows`, r + 1);
  const s = profile.statement;
  const balance = (ref: CellRef, what: string) => readAmount(cellValue(rows, ref, tableRows, what), profile, 'any', what);
  const account = textOf(cellValue(rows, s.accountNumber, tableRows, 'the account number')).trim();
  if (account === '') throw new StatementFormatError('malformed', 'the account number is empty');
  return compact({
    format,
    accountNumber: account,
    currency: s.currency ? optionalText(textOf(cellValue(rows, s.currency, tableRows, 'the currency')), 'the currency') : undefined,
    openingBalance: balance(s.openingBalance, 'the opening balance'),
    closingBalance: balance(s.closingBalance, 'the closing balance'),
    lines,
  });
}
