import { StatementFormatError, type ParsedStatement, type StatementFormat } from '../../core/bank-statements/statements';
import { readCamt053 } from './camt053';
import type { ColumnProfile } from './column-profile';
import { readCsv } from './csv';
import { DEFAULT_MAX_LINES, MAX_STATEMENT_BYTES } from './fields';
import { readMt940 } from './mt940';
import { ONE_C_SIGNATURE, readOneC } from './one-c';
import { bytesSource, collectStatements, firstBytes, type ByteSource, type StatementReader } from './source';
import { readXlsx } from './xlsx';

// A bank's statement file, as the bank exported it, to plain statements: the format is told from the bytes
// (the content type, when given, must agree), bounded in size and in lines, and refused whole with one
// StatementFormatError when anything in it cannot be read. A file may hold several statements (several
// accounts, or several days of one account); each comes back on its own, in the file's order, and no line is
// ever merged or dropped as a duplicate of another.

export { checkColumnProfile, type ColumnProfile } from './column-profile';
export { bytesSource, collectStatements, type ByteSource, type StatementReader } from './source';

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

/** The bytes the format is told from: a byte order mark, a signature, up to 4 KiB of white space and the first mark of the format. */
const SNIFF_BYTES = 4096 + 64;

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

/** What a reader is told of the file besides its bytes. */
export interface ReadStatementOptions extends ParseStatementOptions {
  /** The file's size in bytes (refused over MAX_STATEMENT_BYTES before anything is read). */
  size: number;
}

/**
 * The file's transactions as they are read, and its statements' heads at the end (see StatementReader): the
 * format told from its first bytes, the file never held whole.
 */
export async function* readBankStatement(source: ByteSource, options: ReadStatementOptions): StatementReader {
  if (options.size > MAX_STATEMENT_BYTES) {
    throw new StatementFormatError('too-large', `the file is ${options.size} bytes, more than ${MAX_STATEMENT_BYTES} (20 MiB)`);
  }
  if (options.size === 0) throw new StatementFormatError('truncated', 'the file is empty');
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  if (!Number.isSafeInteger(maxLines) || maxLines < 0) throw new RangeError(`maxLines must be a whole number of lines, not ${maxLines}`);
  const format = sniff(await firstBytes(source, SNIFF_BYTES), options.profile !== undefined);
  if (options.contentType !== undefined) {
    const type = options.contentType.split(';')[0]!.trim().toLowerCase();
    const allowed = FORMATS_OF_TYPE[type] ?? [];
    if (!allowed.includes(format)) throw new StatementFormatError('unsupported-format', `the file reads as ${format}, which is not what ${type} names`);
  }
  switch (format) {
    case '1c':
      return yield* readOneC(source, maxLines);
    case 'camt.053':
      return yield* readCamt053(source, maxLines);
    case 'mt940':
      return yield* readMt940(source, maxLines);
    case 'csv':
    case 'xlsx': {
      if (!options.profile) throw new StatementFormatError('unsupported-format', 'an XLSX export is read only with a column profile');
      return yield* (format === 'csv' ? readCsv(source, options.profile, maxLines) : readXlsx(source, options.profile, maxLines));
    }
  }
}

/** The statements of a file held in memory, each with its lines (tests, and files known to be small). */
export async function parseBankStatement(bytes: Uint8Array, options: ParseStatementOptions = {}): Promise<ParsedStatement[]> {
  return collectStatements(readBankStatement(bytesSource(bytes), { ...options, size: bytes.byteLength }));
}
