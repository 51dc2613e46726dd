import { formatMinorUnits, numericToMinorUnits } from '../ledger/money';
import { FIRST_DATE } from '../shared/calendar';
import { AppError } from '../shared/problems';
import type { DocumentAccounts, InvoiceKind } from './invoices';

// The monthly VAT register's rules that need no database: the month's days, which invoices and which VAT
// account a side covers, and the register itself from the posted lines' UZS sums per document and rate: a
// cancellation's rows negated, each row's gross, the totals per rate and in all, and the VAT account's
// turnover from invoice entries (`ledgerVat`), which the register's VAT must equal. Amounts are exact
// (minor units as BigInt, strings on the way in and out).

export type VatSide = 'SALES' | 'PURCHASES';
export type VatRegisterKind = 'ORIGINAL' | 'CANCELLATION';

/** The invoices of a side: SALES invoices, or PURCHASE invoices. */
export const invoiceKindOf = (side: VatSide): InvoiceKind => (side === 'SALES' ? 'SALES' : 'PURCHASE');

/** The VAT account a side's invoices post to: output VAT (6410) on sales, input VAT (4410) on purchases. */
export const vatAccountOf = (side: VatSide, accounts: Pick<DocumentAccounts, 'outputVat' | 'inputVat'>): string =>
  side === 'SALES' ? accounts.outputVat : accounts.inputVat;

/** The first and last day of a `YYYY-MM` month (its pattern checked by the document); 400 for a month before 1900. */
export function monthRange(month: string): { from: string; to: string } {
  const from = `${month}-01`;
  if (from < FIRST_DATE) {
    throw new AppError('validation', `A month is from ${FIRST_DATE.slice(0, 7)} on`, { errors: [{ path: '/query/month', message: `must be ${FIRST_DATE.slice(0, 7)} or later` }] });
  }
  const [year, monthNo] = month.split('-').map(Number) as [number, number];
  // Day 0 of the next month is the last of this one (December: day 0 of month 13 is 31 December).
  const last = new Date(Date.UTC(year, monthNo, 0));
  // Date.UTC reads years 0..99 as 1900..1999; the years here are 1900 and later.
  return { from, to: `${month}-${String(last.getUTCDate()).padStart(2, '0')}` };
}

/** A document's posted lines of one VAT rate, as stored: UZS sums, positive. */
export interface VatRegisterGroup {
  invoiceId: string;
  /** ORIGINAL: the invoice in the month of its date; CANCELLATION: its reversal in the month of the cancellation. */
  kind: VatRegisterKind;
  /** The invoice's date, or the cancellation's. */
  date: string;
  number: string;
  counterpartyId: string;
  counterpartyName: string;
  /** The TIN, else the PINFL of an individual, else null. */
  counterpartyTin: string | null;
  vatRegistrationCode: string | null;
  currency: string;
  /** The rate as stored (NUMERIC text); null: exempt. */
  rate: string | null;
  /** Sums of the lines' net_uzs and vat_uzs (NUMERIC text). */
  net: string;
  vat: string;
}

export interface VatRegisterAmounts {
  net: string;
  vat: string;
  gross: string;
}

export interface VatRegisterRow extends VatRegisterAmounts {
  invoiceId: string;
  kind: VatRegisterKind;
  number: string;
  date: string;
  counterpartyId: string;
  counterpartyName: string;
  counterpartyTin: string | null;
  vatRegistrationCode: string | null;
  currency: string;
  rate: number | null;
}

export interface VatRegisterBody {
  rows: VatRegisterRow[];
  totalsByRate: Array<VatRegisterAmounts & { rate: number | null }>;
  totals: VatRegisterAmounts;
  ledgerVat: string;
}

/** The VAT account's debit and credit turnovers of the month from entries posted by invoices (NUMERIC text). */
export interface VatAccountTurnover {
  debit: string;
  credit: string;
}

interface Sums {
  net: bigint;
  vat: bigint;
}

const amounts = (s: Sums): VatRegisterAmounts => ({ net: formatMinorUnits(s.net), vat: formatMinorUnits(s.vat), gross: formatMinorUnits(s.net + s.vat) });

/** A sum of NUMERIC(20, 2) amounts as PostgreSQL writes it: two decimals exactly. */
const TWO_DECIMALS = /^-?[0-9]+\.[0-9]{2}$/;

/** Minor units of a stored sum: its digits as they are when it has two decimals (a month's rows are tens of thousands), else parsed. */
const minorUnitsOf = (value: string): bigint => (TWO_DECIMALS.test(value) ? BigInt(value.replace('.', '')) : numericToMinorUnits(value));

/**
 * The register from its groups, in their order: each a row (a cancellation's amounts negated; gross = net +
 * VAT), then the sums per rate (numerically, exempt last) and in all. `ledgerVat` is the VAT account's
 * turnover from invoice entries on the side's own side: credit − debit of output VAT (a sale credits it, its
 * cancellation debits it), debit − credit of input VAT.
 */
export function vatRegister(side: VatSide, groups: VatRegisterGroup[], turnover: VatAccountTurnover): VatRegisterBody {
  const byRate = new Map<number | null, Sums & { rate: number | null }>();
  const totals: Sums = { net: 0n, vat: 0n };
  const rows = groups.map((g): VatRegisterRow => {
    const sign = g.kind === 'CANCELLATION' ? -1n : 1n;
    const sums = { net: sign * minorUnitsOf(g.net), vat: sign * minorUnitsOf(g.vat) };
    // NUMERIC(5, 2) text ("12.00", "12.50") is its number exactly: 12, 12.5.
    const rate = g.rate === null ? null : Number(g.rate);
    const perRate = byRate.get(rate) ?? { rate, net: 0n, vat: 0n };
    perRate.net += sums.net;
    perRate.vat += sums.vat;
    byRate.set(rate, perRate);
    totals.net += sums.net;
    totals.vat += sums.vat;
    return {
      invoiceId: g.invoiceId,
      kind: g.kind,
      number: g.number,
      date: g.date,
      counterpartyId: g.counterpartyId,
      counterpartyName: g.counterpartyName,
      counterpartyTin: g.counterpartyTin,
      vatRegistrationCode: g.vatRegistrationCode,
      currency: g.currency,
      rate,
      ...amounts(sums),
    };
  });
  const debit = numericToMinorUnits(turnover.debit);
  const credit = numericToMinorUnits(turnover.credit);
  return {
    rows,
    totalsByRate: [...byRate.values()]
      .sort((a, b) => (a.rate === null ? 1 : b.rate === null ? -1 : a.rate - b.rate))
      .map((s) => ({ rate: s.rate, ...amounts(s) })),
    totals: amounts(totals),
    ledgerVat: formatMinorUnits(side === 'SALES' ? credit - debit : debit - credit),
  };
}
