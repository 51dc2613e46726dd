import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import Papa from 'papaparse';
import type { StreamReply } from './operation-handler';
import type { XlsxThreads } from './xlsx-threads';

// A report's rows as CSV or XLSX, written while they are read: the rows come in batches (an async iterable) and
// each batch is written before the next is asked for, so a large export holds one batch at a time, whatever its
// length. CSV goes through Papa Parse's writer (unparse) a batch at a time, letting other requests' callbacks run
// between batches; XLSX through ExcelJS's streaming workbook on a worker thread (xlsx-threads.ts), off the event
// loop. Both wait for the response to drain before the next batch.

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

const WIDTHS: Record<Column<unknown>['kind'], number> = { text: 40, code: 14, amount: 18, integer: 10 };

/**
 * A formula trigger (`=`, `+`, `-`, `@`) where a spreadsheet may start a cell: at the field's start or after a
 * list separator (`,`, or `;` where Excel's is, as in the Uzbek and Russian settings), a tab or a line break,
 * blanks between or not.
 */
const TRIGGER_AT_CELL_START = /(^|[;,\t\r\n])([ \t\r\n]*)(?=[=+\-@])/g;

/**
 * A CSV cell as written: free text (`text` columns: descriptions, memos, references, names) gets an apostrophe
 * right before every formula trigger that could start a cell, and before a leading tab or carriage return.
 * Excel splits a CSV line at its own list separator, ignoring quotes that do not open a cell, so where that
 * separator is `;`, `x;=2+5;y` is the three cells `x`, `=2+5` and `y`, and a line break in a field can start a
 * row: an apostrophe before the whole field would leave `=2+5` a formula, one before each trigger leaves every
 * such cell text (`x;'=2+5;y`) and the rest of the text as typed. Codes, integers and amounts (whose minus
 * sign is their own) are written as they are.
 */
export function guardCsvCell(kind: Column<unknown>['kind'], value: string | number | null): string | number | null {
  if (kind !== 'text' || typeof value !== 'string') return value;
  const guarded = value.replace(TRIGGER_AT_CELL_START, "$1$2'");
  return /^[\t\r]/.test(guarded) ? `'${guarded}` : guarded;
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

/** A turn of the event loop: the I/O callbacks waiting (other requests) run before what follows. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** RFC 4180 text of `rows`, each ended by a newline; a field is quoted only where it must be. */
function csvText(rows: (string | number | null)[][]): string {
  return `${Papa.unparse(rows, { header: false, newline: '\n' })}\n`;
}

/** Rows of a batch written as one text: a few milliseconds of this process's only thread. */
const CSV_SLICE = 250;

/**
 * A slice of a batch at a time: its rows become one text in one call and go out as one write (about 35 KiB for
 * 250 journal lines), then the next slice waits for a turn of the event loop (other requests' callbacks run)
 * and for the response to drain. Beside a million-line export, another workspace's GET /me p99 was 34-46 ms
 * with whole batches of 1,000 between turns, 18-20 ms with these slices, at the same export speed. Papa Parse's
 * writer, not csv-stringify: on a million journal lines the export is bound by this process's CPU, and
 * csv-stringify spent three times as long per row (a context object per cell), most of it in the garbage
 * collector.
 */
async function writeCsv<R>(out: Writable, columns: Column<R>[], batches: Batches<R>): Promise<void> {
  const done = finished(out);
  done.catch(() => undefined);
  out.write(csvText([columns.map((c) => c.header)]));
  for await (const batch of batches) {
    for (let at = 0; at < batch.length; at += CSV_SLICE) {
      await drained(out, done);
      out.write(csvText(batch.slice(at, at + CSV_SLICE).map((row) => columns.map((c) => guardCsvCell(c.kind, c.value(row))))));
      // The read ahead often has the next batch already: without a turn, slice after slice and batch after batch
      // would be written while other requests' callbacks wait.
      await turn();
    }
  }
  out.end();
  await done;
}

/**
 * The workbook is built on a thread (api/http/xlsx-threads.ts): here each batch's cells are taken from its rows
 * and sent, and the bytes the thread sends back are written to the response. The next batch goes once the thread
 * has written this one and the response has drained, so the thread, the response and the read-ahead each hold
 * about one batch. When the client goes away, or the rows fail, the thread drops the job.
 */
async function writeXlsx<R>(out: Writable, threads: XlsxThreads, sheetName: string, columns: Column<R>[], batches: Batches<R>): Promise<void> {
  // Rejects when the client goes away: every wait below races it, so an abandoned export stops reading.
  const done = finished(out);
  done.catch(() => undefined);
  const job = threads.start(
    sheetName,
    columns.map((c) => ({ header: c.header, kind: c.kind, width: c.width ?? WIDTHS[c.kind] })),
    (bytes) => {
      if (!out.destroyed && !out.writableEnded) out.write(bytes);
    },
  );
  try {
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      await Promise.race([job.rows(batch.map((row) => columns.map((c) => c.value(row)))), done]);
      await drained(out, done);
    }
    await Promise.race([job.end(), done]);
  } finally {
    job.abort();
  }
  out.end();
  await done;
}

/** An export's reply: `rows` written as CSV or XLSX under `name` (the extension is added). */
export function tableReply<R>(
  contentType: TableType,
  name: string,
  sheetName: string,
  columns: Column<R>[],
  rows: Batches<R>,
  xlsxThreads: XlsxThreads,
): StreamReply<TableType> {
  return {
    status: 200,
    contentType,
    filename: `${name}.${contentType === CSV ? 'csv' : 'xlsx'}`,
    stream: (out) => (contentType === CSV ? writeCsv(out, columns, rows) : writeXlsx(out, xlsxThreads, sheetName, columns, rows)),
  };
}
