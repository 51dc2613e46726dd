import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { StatementFormatError, type ParsedStatement } from '../../core/bank-statements/statements';
import { FOOTER_ROWS, statementOfRows, type Cell, type ColumnProfile, type Row } from './column-profile';
import { MAX_LINE_LENGTH } from './fields';
import { checkZipBounds } from './zip-bounds';

// An XLSX export read with its column profile: the first worksheet, streamed row by row and left as soon as
// the table's limit is passed. A formula is kept as its own text ("=A1+B1") in a text column and refused in
// an amount or date column: its cached result is whatever the last program to save the file computed.

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

export async function parseXlsx(bytes: Uint8Array, profile: ColumnProfile, maxLines: number): Promise<ParsedStatement> {
  await checkZipBounds(bytes);
  const limit = profile.headerRow + maxLines + FOOTER_ROWS;
  const rows: Row[] = [];
  let more = false;
  let refused: StatementFormatError | undefined;
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]), {
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
    // The reader is always run to its end: ExcelJS parks a worksheet that comes before the shared strings in a
    // temporary file and removes it only when the reader moves on, so leaving the loop early would leave the
    // file behind. Leaving a worksheet's rows early is fine (its stream is closed); the other sheets are left
    // at their first row.
    let first = true;
    for await (const sheet of reader) {
      if (!first || refused) {
        for await (const _row of sheet) break;
        continue;
      }
      first = false;
      for await (const row of sheet) {
        if (row.number > limit) {
          more = true;
          break;
        }
        while (rows.length < row.number - 1) rows.push([]);
        const values = Array.isArray(row.values) ? row.values.slice(1) : [];
        const cells = Array.from(values, cellOf);
        if (cells.reduce((n, cell) => n + cell.text.length, 0) > MAX_LINE_LENGTH) {
          refused = new StatementFormatError('malformed', `the row is longer than ${MAX_LINE_LENGTH} characters`, row.number);
          break;
        }
        rows.push(cells);
      }
    }
  } catch (error) {
    throw new StatementFormatError('malformed', `the XLSX file cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (refused) throw refused;
  return statementOfRows('xlsx', rows, more, profile, maxLines);
}
