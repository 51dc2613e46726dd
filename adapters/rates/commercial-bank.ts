import { isCalendarDate } from '../../core/shared/calendar';
import { parseRate, rateAtMost, tashkentInstant, type RateDocument, type RateSource } from '../../core/rates/rates';
import { fetchJsonDocument } from './http';
import { currencyCode, describe, nameOf, readRows, type RowResult } from './rows';

// A commercial bank's buy and sell prices, in the public JSON format of the National Bank of Uzbekistan
// (nbu.uz/en/exchange-rates/json/): one row per currency with `code`, `title`, `cb_price` (the central
// bank's rate, not used here), `nbu_buy_price`, `nbu_cell_price` (sic: the sale price) and `date`, the
// bank's Tashkent time of the quote ("MM/DD/YYYY hh:mm:ss am" or "DD.MM.YYYY HH:mm:ss"). Prices are UZS per
// one unit, as strings; a currency the bank does not trade has empty prices.

const LABEL = 'Commercial bank';

const US_STYLE = /^(\d{2})\/(\d{2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([ap]m))?)?$/i;
const DOTTED = /^(\d{2})\.(\d{2})\.(\d{4})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** The quote's day and instant, or null when `date` is neither of the bank's two formats. */
export function quoteTime(value: unknown): { effectiveDate: string; sourceUpdatedAt: string } | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  let day: string;
  let hours = 0;
  let minutes = 0;
  let seconds = 0;
  const us = US_STYLE.exec(text);
  const dotted = us ? null : DOTTED.exec(text);
  if (us) {
    day = `${us[3]}-${us[1]}-${us[2]}`;
    hours = Number(us[4] ?? 0);
    minutes = Number(us[5] ?? 0);
    seconds = Number(us[6] ?? 0);
    const meridiem = us[7]?.toLowerCase();
    if (meridiem) {
      if (hours < 1 || hours > 12) return null;
      hours = (hours % 12) + (meridiem === 'pm' ? 12 : 0);
    }
  } else if (dotted) {
    day = `${dotted[3]}-${dotted[2]}-${dotted[1]}`;
    hours = Number(dotted[4] ?? 0);
    minutes = Number(dotted[5] ?? 0);
    seconds = Number(dotted[6] ?? 0);
  } else {
    return null;
  }
  if (!isCalendarDate(day) || hours > 23 || minutes > 59 || seconds > 59) return null;
  const time = [hours, minutes, seconds].map((n) => String(n).padStart(2, '0')).join(':');
  return { effectiveDate: day, sourceUpdatedAt: tashkentInstant(day, time) };
}

const blank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function readRow(row: Record<string, unknown>): RowResult {
  const code = currencyCode(row.code);
  if ('skip' in code) return code;
  if (blank(row.nbu_buy_price) && blank(row.nbu_cell_price)) return { skip: `${code.code}: the bank quotes no buy or sell price` };
  const buyRate = parseRate(row.nbu_buy_price);
  if (buyRate === null) return { skip: `${code.code}: buy price ${describe(row.nbu_buy_price)} is not a positive decimal` };
  const sellRate = parseRate(row.nbu_cell_price);
  if (sellRate === null) return { skip: `${code.code}: sell price ${describe(row.nbu_cell_price)} is not a positive decimal` };
  if (!rateAtMost(buyRate, sellRate)) return { skip: `${code.code}: buy price ${buyRate} is above sell price ${sellRate}` };
  const quoted = quoteTime(row.date);
  if (!quoted) return { skip: `${code.code}: date ${describe(row.date)} is not a date and time the bank uses` };
  return { rate: { currency: code.code, name: nameOf(code.code, row.title), ...quoted, rate: null, buyRate, sellRate } };
}

/** Reads a commercial-bank document already parsed from JSON. */
export function parseCommercialBankDocument(document: unknown): RateDocument {
  return readRows('BANK', LABEL, document, readRow);
}

export function createCommercialBankSource(options: { url: string; timeoutMs: number }): RateSource {
  return {
    code: 'BANK',
    async fetchRates() {
      return parseCommercialBankDocument(await fetchJsonDocument(options.url, { timeoutMs: options.timeoutMs, label: LABEL }));
    },
  };
}
