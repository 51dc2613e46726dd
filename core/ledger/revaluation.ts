import Decimal from 'decimal.js';
import { convertToUzs, formatForeignAmount } from './currency';
import { formatMinorUnits, numericToMinorUnits } from './money';
import { systemRequestId, type LedgerLine } from './journal';

// Revaluation of foreign-currency balances (NAS 22), the arithmetic alone: per account, subaccount and
// currency, the foreign balance at the closing rate against the UZS carrying amount, and the entry that
// posts the differences. It works on balances, not on documents: whatever happened to a receivable (paid,
// part paid, paid at a third rate), the balance after the entry is the foreign balance at the rate of the
// date, so an exchange difference is posted once and never twice.

/** Where exchange differences go (NAS 21): 9540 Foreign exchange gains, 9620 Foreign exchange losses. */
export const EXCHANGE_GAIN_ACCOUNT = '9540';
export const EXCHANGE_LOSS_ACCOUNT = '9620';

/** One account's (and subaccount's) balance in one foreign currency through the revaluation date. */
export interface ForeignBalance {
  accountCode: string;
  subaccountId: string | null;
  currency: string;
  /** The foreign balance, debit positive (NUMERIC text). */
  balance: string;
  /** The UZS carrying amount, debit positive (NUMERIC text, two decimals). */
  carrying: string;
}

export interface RevaluationAdjustment {
  accountCode: string;
  subaccountId: string | null;
  currency: string;
  rate: string;
  rateDate: string;
  /** UZS posted to the account, debit positive, in minor units. */
  difference: bigint;
}

export type RevaluationPlan =
  | { kind: 'missing-rates'; currencies: string[] }
  | { kind: 'nothing-to-post' }
  | { kind: 'entry'; lines: LedgerLine[]; adjustments: RevaluationAdjustment[]; gain: bigint; loss: bigint; total: bigint };

/**
 * The revaluation entry for `balances` at `rates` (per currency, the CBU rate of the date): a line per
 * account whose carrying amount is not its foreign balance at the rate (a zero foreign balance is brought to
 * zero UZS), then per currency one credit to 9540 with the gains and one debit to 9620 with the losses.
 * Adjusting lines carry the currency, a foreign amount of zero and the rate; the gain and loss lines name
 * the currency and rate in their memo. A currency with something to adjust and no rate stops it.
 */
export function planRevaluation(balances: readonly ForeignBalance[], rates: ReadonlyMap<string, { rate: string; rateDate: string }>): RevaluationPlan {
  const adjustments: RevaluationAdjustment[] = [];
  const missing = new Set<string>();
  for (const b of balances) {
    const carrying = numericToMinorUnits(b.carrying);
    const zero = new Decimal(b.balance).isZero();
    if (zero && carrying === 0n) continue;
    const rate = rates.get(b.currency);
    if (!rate) {
      missing.add(b.currency);
      continue;
    }
    const target = zero ? 0n : signedUzs(b.balance, rate.rate);
    if (target === carrying) continue;
    adjustments.push({ accountCode: b.accountCode, subaccountId: b.subaccountId, currency: b.currency, rate: rate.rate, rateDate: rate.rateDate, difference: target - carrying });
  }
  if (missing.size > 0) return { kind: 'missing-rates', currencies: [...missing].sort() };
  if (adjustments.length === 0) return { kind: 'nothing-to-post' };
  adjustments.sort((a, b) => compare(a.accountCode, b.accountCode) || compare(a.subaccountId ?? '', b.subaccountId ?? '') || compare(a.currency, b.currency));

  const lines: LedgerLine[] = adjustments.map((a, i) => ({
    lineNo: i + 1,
    accountCode: a.accountCode,
    subaccountId: a.subaccountId,
    counterpartyId: null,
    debit: formatMinorUnits(a.difference > 0n ? a.difference : 0n),
    credit: formatMinorUnits(a.difference < 0n ? -a.difference : 0n),
    memo: `Revaluation of ${a.currency} at ${a.rate} (CBU ${a.rateDate})`,
    currency: a.currency,
    currencyAmount: formatForeignAmount('0', a.currency),
    rate: a.rate,
    rateSource: 'CBU',
    rateDate: a.rateDate,
  }));
  let gain = 0n;
  let loss = 0n;
  const currencies = [...new Set(adjustments.map((a) => a.currency))].sort();
  for (const currency of currencies) {
    const ofCurrency = adjustments.filter((a) => a.currency === currency);
    const gains = ofCurrency.reduce((sum, a) => (a.difference > 0n ? sum + a.difference : sum), 0n);
    const losses = ofCurrency.reduce((sum, a) => (a.difference < 0n ? sum - a.difference : sum), 0n);
    const { rate, rateDate } = ofCurrency[0]!;
    const uzsLine = (accountCode: string, debit: bigint, credit: bigint, what: string): LedgerLine => ({
      lineNo: lines.length + 1,
      accountCode,
      subaccountId: null,
      counterpartyId: null,
      debit: formatMinorUnits(debit),
      credit: formatMinorUnits(credit),
      memo: `Exchange ${what} on ${currency} at ${rate} (CBU ${rateDate})`,
      currency: null,
      currencyAmount: null,
      rate: null,
      rateSource: null,
      rateDate: null,
    });
    if (gains > 0n) lines.push(uzsLine(EXCHANGE_GAIN_ACCOUNT, 0n, gains, 'gain'));
    if (losses > 0n) lines.push(uzsLine(EXCHANGE_LOSS_ACCOUNT, losses, 0n, 'loss'));
    gain += gains;
    loss += losses;
  }
  const total = lines.reduce((sum, l) => sum + numericToMinorUnits(l.debit), 0n);
  return { kind: 'entry', lines, adjustments, gain, loss, total };
}

/** A debit-positive foreign balance in UZS at `rate`, half-up to two decimals, keeping its sign. */
function signedUzs(balance: string, rate: string): bigint {
  const value = new Decimal(balance);
  const uzs = convertToUzs(value.abs().toFixed(), rate);
  if (uzs === null) throw new RangeError(`${balance} at ${rate} exceeds an amount`);
  const minor = numericToMinorUnits(uzs);
  return value.isNegative() ? -minor : minor;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The entry that takes a revaluation's adjustments back out on the date of a later revaluation made before it
 * (a close's own revaluation, when a later date was revalued on request first): that later revaluation brought
 * the balances to its own rate without this one's adjustments, so they must not stay in its balances. Its lines
 * are the revaluation's with the sides swapped.
 */
export function undoAtLaterRevaluation(lines: readonly LedgerLine[], revaluationDate: string, laterDate: string): LedgerLine[] {
  return lines.map((l) => ({
    ...l,
    debit: l.credit,
    credit: l.debit,
    memo: `Takes back the revaluation at ${revaluationDate}: the revaluation at ${laterDate} set these balances to its rate`,
  }));
}

/**
 * The requestId of a company's revaluation entry for a date: the same every time, so a retried step finds
 * the entry it wrote (the journal's unique requestId) instead of writing a second one.
 */
export function revaluationRequestId(legalEntityId: string, date: string, part: 'entry' | 'undone-later' = 'entry'): string {
  return systemRequestId(`revaluation:${legalEntityId}:${date}${part === 'entry' ? '' : `:${part}`}`);
}
