import { Readable, Transform, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import type { StreamReply } from './operation-handler';

// A report's rows as CSV or XLSX, written while they are read: the rows come in batches (an async iterable) and
// each batch is written before the next is asked for, so a large export holds one batch at a time, whatever its
// length. CSV goes through csv-stringify's stream, with the response's backpressure; XLSX through ExcelJS's
// streaming workbook, which waits for the response to drain after each batch.

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
 * Joins the stringifier's pieces (a row each) into writes of about 64 KiB: written as they come, each row would
 * be a write to the socket and a chunk of its own on the wire.
 */
function coalesce(size = 64 * 1024): Transform {
  let parts: Buffer[] = [];
  let length = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      parts.push(chunk);
      length += chunk.length;
      if (length >= size) {
        this.push(Buffer.concat(parts, length));
        parts = [];
        length = 0;
      }
      done();
    },
    flush(done) {
      if (length > 0) this.push(Buffer.concat(parts, length));
      done();
    },
  });
}

async function writeCsv<R>(out: Writable, columns: Column<R>[], batches: Batches<R>): Promise<void> {
  async function* records() {
    for await (const batch of batches) for (const row of batch) yield columns.map((c) => csvCell(c, c.value(row)));
  }
  await pipeline(Readable.from(records()), stringify({ header: true, columns: columns.map((c) => c.header) }), coalesce(), out);
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
    if (out.destroyed) await done;
    if (out.writableNeedDrain) await Promise.race([new Promise((resolve) => out.once('drain', resolve)), done]);
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
