import Decimal from 'decimal.js';
import { AppError } from '../shared/problems';
import { convertToUzs, currencyDecimals, formatForeignAmount } from '../ledger/currency';
import { EXCHANGE_GAIN_ACCOUNT, EXCHANGE_LOSS_ACCOUNT } from '../ledger/revaluation';
import type { LedgerLine } from '../ledger/journal';
import type { DocumentAccounts, PostingRate } from '../invoices/invoices';

// The rules of a payment that need no database: which invoices an amount settles (as given, or oldest
// first), how much each allocation may take, and the entries a payment and a later allocation write.

export type Direction = 'IN' | 'OUT';

/** An invoice as an allocation sees it: what is open of it, in its currency. */
export interface OpenInvoice {
  id: string;
  number: string | null;
  invoiceDate: string;
  dueDate: string;
  outstanding: string;
}

export interface Allocation {
  invoiceId: string;
  amount: string;
}

const invalid = (path: string, message: string) => new AppError('validation', message, { errors: [{ path, message }] });

/** A document amount in the currency's decimals, above zero (400 naming `path` otherwise). */
export function documentAmount(amount: string, currency: string, path: string): Decimal {
  const value = new Decimal(amount);
  const places = currencyDecimals(currency);
  if (!value.greaterThan(0)) throw invalid(path, 'must be above zero');
  if (value.decimalPlaces() > places) throw invalid(path, `has more decimals than ${currency} has (${places})`);
  return value;
}

/**
 * Checks explicit allocations against the open invoices (each at most its outstanding, 409) and the amount
 * available (their sum at most it, 409); an invoice named twice is 400.
 */
export function checkAllocations(requested: Allocation[], open: ReadonlyMap<string, OpenInvoice>, available: Decimal, currency: string, path = '/body/allocations'): Allocation[] {
  const seen = new Set<string>();
  let total = new Decimal(0);
  const checked = requested.map((a, i) => {
    if (seen.has(a.invoiceId)) throw invalid(`${path}/${i}/invoiceId`, 'names an invoice already allocated to in this request');
    seen.add(a.invoiceId);
    const amount = documentAmount(a.amount, currency, `${path}/${i}/amount`);
    const invoice = open.get(a.invoiceId)!;
    if (amount.greaterThan(invoice.outstanding)) {
      throw new AppError('allocation-exceeds-outstanding', `Invoice ${invoice.number ?? invoice.id} has ${formatForeignAmount(invoice.outstanding, currency)} ${currency} outstanding; ${amount.toFixed(currencyDecimals(currency))} cannot be allocated to it`, {
        invoiceId: invoice.id,
        outstanding: formatForeignAmount(invoice.outstanding, currency),
      });
    }
    total = total.plus(amount);
    return { invoiceId: a.invoiceId, amount: amount.toFixed(currencyDecimals(currency)) };
  });
  if (total.greaterThan(available)) {
    throw new AppError('allocation-exceeds-payment', `The allocations add up to ${total.toFixed(currencyDecimals(currency))} ${currency}; the payment has ${available.toFixed(currencyDecimals(currency))} unallocated`, {
      unallocated: available.toFixed(currencyDecimals(currency)),
    });
  }
  return checked;
}

/** The order OLDEST_FIRST settles invoices in: by due date, then date, then number, then id. */
export function oldestFirst(invoices: OpenInvoice[]): OpenInvoice[] {
  const key = (i: OpenInvoice) => [i.dueDate, i.invoiceDate, i.number ?? '', i.id] as const;
  return [...invoices].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k]! < y[k]! ? -1 : 1;
    return 0;
  });
}

/** Spends `available` on the invoices oldest first: each takes what it has outstanding, the last what is left. */
export function allocateOldestFirst(invoices: OpenInvoice[], available: Decimal, currency: string): Allocation[] {
  let left = available;
  const allocations: Allocation[] = [];
  for (const invoice of oldestFirst(invoices)) {
    if (!left.greaterThan(0)) break;
    const take = Decimal.min(left, invoice.outstanding);
    if (!take.greaterThan(0)) continue;
    allocations.push({ invoiceId: invoice.id, amount: take.toFixed(currencyDecimals(currency)) });
    left = left.minus(take);
  }
  return allocations;
}

type Line = Omit<LedgerLine, 'lineNo'>;

const NO_FOREIGN = { currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null } as const;

/** The accounts a payment's direction posts to: the settlement account and the advance account. */
export function settlementAccounts(direction: Direction, accounts: DocumentAccounts): { settlement: string; advance: string } {
  return direction === 'IN'
    ? { settlement: accounts.receivable, advance: accounts.advancesReceived }
    : { settlement: accounts.payable, advance: accounts.advancesPaid };
}

/** A conversion for a line: the UZS amount of `amount` at the rate (the amount itself in UZS). */
function uzsOf(amount: Decimal.Value, rate: PostingRate | null): string {
  if (rate === null) return new Decimal(amount).toFixed(2);
  const uzs = convertToUzs(new Decimal(amount).toFixed(), rate.rate);
  if (uzs === null) throw invalid('/body/amount', `the payment's UZS amount at ${rate.rate} is more than an entry can hold`);
  return uzs;
}

