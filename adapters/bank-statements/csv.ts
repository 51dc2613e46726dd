import Papa from 'papaparse';
import { StatementFormatError } from '../../core/bank-statements/statements';
import { statementOfRowStream, type ColumnProfile, type Row } from './column-profile';
import { MAX_LINE_LENGTH, quote } from './fields';
import { textLinesOf, type ByteSource, type StatementReader } from './source';

// A CSV export read with its column profile. Every cell is text: one that starts with =, +, - or @ stays the
// text it is (nothing here evaluates anything), and an amount column holding one is refused as not an amount.
//
// The file is decoded line by line and its records parsed a batch of lines at a time, so a quoted field may
// run over several lines. The lines come without their "\r", so a line break inside a quoted field reads as
// "\n" whatever the file's line ends.

/** The text parsed at once: lines are gathered up to this many characters. */
const BATCH_CHARS = 64 * 1024;
/**
 * The longest text of a record that is not closed yet. A record whose cells hold MAX_LINE_LENGTH characters
 * is written in far fewer than this (quotes doubled, a pair of quotes and a delimiter per field); past it the
 * record is refused without waiting for its end, so an unclosed quote cannot make the reader hold the file.
 */
const MAX_OPEN_RECORD = 4 * MAX_LINE_LENGTH;

const tooLong = (record: number) => new StatementFormatError('malformed', `the row is longer than ${MAX_LINE_LENGTH} characters`, record);

interface PapaError {
  code: string;
  message: string;
  /** The row within the text parsed. */
  row?: number;
}

interface PapaResult {
  data: string[][];
  errors: PapaError[];
  meta: { cursor: number };
}

/** The records of the file as rows of text cells, numbered from 1 in errors (a record, not a line, of the file). */
async function* csvRows(source: ByteSource, profile: ColumnProfile, delimiter: string): AsyncGenerator<Row> {
  // Papa's own parser, as its streaming readers drive it: each call parses the text it is given, and with
  // `ignoreLastRow` leaves the last record, which may go on in the next lines, for the next call.
  const parser = new Papa.Parser({ delimiter, newline: '\n', quoteChar: '"' });
  let pending = '';
  let records = 0;
  const parse = function* (last: boolean): Generator<Row> {
    const result = parser.parse(pending, 0, !last) as PapaResult;
    const error = result.errors[0];
    const rows = error ? result.data.slice(0, error.row ?? 0) : result.data;
    for (const cells of rows) {
      records += 1;
      if (cells.reduce((n, cell) => n + cell.length, 0) > MAX_LINE_LENGTH) throw tooLong(records);
      yield cells.map((cell) => ({ kind: 'text' as const, text: cell }));
    }
    if (error) {
      // A quote left open is reported only at the end of the file: the file was cut inside a quoted field.
      const unterminated = error.code === 'MissingQuotes';
      throw new StatementFormatError(unterminated ? 'truncated' : 'malformed', unterminated ? 'a quoted field is not closed before the end of the file' : error.message, records + 1);
    }
    pending = last ? '' : pending.slice(result.meta.cursor);
    if (pending.length > MAX_OPEN_RECORD) throw tooLong(records + 1);
  };
  for await (const batch of textLinesOf(source, profile.encoding ?? 'utf-8', 'the CSV file')) {
    for (const { text } of batch) {
      pending += `${text}\n`;
      if (pending.length >= BATCH_CHARS) yield* parse(false);
    }
  }
  yield* parse(false);
  // What is left is a record whose quoted field never closes.
  if (pending !== '') yield* parse(true);
}

/** The statement of a CSV export; the file is read only up to FOOTER_ROWS rows after its table (see statementOfRowStream). */
export async function* readCsv(source: ByteSource, profile: ColumnProfile, maxLines: number): StatementReader {
  const delimiter = profile.delimiter ?? ',';
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new StatementFormatError('malformed', `the column profile's delimiter ${quote(delimiter)} is not one character other than a quote or a line break`);
  }
  return yield* statementOfRowStream('csv', csvRows(source, profile, delimiter), profile, maxLines);
}
