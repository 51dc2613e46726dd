import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import ExcelJS from 'exceljs';
import { StatementFormatError } from '../../core/bank-statements/statements';
import { statementOfRowStream, type Cell, type ColumnProfile, type Row } from './column-profile';
import { MAX_LINE_LENGTH } from './fields';
import type { ByteSource, StatementReader } from './source';
import { checkZipBounds } from './zip-bounds';

// An XLSX export read with its column profile: the first worksheet, streamed row by row from the file's bytes
// as they come, and left once the rows under the table are read. A formula is kept as its own text ("=A1+B1")
// in a text column and refused in an amount or date column: its cached result is whatever the last program to
// save the file computed.

function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return { kind: 'text', text: '' };
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (typeof value === 'number') return { kind: 'number', text: String(value) };
  if (typeof value === 'boolean') return { kind: 'text', text: value ? 'TRUE' : 'FALSE' };
  // A date cell is a day count that ExcelJS turns into a UTC instant; its day is the cell's day.
  if (value instanceof Date) return { kind: 'date', text: value.toISOString().slice(0, 10) };
  const v = value as { formula?: string; sharedFormula?: string; richText?: { text: string }[]; text?: unknown; error?: string };
  if (v.formula !== undefined || v.sharedFormula !== undefined) return { kind: 'formula', text: `=${v.formula ?? v.sharedFormula}` };
  if (Array.isArray(v.richText)) return { kind: 'text', text: v.richText.map((part) => part.text).join('') };
  if (typeof v.text === 'string') return { kind: 'text', text: v.text };
  if (typeof v.error === 'string') return { kind: 'text', text: v.error };
  return { kind: 'text', text: '' };
}

/** A part's bytes as text, a character cut at the end of a chunk carried to the next. */
async function* utf8Text(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (text !== '') yield text;
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}

/**
 * ExcelJS decodes each chunk of a part on its own, so a character cut between two chunks reads as two U+FFFD
 * (exceljs issues #2063, #2084). The zip inflates a part in chunks that follow the file's reads (and a parked
 * sheet is read back in 64 KiB chunks), so with the file streamed nearly every sheet of Cyrillic text has
 * such a cut. The parts are decoded here instead: those the reader is given as streams are set to UTF-8, and
 * a worksheet (from the zip or from its temporary file) comes as text.
 */
function decodeAcrossChunks(reader: ExcelJS.stream.xlsx.WorkbookReader): void {
  type Method = (this: unknown, ...args: unknown[]) => unknown;
  const own = Object.getPrototypeOf(reader) as Record<'_parseRels' | '_parseWorkbook' | '_parseSharedStrings' | '_parseStyles' | '_parseWorksheet', Method>;
  const asText = (entry: unknown) => (entry as Readable).setEncoding('utf8');
  Object.assign(reader, {
    _parseRels: (entry: unknown) => own._parseRels.call(reader, asText(entry)),
    _parseWorkbook: (entry: unknown) => own._parseWorkbook.call(reader, asText(entry)),
    _parseSharedStrings: (entry: unknown) => own._parseSharedStrings.call(reader, asText(entry)),
    _parseStyles: (entry: unknown) => own._parseStyles.call(reader, asText(entry)),
    _parseWorksheet: (chunks: AsyncIterable<Buffer | string>, sheetNo: unknown) => own._parseWorksheet.call(reader, utf8Text(chunks), sheetNo),
  });
}

/** The rows of the first worksheet, an empty row for each row the sheet leaves out. */
async function* sheetRows(source: ByteSource): AsyncGenerator<Row> {
  // An error of the source ends the bytes short (the zip reader then fails, or stops) and is thrown as it is.
  let sourceError: unknown;
  async function* bytes() {
    try {
      // A copy of each chunk: the zip reader holds some while it reads, and the source may reuse its memory.
      for await (const chunk of source()) yield Buffer.from(chunk);
    } catch (error) {
      sourceError ??= error;
    }
  }
  const cannotRead = (error: unknown) =>
    sourceError ?? (error instanceof StatementFormatError ? error : new StatementFormatError('malformed', `the XLSX file cannot be read: ${error instanceof Error ? error.message : String(error)}`));
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(bytes(), { objectMode: false }), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  // ExcelJS names a worksheet from the workbook part, and reads `model.sheets` without a check when the
  // sheet comes after the shared strings but before the workbook part (exceljs issue #962). A zip's order
  // is its writer's choice, so the reader starts with an empty model; the sheets are taken in order anyway.
  Object.assign(reader, { model: { sheets: [] } });
  decodeAcrossChunks(reader);
  const sheets = reader[Symbol.asyncIterator]();
  let failed = false;
  try {
    const first = await sheets.next();
    let number = 0;
    for await (const row of first.done ? [] : first.value) {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      const cells = Array.from(values, cellOf);
      if (cells.reduce((n, cell) => n + cell.text.length, 0) > MAX_LINE_LENGTH) {
        throw new StatementFormatError('malformed', `the row is longer than ${MAX_LINE_LENGTH} characters`, row.number);
      }
      for (number += 1; number < row.number; number += 1) yield [];
      yield cells;
    }
  } catch (error) {
    failed = !(error instanceof StatementFormatError);
    throw cannotRead(error);
  } finally {
    // The reader is always run to its end, however the rows are left (read whole, left under the table, or
    // refused): ExcelJS parks a worksheet that comes before the shared strings in a temporary file and
    // removes it only when the reader moves on, so leaving it early would leave the file behind. Leaving a
    // worksheet's rows early is fine (its stream is closed); the other sheets are left at their first row.
    // After a failure of the reader itself there is nothing left to run.
    if (!failed) {
      try {
        for (let next = await sheets.next(); !next.done; next = await sheets.next()) {
          for await (const _row of next.value) break;
        }
      } catch (error) {
        // eslint-disable-next-line no-unsafe-finally -- the file is refused whole when any of it cannot be read
        throw cannotRead(error);
      }
    }
  }
  if (sourceError !== undefined) throw sourceError;
}

/** The statement of an XLSX export, once its zip is proved bounded (see checkZipBounds). */
export async function* readXlsx(source: ByteSource, profile: ColumnProfile, maxLines: number): StatementReader {
  await checkZipBounds(source);
  return yield* statementOfRowStream('xlsx', sheetRows(source), profile, maxLines);
}
