import iconv from 'iconv-lite';
import { StatementFormatError, type ParsedLine, type ParsedStatement, type StatementHead } from '../../core/bank-statements/statements';
import { CODE_PAGE_NAMES, type CodePage } from './code-pages';
import { firstInvalidUtf8, MAX_LINE_LENGTH, refuseControlCharacters } from './fields';

// A statement file read as a stream: its bytes come in chunks (from the database, a MiB at a time, or from a
// buffer), are decoded a line or a chunk at a time, and each reader yields the transactions as it reads them.
// Nothing holds the whole file, its text, or all of its lines: what a reader keeps is bounded by a line, an
// element or a section, so the memory an import takes does not grow with the file (issue: a 20 MiB statement
// must not take ten times that).

/** A file's bytes, as many times as a reader asks (the 1C text is read twice), in chunks of any size. */
export type ByteSource = () => AsyncIterable<Uint8Array>;

export type { StatementHead };

/** One transaction of the file, with the 0-based index of the statement it belongs to (its place in the heads). */
export interface StatementLine {
  statement: number;
  line: ParsedLine;
}

/**
 * A reader of one format: yields the file's transactions in the file's order and returns the statements'
 * heads, in the file's order, once the whole file has been read and found sound. A StatementFormatError may
 * come at any point, after some lines were yielded: whoever stores them stores them in a transaction that the
 * error rolls back.
 */
export type StatementReader = AsyncGenerator<StatementLine, StatementHead[], undefined>;

/** A buffer as a source, in chunks of `chunkSize` bytes. */
export function bytesSource(bytes: Uint8Array, chunkSize = 64 * 1024): ByteSource {
  return async function* chunks() {
    for (let at = 0; at < bytes.byteLength; at += chunkSize) yield bytes.subarray(at, Math.min(at + chunkSize, bytes.byteLength));
  };
}

/** The first `n` bytes of the source (fewer when it is shorter), for telling its format. */
export async function firstBytes(source: ByteSource, n: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let have = 0;
  for await (const chunk of source()) {
    parts.push(chunk.subarray(0, n - have));
    have += Math.min(chunk.byteLength, n - have);
    if (have >= n) break;
  }
  return Buffer.concat(parts);
}

/** The statements of a reader gathered whole (each head with its lines): for a file small enough to hold. */
export async function collectStatements(reader: StatementReader): Promise<ParsedStatement[]> {
  const lines: ParsedLine[][] = [];
  for (;;) {
    const next = await reader.next();
    if (next.done) return next.value.map((head, i) => ({ ...head, lines: lines[i] ?? [] }));
    (lines[next.value.statement] ??= []).push(next.value.line);
  }
}

interface ByteLine {
  /** 1-based. */
  number: number;
  /** The line without its "\n" (and a "\r" before it). */
  bytes: Uint8Array;
}

/** The most bytes of a line of MAX_LINE_LENGTH characters (four per character in UTF-8). */
const MAX_LINE_BYTES = 4 * MAX_LINE_LENGTH;

const tooLong = (number: number) => new StatementFormatError('malformed', `the line is longer than ${MAX_LINE_LENGTH} characters`, number);

/**
 * The byte lines of a source, "\n" or "\r\n" ended, numbered from 1; a last line without "\n" counts, an empty
 * one after the last "\n" does not. A line is never held longer than MAX_LINE_BYTES: past that it is refused.
 */
export async function* byteLines(source: ByteSource): AsyncGenerator<ByteLine> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let number = 1;
  const line = (tail: Uint8Array): ByteLine => {
    let bytes = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    if (bytes.byteLength > 0 && bytes[bytes.byteLength - 1] === 0x0d) bytes = bytes.subarray(0, bytes.byteLength - 1);
    pending = [];
    pendingBytes = 0;
    return { number, bytes };
  };
  for await (const chunk of source()) {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end < 0) break;
      if (pendingBytes + end - start > MAX_LINE_BYTES + 1) throw tooLong(number);
      yield line(chunk.subarray(start, end));
      number += 1;
      start = end + 1;
    }
    if (start < chunk.byteLength) {
      pendingBytes += chunk.byteLength - start;
      if (pendingBytes > MAX_LINE_BYTES + 1) throw tooLong(number);
      // A copy: the source may reuse its chunk's memory.
      pending.push(Uint8Array.prototype.slice.call(chunk, start));
    }
  }
  if (pendingBytes > 0) yield line(new Uint8Array(0));
}

export interface TextLine {
  number: number;
  text: string;
}

/**
 * The text lines of a source in a code page, in batches (the complete lines of a chunk), checked as the whole
 * text was: UTF-8 strictly (the offending byte's offset in the file said), a Cyrillic code page refused where
 * a line is UTF-8 with non-ASCII characters (Cyrillic in Windows-1251 or CP866 practically never is), no control
 * characters, no line longer than MAX_LINE_LENGTH characters. A byte order mark is dropped from the start of
 * the file only. A chunk's lines are checked and decoded together, and handed on as one batch: a line at a
 * time, the decoding and the handing on took longer than reading the lines.
 */