function makeLine(accountCode: string, side: 'debit' | 'credit', amount: Decimal.Value, currency: string, rate: PostingRate | null, rateSource: 'CBU' | 'MANUAL', counterpartyId: string | null): Line {
  const uzs = uzsOf(amount, rate);
  return {
    accountCode,
    subaccountId: null,
    counterpartyId,
    debit: side === 'debit' ? uzs : '0.00',
    credit: side === 'credit' ? uzs : '0.00',
    memo: null,
    ...(rate === null
      ? NO_FOREIGN
      : { currency, currencyAmount: formatForeignAmount(new Decimal(amount).toFixed(), currency), rate: rate.rate, rateSource, rateDate: rate.rateDate }),
  };
}

/**
 * A foreign entry's lines are each converted on their own: what their rounding leaves between the two sides
 * goes to exchange differences (Cr 9540 when the debits are more, Dr 9620 when the credits are).
 */
function balanced(lines: Line[]): Line[] {
  const debits = lines.reduce((s, l) => s.plus(l.debit), new Decimal(0));
  const credits = lines.reduce((s, l) => s.plus(l.credit), new Decimal(0));
  const difference = debits.minus(credits);
  if (difference.isZero()) return lines;
  const line = (code: string, side: 'debit' | 'credit') => ({ ...NO_FOREIGN, accountCode: code, subaccountId: null, counterpartyId: null, memo: 'rounding of the conversion', debit: side === 'debit' ? difference.abs().toFixed(2) : '0.00', credit: side === 'credit' ? difference.abs().toFixed(2) : '0.00' });
  return [...lines, difference.isPositive() ? line(EXCHANGE_GAIN_ACCOUNT, 'credit') : line(EXCHANGE_LOSS_ACCOUNT, 'debit')];
}

export interface PaymentToPost {
  direction: Direction;
  counterpartyId: string;
  currency: string;
  amount: string;
  moneyAccount: string;
  /** The part allocated to invoices in this payment's own entry. */
  allocated: string;
}

/**
 * The lines of a payment's entry. IN: Dr the money account the amount / Cr receivable the allocated part /
 * Cr advances received the rest. OUT: Dr payable the allocated part / Dr advances paid the rest / Cr the
 * money account. Settlement and advance lines name the counterparty. A foreign payment converts at the CBU
 * rate of its date (`rate`), line by line.
 */
export function paymentEntryLines(payment: PaymentToPost, rate: PostingRate | null, accounts: DocumentAccounts): Line[] {
  const { settlement, advance } = settlementAccounts(payment.direction, accounts);
  const allocated = new Decimal(payment.allocated);
  const rest = new Decimal(payment.amount).minus(allocated);
  const incoming = payment.direction === 'IN';
  const partySide = incoming ? 'credit' : 'debit';
  const line = (code: string, side: 'debit' | 'credit', amount: Decimal, party: string | null) => makeLine(code, side, amount, payment.currency, rate, 'CBU', party);
  const party = [
    ...(allocated.greaterThan(0) ? [line(settlement, partySide, allocated, payment.counterpartyId)] : []),
    ...(rest.greaterThan(0) ? [line(advance, partySide, rest, payment.counterpartyId)] : []),
  ];
  const money = line(payment.moneyAccount, incoming ? 'debit' : 'credit', new Decimal(payment.amount), null);
  return balanced(incoming ? [money, ...party] : [...party, money]);
}

/**
 * A bank line posted straight to an account (a bank fee, interest): the money account against `accountCode`.
 * The money line is in the line's currency at the rate (UZS at none); the other line takes its UZS amount.
 */
export function moneyToAccountLines(direction: Direction, moneyAccount: string, accountCode: string, currency: string, amount: string, rate: PostingRate | null): Line[] {
  const incoming = direction === 'IN';
  const money = makeLine(moneyAccount, incoming ? 'debit' : 'credit', amount, currency, rate, 'CBU', null);
  const uzs = incoming ? money.debit : money.credit;
  const other: Line = { ...NO_FOREIGN, accountCode, subaccountId: null, counterpartyId: null, memo: null, debit: incoming ? '0.00' : uzs, credit: incoming ? uzs : '0.00' };
  return incoming ? [money, other] : [other, money];
}

/**
 * The reclassification a later allocation of an advance posts. IN: Dr advances received / Cr receivable;
 * OUT: Dr payable / Cr advances paid; both naming the counterparty. A foreign advance is a non-monetary
 * item carried at the payment's rate, so both lines are at that rate (MANUAL, dated the allocation): the
 * advance account clears in UZS exactly as it was booked.
 */
export function reclassificationLines(direction: Direction, counterpartyId: string, currency: string, amount: string, paymentRate: { rate: string } | null, date: string, accounts: DocumentAccounts): Line[] {
  const { settlement, advance } = settlementAccounts(direction, accounts);
  const rate = paymentRate === null ? null : { rate: paymentRate.rate, rateDate: date };
  const line = (code: string, side: 'debit' | 'credit') => makeLine(code, side, amount, currency, rate, 'MANUAL', counterpartyId);
  return direction === 'IN' ? [line(advance, 'debit'), line(settlement, 'credit')] : [line(settlement, 'debit'), line(advance, 'credit')];
}

/** The UZS amount an allocation moved on the settlement account (its share at the rate it was posted at). */
export function allocationUzs(amount: string, rate: { rate: string } | null): string {
  return rate === null ? new Decimal(amount).toFixed(2) : uzsOf(amount, { rate: rate.rate, rateDate: '' });
}
