// @ts-check
// Foreign currency in the console: the Central Bank's rates of a day, the decimals of a currency's amounts,
// and how a line's currency and rate read.
import { decimalOfNumber, groupDigits } from '../money.js';
import { api } from '../session.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']['JournalLine']} JournalLine */

/**
 * A posted line in a foreign currency: the API sends its currency, amount, rate, source and rate date all or
 * none (journal_lines_foreign_complete), which the document's nullable fields do not say.
 * @typedef {JournalLine & { currency: string, currencyAmount: string, rate: string }} ForeignLine
 */

/**
 * A CBU rate of a day, as the console uses it: the exact decimal text of the API's number.
 * @typedef {{ rate: string, effectiveDate: string, name: string }} CbuRate
 */

/** The functional currency: debits and credits are in it, and rates are UZS per one unit. */
export const FUNCTIONAL = 'UZS';

/**
 * The decimals an amount in the currency may have: its ISO 4217 minor unit (USD 2, JPY 0, KWD 3), at most 3 as the API.
 * @param {string} code
 * @returns {number}
 */
export function currencyDecimals(code) {
  try {
    return Math.min(new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2, 3);
  } catch {
    return 2;
  }
}

/**
 * An amount in the currency as the API takes it: a decimal with at most the currency's decimals.
 * @param {string} code
 * @returns {RegExp}
 */
export function foreignAmountPattern(code) {
  const decimals = currencyDecimals(code);
  return new RegExp(`^(0|[1-9][0-9]{0,15})${decimals > 0 ? `(\\.[0-9]{1,${decimals}})?` : ''}$`);
}

/**
 * The CBU rates that apply on `date` (the latest publication on or before it, as a posting takes them), by
 * currency in code order: { rate (exact decimal text), effectiveDate, name }.
 * @param {string} date
 * @returns {Promise<Map<string, CbuRate>>}
 */
export async function readCbuRates(date) {
  const { data } = /** @type {import('../api.js').Reply<'listRates'>} */ (await api('GET', `/api/v1/rates?${new URLSearchParams({ date, source: 'CBU' })}`));
  const rates = data.items
    .filter((item) => !item.base)
    .map(/** @returns {[string, { rate: string | null, effectiveDate: string, name: string }]} */ (item) =>
      [item.code, { rate: decimalOfNumber(item.rate), effectiveDate: item.effectiveDate, name: item.name }])
    .filter(/** @returns {entry is [string, CbuRate]} */ (entry) => entry[1].rate !== null)
    .sort(([a], [b]) => a.localeCompare(b));
  return new Map(rates);
}

/**
 * "1 USD = 12 850.12 UZS, CBU 2026-11-20"
 * @param {string} code
 * @param {CbuRate} rate
 */
export const rateText = (code, { rate, effectiveDate }) => `1 ${code} = ${groupDigits(rate)} UZS, CBU ${effectiveDate}`;

/**
 * A posted line's foreign part: "USD 1 100.10 at 12 850.05".
 * @param {ForeignLine} line
 */
export const foreignText = (line) => `${line.currency} ${groupDigits(line.currencyAmount)} at ${groupDigits(line.rate)}`;
