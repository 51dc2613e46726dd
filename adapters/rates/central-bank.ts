import { parseRate, perUnit, tashkentInstant, type RateDocument, type RateSource } from '../../core/rates/rates';
import { fetchJsonDocument } from './http';
import { currencyCode, describe, dottedDate, nameOf, readRows, type RowResult } from './rows';

// The Central Bank of Uzbekistan's public JSON list: one row per currency with `Ccy` (ISO code),
// `CcyNm_EN`, `Nominal` (units the rate is quoted for), `Rate` (UZS for Nominal units) and `Date`
// (DD.MM.YYYY, the day the rate applies from); numbers arrive as strings.

const LABEL = 'Central Bank of Uzbekistan';
const NOMINAL = /^[1-9][0-9]{0,9}$/;

function readRow(row: Record<string, unknown>): RowResult {
  const code = currencyCode(row.Ccy);
  if ('skip' in code) return code;
  const nominalText = typeof row.Nominal === 'number' ? String(row.Nominal) : row.Nominal;
  if (typeof nominalText !== 'string' || !NOMINAL.test(nominalText.trim())) {
    return { skip: `${code.code}: Nominal ${describe(row.Nominal)} is not a positive whole number` };
  }
  const rate = parseRate(row.Rate);
  if (rate === null) return { skip: `${code.code}: Rate ${describe(row.Rate)} is not a positive decimal` };
  const unit = perUnit(rate, Number(nominalText.trim()));
  if (/^0(\.0*)?$/.test(unit)) return { skip: `${code.code}: Rate ${rate} per ${nominalText.trim()} rounds to zero` };
  const effectiveDate = typeof row.Date === 'string' ? dottedDate(row.Date.trim()) : null;
  if (!effectiveDate) return { skip: `${code.code}: Date ${describe(row.Date)} is not a DD.MM.YYYY day` };
  return {
    rate: {
      currency: code.code,
      name: nameOf(code.code, row.CcyNm_EN),
      effectiveDate,
      // The bank publishes a day, not a time: the rate applies from the start of that day in Tashkent.
      sourceUpdatedAt: tashkentInstant(effectiveDate),
      rate: unit,
      buyRate: null,
      sellRate: null,
    },
  };
}

/** Reads a CBU document already parsed from JSON. */
export function parseCentralBankDocument(document: unknown): RateDocument {
  return readRows('CBU', LABEL, document, readRow);
}

export function createCentralBankSource(options: { url: string; timeoutMs: number }): RateSource {
  return {
    code: 'CBU',
    async fetchRates() {
      return parseCentralBankDocument(await fetchJsonDocument(options.url, { timeoutMs: options.timeoutMs, label: LABEL }));
    },
  };
}
