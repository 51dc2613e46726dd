// Foreign currency in the console: the Central Bank's rates of a day, the decimals of a currency's amounts,
// and how a line's currency and rate read.
import { decimalOfNumber, groupDigits } from '../money.js';
import { api } from '../session.js';

/** The functional currency: debits and credits are in it, and rates are UZS per one unit. */
export const FUNCTIONAL = 'UZS';

/** The decimals an amount in the currency may have: its ISO 4217 minor unit (USD 2, JPY 0, KWD 3), at most 3 as the API. */
export function currencyDecimals(code) {
  try {
    return Math.min(new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits, 3);
  } catch {
    return 2;
  }
}

/** An amount in the currency as the API takes it: a decimal with at most the currency's decimals. */
export function foreignAmountPattern(code) {
  const decimals = currencyDecimals(code);
  return new RegExp(`^(0|[1-9][0-9]{0,15})${decimals > 0 ? `(\\.[0-9]{1,${decimals}})?` : ''}$`);
}

/**
 * The CBU rates that apply on `date` (the latest publication on or before it, as a posting takes them), by
 * currency in code order: { rate (exact decimal text), effectiveDate, name }.
 */
export async function readCbuRates(date) {
  const { data } = await api('GET', `/api/v1/rates?${new URLSearchParams({ date, source: 'CBU' })}`);
  const rates = data.items
    .filter((item) => !item.base)
    .map((item) => [item.code, { rate: decimalOfNumber(item.rate), effectiveDate: item.effectiveDate, name: item.name }])
    .filter(([, r]) => r.rate !== null)
    .sort(([a], [b]) => a.localeCompare(b));
  return new Map(rates);
}

/** "1 USD = 12 850.12 UZS, CBU 2026-11-20" */
export const rateText = (code, { rate, effectiveDate }) => `1 ${code} = ${groupDigits(rate)} UZS, CBU ${effectiveDate}`;

/** A posted line's foreign part: "USD 100.10 at 12 850.05". */
export const foreignText = (line) => `${line.currency} ${line.currencyAmount} at ${groupDigits(line.rate)}`;
