import { isCalendarDate } from '../../core/shared/calendar';
import { BASE_CURRENCY, MalformedRateDocument, currencyName, type RateDocument, type RateSourceCode, type SkippedRow, type SourcedRate } from '../../core/rates/rates';

// What both feeds share: a JSON array of rows read one by one, where a bad row is left out with its
// reason and a document without a single usable row is refused as a whole.

export type RowResult = { rate: SourcedRate } | { skip: string };

const CODE = /^[A-Z]{3}$/;

/** An ISO 4217 alphabetic code other than the base currency, or the reason it is not one. */
export function currencyCode(value: unknown): { code: string } | { skip: string } {
  if (typeof value !== 'string' || !CODE.test(value.trim())) return { skip: `currency code ${describe(value)} is not three capital letters` };
  const code = value.trim();
  if (code === BASE_CURRENCY) return { skip: `${BASE_CURRENCY} is the base currency` };
  return { code };
}

/** The feed's name for the currency, else the English name ICU knows, else the code. */
export function nameOf(code: string, feedName: unknown): string {
  const trimmed = typeof feedName === 'string' ? feedName.trim().replace(/\s+/g, ' ') : '';
  if (trimmed.length > 0 && trimmed.length <= 100) return trimmed;
  return currencyName(code) ?? code;
}

/** "23.11.2026" → "2026-11-23", or null when it names no calendar day. */
export function dottedDate(value: string): string | null {
  const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value);
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  return isCalendarDate(iso) ? iso : null;
}

/** A short, printable rendering of a feed value for a log line or a failure message. */
export function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Reads every row with `readRow`; later duplicates of a currency are skipped. */
export function readRows(source: RateSourceCode, label: string, document: unknown, readRow: (row: Record<string, unknown>) => RowResult): RateDocument {
  if (!Array.isArray(document)) throw new MalformedRateDocument(`${label}: the document is not a JSON array of rates (got ${describe(document)})`);
  const rates: SourcedRate[] = [];
  const skipped: SkippedRow[] = [];
  const seen = new Set<string>();
  document.forEach((row: unknown, index) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      skipped.push({ index, reason: `row is not an object (${describe(row)})` });
      return;
    }
    const result = readRow(row as Record<string, unknown>);
    if ('skip' in result) {
      skipped.push({ index, reason: result.skip });
    } else if (seen.has(result.rate.currency)) {
      skipped.push({ index, reason: `${result.rate.currency} appears twice; the first row is kept` });
    } else {
      seen.add(result.rate.currency);
      rates.push(result.rate);
    }
  });
  if (rates.length === 0) {
    const first = skipped[0] ? ` (row ${skipped[0].index}: ${skipped[0].reason})` : '';
    throw new MalformedRateDocument(`${label}: none of the ${document.length} rows is a usable rate${first}`);
  }
  return { source, rates, skipped };
}
