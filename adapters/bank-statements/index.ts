import { StatementFormatError, type ParsedStatement, type StatementFormat } from '../../core/bank-statements/statements';
import { parseCamt053 } from './camt053';
import type { ColumnProfile } from './column-profile';
import { parseCsv } from './csv';
import { DEFAULT_MAX_LINES, MAX_STATEMENT_BYTES } from './fields';
import { parseMt940 } from './mt940';
import { decodeOneC, ONE_C_SIGNATURE, parseOneC } from './one-c';
import { parseXlsx } from './xlsx';

// A bank's statement file, as the bank exported it, to plain statements: the format is told from the bytes
// (the content type, when given, must agree), bounded in size and in lines, and refused whole with one
// StatementFormatError when anything in it cannot be read. A file may hold several statements (several
// accounts, or several days of one account); each comes back on its own, in the file's order, and no line is
// ever merged or dropped as a duplicate of another.

export { checkColumnProfile, type ColumnProfile } from './column-profile';

export interface ParseStatementOptions {
  /** The content type the file came with; when given, the format found must be one it names. */
  contentType?: string;
  /** How to read a CSV or XLSX export; required for those. */
  profile?: ColumnProfile;
  /** The most transactions read from the file (DEFAULT_MAX_LINES unless said). */
  maxLines?: number;
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FORMATS_OF_TYPE: Record<string, StatementFormat[]> = {
  'text/plain': ['1c', 'mt940'],
  'application/xml': ['camt.053'],
  'text/xml': ['camt.053'],
  'text/csv': ['csv'],
  [XLSX_TYPE]: ['xlsx'],
};

const startsWith = (bytes: Uint8Array, at: number, text: string) => bytes.length >= at + text.length && [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** The format of the file from its first bytes; CSV is what is left when a column profile is given. */
function sniff(bytes: Uint8Array, hasProfile: boolean): StatementFormat {
  if (startsWith(bytes, 0, 'PK\x03\x04')) return 'xlsx';
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new StatementFormatError('encoding', 'the file is UTF-16; statements are read as UTF-8 or a Cyrillic code page');
  }
  let at = startsWith(bytes, 0, '\xef\xbb\xbf') ? 3 : 0;
  if (startsWith(bytes, at, ONE_C_SIGNATURE)) return '1c';
  while (at < bytes.length && at < 4096 && (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0d || bytes[at] === 0x0a)) at += 1;
  if (bytes[at] === 0x3c /* < */) return 'camt.053';
  if (startsWith(bytes, at, ':20:') || startsWith(bytes, at, '{1:')) return 'mt940';
  if (hasProfile) return 'csv';
  throw new StatementFormatError('unsupported-format', 'the file is none of the 1C exchange text, camt.053, MT940, or a CSV or XLSX export with a column profile');
}

export async function parseBankStatement(bytes: Uint8Array, options: ParseStatementOptions = {}): Promise<ParsedStatement[]> {
  if (bytes.byteLength > MAX_STATEMENT_BYTES) {
    throw new StatementFormatError('too-large', `the file is ${bytes.byteLength} bytes, more than ${MAX_STATEMENT_BYTES} (20 MiB)`);
  }
  if (bytes.byteLength === 0) throw new StatementFormatError('truncated', 'the file is empty');
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  if (!Number.isSafeInteger(maxLines) || maxLines < 0) throw new RangeError(`maxLines must be a whole number of lines, not ${maxLines}`);
  const format = sniff(bytes, options.profile !== undefined);
  if (options.contentType !== undefined) {
    const type = options.contentType.split(';')[0]!.trim().toLowerCase();
    const allowed = FORMATS_OF_TYPE[type] ?? [];
    if (!allowed.includes(format)) throw new StatementFormatError('unsupported-format', `the file reads as ${format}, which is not what ${type} names`);
  }
  switch (format) {
    case '1c':
      return parseOneC(decodeOneC(bytes), maxLines);
    case 'camt.053':
      return parseCamt053(bytes, maxLines);
    case 'mt940':
      return parseMt940(bytes, maxLines);
    case 'csv':
    case 'xlsx': {
      if (!options.profile) throw new StatementFormatError('unsupported-format', 'an XLSX export is read only with a column profile');
      return [format === 'csv' ? parseCsv(bytes, options.profile, maxLines) : await parseXlsx(bytes, options.profile, maxLines)];
    }
  }
}
