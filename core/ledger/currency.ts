import Decimal from 'decimal.js';
import { AMOUNT_PATTERN } from './money';

// Foreign currency on the ledger: which codes a line may name, how many decimals its amount may have, and the
// conversion to UZS. Decimal strings and decimal.js (arbitrary precision, base 10) all the way: no float.

/** How a line's rate was chosen: the stored CBU rate of the entry date, a bank's rate, or one the client set. */
export type RateSourceKind = 'CBU' | 'BANK' | 'MANUAL';

/** The functional currency: debits and credits are in it, and rates are UZS per one unit of a foreign currency. */
export const FUNCTIONAL_CURRENCY = 'UZS';

/** The decimals a foreign amount column holds (NUMERIC(19,3)); a currency with more minor digits keeps three. */
const MAX_FOREIGN_DECIMALS = 3;

const known = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 4217 code the runtime knows (ICU's list, which is ISO 4217's current codes). */
export function isKnownCurrency(code: string): boolean {
  return known.has(code);
}

const digitCache = new Map<string, number>();

/** The decimals an amount in the currency may have: its ISO 4217 minor unit (USD 2, JPY 0, KWD 3), at most 3. */
export function currencyDecimals(code: string): number {
  let digits = digitCache.get(code);
  if (digits === undefined) {
    digits = Math.min(new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2, MAX_FOREIGN_DECIMALS);
    digitCache.set(code, digits);
  }
  return digits;
}

/** A foreign amount in the currency's own notation: "100" → "100.00" (USD), "100" (JPY), "1.500" (KWD). */
export function formatForeignAmount(amount: string, currency: string): string {
  return new Decimal(amount).toFixed(currencyDecimals(currency));
}

/** The decimals of a decimal string ("12.50" → 2). */
export function decimalsOf(text: string): number {
  const point = text.indexOf('.');
  return point < 0 ? 0 : text.length - point - 1;
}

/**
 * The UZS amount of `amount` at `rate`: the exact product rounded half-up to two decimals, or null when it
 * is more than an amount can hold (16 digits before the point).
 */
export function convertToUzs(amount: string, rate: string): string | null {
  const uzs = new Decimal(amount).times(rate).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
  return AMOUNT_PATTERN.test(uzs) ? uzs : null;
}