export async function* textLinesOf(source: ByteSource, page: CodePage, what: string): AsyncGenerator<TextLine[]> {
  // One decoder for the whole file, so that only a mark at its very start is taken for a byte order mark.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let pending: Uint8Array = new Uint8Array(0);
  let offset = 0; // of pending's first byte in the file
  let number = 1; // of pending's first line
  /** The lines of `bytes`, whole lines from the file's offset `offset`, the first numbered `number`. */
  const linesOf = (bytes: Uint8Array): TextLine[] => {
    let text: string;
    if (page === 'utf-8') {
      const invalid = firstInvalidUtf8(bytes);
      if (invalid >= 0) throw new StatementFormatError('encoding', `${what} is not valid UTF-8 (byte ${offset + invalid + 1})`, number + countLineFeeds(bytes, 0, invalid));
      text = utf8.decode(bytes, { stream: true });
    } else {
      refuseUtf8Lines(bytes, page, what, number);
      text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), page);
    }
    refuseControlCharacters(text, what, number);
    const lines: TextLine[] = [];
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
      if (line.length > MAX_LINE_LENGTH) throw tooLong(number);
      lines.push({ number, text: line });
      number += 1;
      start = end + 1;
    }
    return lines;
  };
  for await (const chunk of source()) {
    const last = chunk.lastIndexOf(0x0a);
    if (last < 0) {
      if (pending.byteLength + chunk.byteLength > MAX_LINE_BYTES + 1) throw tooLong(number);
      pending = Buffer.concat([pending, chunk]);
      continue;
    }
    const whole = pending.byteLength === 0 ? chunk.subarray(0, last + 1) : Buffer.concat([pending, chunk.subarray(0, last + 1)]);
    // The line the chunk ends inside, kept (a copy: the source may reuse its chunk's memory).
    const rest = Uint8Array.prototype.slice.call(chunk, last + 1);
    if (rest.byteLength > MAX_LINE_BYTES + 1) throw tooLong(number + countLineFeeds(whole, 0, whole.byteLength));
    const lines = linesOf(whole);
    offset += whole.byteLength;
    pending = rest;
    if (lines.length > 0) yield lines;
  }
  if (pending.byteLength > 0) yield linesOf(pending);
}

/** Refuses, under a single-byte code page, the first line of `bytes` that is UTF-8 with non-ASCII characters. */
function refuseUtf8Lines(bytes: Uint8Array, page: CodePage, what: string, firstLine: number): void {
  let start = 0;
  let line = firstLine;
  while (start < bytes.byteLength) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.byteLength;
    let high = false;
    for (let i = start; i < end && !high; i += 1) high = bytes[i]! >= 0x80;
    if (high && firstInvalidUtf8(bytes, start, end) < 0) throw new StatementFormatError('encoding', `${what} is declared ${CODE_PAGE_NAMES[page]}, but this line is UTF-8`, line);
    start = end + 1;
    line += 1;
  }
}

/**
 * The UTF-8 text of a source, a chunk at a time, checked strictly: a byte that breaks UTF-8 is refused with its
 * offset and line; a character cut between two chunks is carried to the next. For a format that is not read
 * by lines (XML may be one line).
 */
export async function* utf8Chunks(source: ByteSource, what: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let carry: Uint8Array = new Uint8Array(0);
  let offset = 0;
  let lines = 1;
  for await (const chunk of source()) {
    const bytes = carry.byteLength === 0 ? chunk : Buffer.concat([carry, chunk]);
    const end = completeEnd(bytes);
    const invalid = firstInvalidUtf8(bytes, 0, end);
    if (invalid >= 0) throw new StatementFormatError('encoding', `${what} is not valid UTF-8 (byte ${offset + invalid + 1})`, lines + countLineFeeds(bytes, 0, invalid));
    lines += countLineFeeds(bytes, 0, end);
    offset += end;
    carry = Uint8Array.prototype.slice.call(bytes, end);
    if (end > 0) yield decoder.decode(bytes.subarray(0, end), { stream: true });
  }
  if (carry.byteLength > 0) {
    throw new StatementFormatError('encoding', `${what} is not valid UTF-8 (byte ${offset + 1})`, lines);
  }
}

/** Where the bytes end short of a character that the next chunk completes (their length when none is cut). */
function completeEnd(bytes: Uint8Array): number {
  const n = bytes.byteLength;
  for (let back = 1; back <= 3 && back <= n; back += 1) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

function countLineFeeds(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a, start); i >= 0 && i < end; i = bytes.indexOf(0x0a, i + 1)) n += 1;
  return n;
}
