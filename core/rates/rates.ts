// Exchange rates: the port every rate source implements, and the rules of freshness. Rates are decimal
// strings from the feed to the database (NUMERIC); only the JSON answer turns them into numbers.
import Decimal from 'decimal.js';

/** The service's base currency: every rate is in UZS per one unit of the foreign currency. */
export const BASE_CURRENCY = 'UZS';

/** CBU: the Central Bank of Uzbekistan (official rate). BANK: a commercial bank (buy and sell prices). */
export type RateSourceCode = 'CBU' | 'BANK';

/** The zone whose calendar day the rates apply to (and whose "today" GET /rates defaults to). */
export const RATES_TIME_ZONE = 'Asia/Tashkent';

/** What a source published for one currency: decimals as canonical strings, never floats. */
export interface SourcedRate {
  currency: string;
  name: string;
  /** The day the rate applies to (YYYY-MM-DD). */
  effectiveDate: string;
  /** The source's own timestamp for the publication, when it gives one (ISO 8601, UTC). */
  sourceUpdatedAt: string | null;
  rate: string | null;
  buyRate: string | null;
  sellRate: string | null;
}

/** A row of the source's document that was left out, and why. */
export interface SkippedRow {
  index: number;
  reason: string;
}

export interface RateDocument {
  source: RateSourceCode;
  rates: SourcedRate[];
  skipped: SkippedRow[];
}

/** The source answered something that is not its document: retrying cannot help. */
export class MalformedRateDocument extends Error {}

/**
 * The source could not be read. `retryable` is true for what may pass (network, timeouts, 5xx, 429)
 * and false for what will not (404, 403, other 4xx).
 */
export class RateSourceUnavailable extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

/** The port: one source of rates, read once per refresh. */
export interface RateSource {
  readonly code: RateSourceCode;
  fetchRates(): Promise<RateDocument>;
}

export type RatesStatus = 'FRESH' | 'STALE' | 'UNAVAILABLE';

/**
 * FRESH while the last success is younger than two refresh intervals, STALE after, UNAVAILABLE when no
 * rate applies (none was ever stored, or none on or before the day asked for).
 */
export function ratesStatus(input: { hasRates: boolean; lastSuccessAt: Date | null; now: Date; refreshIntervalSeconds: number }): RatesStatus {
  if (!input.hasRates || !input.lastSuccessAt) return 'UNAVAILABLE';
  const age = input.now.getTime() - input.lastSuccessAt.getTime();
  return age < 2 * input.refreshIntervalSeconds * 1000 ? 'FRESH' : 'STALE';
}

/** Digits a rate keeps: at most 10 decimals and 15 significant digits, so a JSON number carries it exactly. */
export const RATE_SCALE = 10;
export const RATE_SIGNIFICANT_DIGITS = 15;

const DECIMAL = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,10})?$/;

/**
 * A feed's decimal text ("12725.43", "0.77") as a canonical positive decimal, or null when it is not one.
 * Leading and trailing spaces are forgiven; signs, exponents, thousands separators, zero and more than
 * 15 significant digits are not.
 */
export function parseRate(text: unknown): string | null {
  if (typeof text !== 'string' && typeof text !== 'number') return null;
  const trimmed = String(text).trim();
  if (!DECIMAL.test(trimmed)) return null;
  const value = new Decimal(trimmed);
  if (value.isZero() || value.precision(true) > RATE_SIGNIFICANT_DIGITS) return null;
  return canonical(value);
}

/**
 * Rate ÷ Nominal exactly: a quotient that does not terminate within 10 decimals and 15 significant digits
 * is rounded half-even there (a power-of-ten Nominal always terminates).
 */
export function perUnit(rate: string, nominal: number): string {
  const exact = new Decimal(rate).dividedBy(nominal);
  return canonical(exact.toSignificantDigits(RATE_SIGNIFICANT_DIGITS, Decimal.ROUND_HALF_EVEN).toDecimalPlaces(RATE_SCALE, Decimal.ROUND_HALF_EVEN));
}

/** "12725.4300" → "12725.43"; "1E-7" → "0.0000001". */
export function canonical(value: Decimal | string): string {
  const d = new Decimal(value);
  return d.toFixed(Math.max(0, d.decimalPlaces()));
}

/** The comparison the adapters need: is a ≤ b for two canonical decimals. */
export function rateAtMost(a: string, b: string): boolean {
  return new Decimal(a).lessThanOrEqualTo(b);
}

const names = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'none' });

/** The English name of an ISO 4217 code ("US Dollar"), or null when ICU does not know it. */
export function currencyName(code: string): string | null {
  try {
    return names.of(code) ?? null;
  } catch {
    return null;
  }
}

const symbols = new Map<string, string>();

/** The currency's narrow symbol ("$", "€", "₽"), or the code itself when it has none; computed once per code. */
export function currencySymbol(code: string): string {
  let symbol = symbols.get(code);
  if (symbol === undefined) {
    try {
      const parts = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(0);
      symbol = parts.find((p) => p.type === 'currency')?.value ?? code;
    } catch {
      symbol = code;
    }
    symbols.set(code, symbol);
  }
  return symbol;
}

/** Uzbekistan keeps UTC+5 all year (no daylight saving since 1992). */
const TASHKENT_OFFSET = '+05:00';

const tashkentDay = new Intl.DateTimeFormat('en-CA', { timeZone: RATES_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar day in Tashkent at `instant` (YYYY-MM-DD). */
export function tashkentDate(instant: Date): string {
  return tashkentDay.format(instant);
}

/** A Tashkent wall-clock time as an instant (ISO 8601, UTC). */
export function tashkentInstant(date: string, time = '00:00:00'): string {
  return new Date(`${date}T${time}${TASHKENT_OFFSET}`).toISOString();
}
