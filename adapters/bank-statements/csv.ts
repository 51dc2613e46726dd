import Papa from 'papaparse';
import { StatementFormatError, type ParsedStatement } from '../../core/bank-statements/statements';
import { decodeCodePage } from './code-pages';
import { FOOTER_ROWS, statementOfRows, type ColumnProfile, type Row } from './column-profile';
import { MAX_LINE_LENGTH, quote } from './fields';

// A CSV export read with its column profile. Every cell is text: one that starts with =, +, - or @ stays the
// text it is (nothing here evaluates anything), and an amount column holding one is refused as not an amount.

export function parseCsv(bytes: Uint8Array, profile: ColumnProfile, maxLines: number): ParsedStatement {
  const text = decodeCodePage(bytes, profile.encoding ?? 'utf-8', 'the CSV file');
  const delimiter = profile.delimiter ?? ',';
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new StatementFormatError('malformed', `the column profile's delimiter ${quote(delimiter)} is not one character other than a quote or a line break`);
  }
  const limit = profile.headerRow + maxLines + FOOTER_ROWS;
  const result = Papa.parse<string[]>(text, { delimiter, quoteChar: '"', header: false, dynamicTyping: false, skipEmptyLines: false, preview: limit });
  const error = result.errors[0];
  if (error) {
    const row = (error.row ?? 0) + 1;
    const unterminated = error.code === 'MissingQuotes' && row >= result.data.length;
    throw new StatementFormatError(unterminated ? 'truncated' : 'malformed', unterminated ? 'a quoted field is not closed before the end of the file' : error.message, row);
  }
  const rows: Row[] = result.data.map((cells, i) => {
    if (cells.reduce((n, cell) => n + cell.length, 0) > MAX_LINE_LENGTH) {
      throw new StatementFormatError('malformed', `the row is longer than ${MAX_LINE_LENGTH} characters`, i + 1);
    }
    return cells.map((cell) => ({ kind: 'text' as const, text: cell }));
  });
  return statementOfRows('csv', rows, result.meta.truncated, profile, maxLines);
}
