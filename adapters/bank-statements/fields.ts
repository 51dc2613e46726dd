import Decimal from 'decimal.js';
import { isCalendarDate } from '../../core/shared/calendar';
import { StatementFormatError } from '../../core/bank-statements/statements';

// What every format's reader shares: the bounds, strict UTF-8, lines of bounded length, and amounts and days
// read exactly from the text. Every pattern here is anchored and runs on a string whose length was checked
// first, so no input can make a regular expression backtrack for long.

/** The largest file read: 20 MiB. */
export const MAX_STATEMENT_BYTES = 20 * 1024 * 1024;
/** Transactions read from one file unless the caller says otherwise. */
export const DEFAULT_MAX_LINES = 100_000;
/** The longest line of a text format (a 1C key=value line, an MT940 line, a CSV record). */
export const MAX_LINE_LENGTH = 4096;
/** The longest value kept from one field (a purpose, a name). */
const MAX_FIELD_LENGTH = 1000;

/** The offset of the first byte of `bytes[start, end)` that breaks UTF-8, or -1 when the range is valid UTF-8. */
export function firstInvalidUtf8(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let i = start;
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= end) return i;
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k += 1) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** Refuses control characters other than tab, line feed and carriage return: such a file is not text. `firstLine` is the text's first line in the file. */
export function refuseControlCharacters(text: string, what: string, firstLine = 1): void {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f || c === 0xfffd) {
      const line = firstLine - 1 + text.slice(0, i).split('\n').length;
      const name = c === 0xfffd ? 'a byte the code page does not define' : `control character U+${c.toString(16).padStart(4, '0').toUpperCase()}`;
      throw new StatementFormatError('encoding', `${what} contains ${name}`, line);
    }
  }
}

const AMOUNT_DOT = /^(-?)([0-9]{1,18})(?:\.([0-9]{0,10}))?$/;
const AMOUNT_COMMA = /^(-?)([0-9]{1,18})(?:,([0-9]{0,10}))?$/;

interface AmountOptions {
  separator: '.' | ',';
  /** A transaction's amount is 'positive' (the default); a balance written with a sign is 'any', one with a C/D mark beside it 'non-negative'. */
  sign?: 'positive' | 'non-negative' | 'any';
  /** Also allows a separator with no digits after it ("500," as MT940 writes it). */
  bareSeparator?: boolean;
}

/**
 * An amount as its text says it, to two decimals ("1250.5" → "1250.50"); more than two decimals are refused
 * unless the extra ones are zeros, since the books keep two.
 */
export function decimalAmount(text: string, options: AmountOptions, what: string, line?: number): string {
  const m = text.length <= 40 ? (options.separator === '.' ? AMOUNT_DOT : AMOUNT_COMMA).exec(text) : null;
  const sign = options.sign ?? 'positive';
  if (!m || (m[1] === '-' && sign !== 'any') || (m[3] === '' && !options.bareSeparator)) {
    throw new StatementFormatError('malformed', `${what} ${quote(text)} is not an amount with "${options.separator}" as its decimal separator`, line);
  }
  const fraction = m[3] ?? '';
  if (/[1-9]/.test(fraction.slice(2))) throw new StatementFormatError('malformed', `${what} ${quote(text)} has more than two decimals`, line);
  const value = new Decimal(`${m[1]}${m[2]}.${fraction.slice(0, 2).padEnd(2, '0')}`);
  if (sign === 'positive' && value.isZero()) throw new StatementFormatError('malformed', `${what} ${quote(text)} is not greater than zero`, line);
  return value.isZero() ? '0.00' : value.toFixed(2);
}

const DMY = /^([0-9]{2})\.([0-9]{2})\.([0-9]{4})$/;

/** "23.11.2026" → "2026-11-23"; anything else, or a day that does not exist, is refused. */
export function dottedDay(text: string, what: string, line?: number): string {
  const m = DMY.exec(text);
  const iso = m ? `${m[3]}-${m[2]}-${m[1]}` : '';
  if (!isCalendarDate(iso)) throw new StatementFormatError('malformed', `${what} ${quote(text)} is not a DD.MM.YYYY day`, line);
  return iso;
}

/** A YYYY-MM-DD day, checked against the calendar. */
export function isoDay(text: string, what: string, line?: number): string {
  if (!isCalendarDate(text)) throw new StatementFormatError('malformed', `${what} ${quote(text)} is not a YYYY-MM-DD day`, line);
  return text;
}

/** A text field as kept: trimmed, at most MAX_FIELD_LENGTH characters. */
export function fieldText(text: string, what: string, line?: number): string {
  const trimmed = text.trim();
  if (trimmed.length > MAX_FIELD_LENGTH) throw new StatementFormatError('malformed', `${what} is longer than ${MAX_FIELD_LENGTH} characters`, line);
  return trimmed;
}

/** A short rendering of a value of the file for a message. */
export function quote(text: string): string {
  const json = JSON.stringify(text);
  return json.length > 42 ? `${json.slice(0, 40)}…"` : json;
}

/** An optional text field: trimmed, and undefined when empty. */
export function optionalText(text: string | undefined, what: string, line?: number): string | undefined {
  if (text === undefined) return undefined;
  const kept = fieldText(text, what, line);
  return kept === '' ? undefined : kept;
}

/** Leaves out the members that are undefined, so equal statements compare equal whatever the format. */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as T;
}
