import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import Papa from 'papaparse';
import ExcelJS from 'exceljs';
import type { StreamReply } from './operation-handler';

// A report's rows as CSV or XLSX, written while they are read: the rows come in batches (an async iterable) and
// each batch is written before the next is asked for, so a large export holds one batch at a time, whatever its
// length. CSV goes through Papa Parse's writer (unparse) a batch at a time; XLSX through ExcelJS's streaming
// workbook. Both wait for the response to drain before the next batch.

export const CSV = 'text/csv';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export type TableType = typeof CSV | typeof XLSX;

/**
 * One column: its header (the JSON field's name) and how its cells read. `text` is free text a person typed;
 * `code` an id, a date, an enum or an account code, written as is; `amount` a decimal string; `integer` a number.
 */
export interface Column<R> {
  header: string;
  kind: 'text' | 'code' | 'amount' | 'integer';
  value(row: R): string | number | null;
  /** The XLSX column's width in characters; each kind has a default. */
  width?: number;
}

export type Batches<R> = AsyncIterable<readonly R[]> | Iterable<readonly R[]>;

/** A sheet holds 1,048,576 rows, its header among them: the rows past that go on to another sheet. */
const ROWS_PER_SHEET = 1_048_575;
const WIDTHS: Record<Column<unknown>['kind'], number> = { text: 40, code: 14, amount: 18, integer: 10 };

/**
 * A cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return before one)
 * gets a leading apostrophe: only free text, never an amount, whose minus sign is its own.
 */
function csvCell<R>(column: Column<R>, value: string | number | null): string | number | null {
  if (column.kind === 'text' && typeof value === 'string' && /^[=+\-@\t\r]/.test(value)) return `'${value}`;
  return value;
}

/**
 * Waits until `out` takes more (its buffer drained), or rejects when the client went away: every wait of an
 * export races this, so an abandoned export stops reading.
 */
function drained(out: Writable, done: Promise<void>): Promise<unknown> {
  if (out.destroyed) return done;
  if (!out.writableNeedDrain) return Promise.resolve();
  return Promise.race([once(out, 'drain'), done]);
}

/** RFC 4180 text of `rows`, each ended by a newline; a field is quoted only where it must be. */
function csvText(rows: (string | number | null)[][]): string {
  return `${Papa.unparse(rows, { header: false, newline: '\n' })}\n`;
}

/**
 * A batch at a time: the batch's rows become one text in one call and go out as one write (about 140 KiB for a
 * thousand journal lines), then the next batch waits for the response to drain. Papa Parse's writer, not
 * csv-stringify: on a million journal lines the export is bound by this process's CPU, and csv-stringify spent
 * three times as long per row (a context object per cell), most of it in the garbage collector.
 */
async function writeCsv<R>(out: Writable, columns: Column<R>[], batches: Batches<R>): Promise<void> {
  const done = finished(out);
  done.catch(() => undefined);
  out.write(csvText([columns.map((c) => c.header)]));
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    await drained(out, done);
    out.write(csvText(batch.map((row) => columns.map((c) => csvCell(c, c.value(row))))));
  }
  out.end();
  await done;
}

/**
 * An amount as an XLSX cell. Excel keeps numbers as doubles, which hold every decimal of 15 significant digits
 * or fewer exactly (and show it back digit for digit): such an amount is a number, formatted with its decimals.
 * A longer one would be rounded, so it stays text (right-aligned, the text format), exact but not summed.
 */
function xlsxAmount(text: string): { value: number | string; numFmt: string; exact: boolean } {
  const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
  const significant = `${whole}${fraction}`.replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > 15) return { value: text, numFmt: '@', exact: false };
  return { value: Number(text), numFmt: fraction.length > 0 ? `#,##0.${'0'.repeat(fraction.length)}` : '#,##0', exact: true };
}

async function writeXlsx<R>(out: Writable, sheetName: string, columns: Column<R>[], batches: Batches<R>): Promise<void> {
  // Rejects when the client goes away: every wait below races it, so an abandoned export stops reading.
  const done = finished(out);
  done.catch(() => undefined);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  let sheet: ExcelJS.Worksheet | null = null;
  let sheets = 0;
  let rows = 0;
  const startSheet = () => {
    sheet?.commit();
    sheets++;
    sheet = workbook.addWorksheet(sheets === 1 ? sheetName : `${sheetName} ${sheets}`, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns.map((c) => ({ width: c.width ?? WIDTHS[c.kind] }));
    const head = sheet.addRow(columns.map((c) => c.header));
    head.font = { bold: true };
    head.commit();
    rows = 0;
    return sheet;
  };
  let current = startSheet();
  for await (const batch of batches) {
    for (const record of batch) {
      if (rows === ROWS_PER_SHEET) current = startSheet();
      const values = columns.map((c) => c.value(record));
      const amounts = columns.map((c, i) => (c.kind === 'amount' && typeof values[i] === 'string' ? xlsxAmount(values[i] as string) : null));
      const row = current.addRow(values.map((v, i) => amounts[i]?.value ?? v));
      amounts.forEach((a, i) => {
        if (!a) return;
        const cell = row.getCell(i + 1);
        cell.numFmt = a.numFmt;
        if (!a.exact) cell.alignment = { horizontal: 'right' };
      });
      row.commit();
      rows++;
    }
    // ExcelJS's zip does not wait for the response: this does, one batch at a time.
    await drained(out, done);
  }
  current.commit();
  await Promise.race([workbook.commit(), done]);
  await done;
}

/** An export's reply: `rows` written as CSV or XLSX under `name` (the extension is added). */
export function tableReply<R>(
  contentType: TableType,
  name: string,
  sheetName: string,
  columns: Column<R>[],
  rows: Batches<R>,
): StreamReply<TableType> {
  return {
    status: 200,
    contentType,
    filename: `${name}.${contentType === CSV ? 'csv' : 'xlsx'}`,
    stream: (out) => (contentType === CSV ? writeCsv(out, columns, rows) : writeXlsx(out, sheetName, columns, rows)),
  };
}
