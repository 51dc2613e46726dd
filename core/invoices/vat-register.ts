import { formatMinorUnits, numericToMinorUnits } from '../ledger/money';
import { FIRST_DATE } from '../shared/calendar';
import { AppError } from '../shared/problems';
import type { DocumentAccounts, InvoiceKind } from './invoices';

// The monthly VAT register's rules that need no database: the month's days, which invoices and which VAT
// account a side covers, each row from its document's posted lines' UZS sums at one rate (a cancellation's
// negated, gross = net + VAT), the totals per rate and in all from the month's sums per rate and kind, and
// the VAT account's turnover from invoice entries (`ledgerVat`) on the side's own side, which the register's
// VAT must equal. Amounts are exact (minor units as BigInt, strings on the way in and out).

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

export interface VatRegisterTotals {
  totalsByRate: Array<VatRegisterAmounts & { rate: number | null }>;
  totals: VatRegisterAmounts;
  ledgerVat: string;
}

/** The month's sums of one rate and kind (NUMERIC text, positive as stored). */
export interface VatRateSum {
  rate: string | null;
  kind: VatRegisterKind;
  net: string;
  vat: string;
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

/** An amount as the API writes it, and as PostgreSQL writes a sum of NUMERIC(20, 2): two decimals, no leading zero, no "-0.00". */
const CANONICAL = /^(?!-0\.00$)-?(0|[1-9][0-9]*)\.[0-9]{2}$/;

/**
 * A stored sum, signed: its minor units (for the totals) and its text. An export has tens of thousands of rows,
 * so a canonical text is taken as it is (negated by its sign alone) rather than formatted from a BigInt again.
 */
function signed(value: string, sign: 1n | -1n): { minor: bigint; text: string } {
  if (!CANONICAL.test(value)) {
    const minor = sign * numericToMinorUnits(value);
    return { minor, text: formatMinorUnits(minor) };
  }
  const minor = sign * BigInt(value.replace('.', ''));
  if (sign === 1n || minor === 0n) return { minor, text: value };
  return { minor, text: value.startsWith('-') ? value.slice(1) : `-${value}` };
}

/** A cancellation counts negated; an original as it is. */
const signOf = (kind: VatRegisterKind): 1n | -1n => (kind === 'CANCELLATION' ? -1n : 1n);

/** NUMERIC(5, 2) text ("12.00", "12.50") is its number exactly: 12, 12.5; null is exempt. */
const rateOf = (rate: string | null): number | null => (rate === null ? null : Number(rate));

/** The register's rows from its groups, in their order: a cancellation's amounts negated, gross = net + VAT. */
export function vatRegisterRows(groups: VatRegisterGroup[]): VatRegisterRow[] {
  return groups.map((g) => {
    const net = signed(g.net, signOf(g.kind));
    const vat = signed(g.vat, signOf(g.kind));
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
      rate: rateOf(g.rate),
      net: net.text,
      vat: vat.text,
      gross: formatMinorUnits(net.minor + vat.minor),
    };
  });
}

/**
 * The month's totals from its sums per rate and kind: per rate (numerically, exempt last) the originals less
 * the cancellations, and in all. `ledgerVat` is the VAT account's turnover from invoice entries on the side's
 * own side: credit − debit of output VAT (a sale credits it, its cancellation debits it), debit − credit of
 * input VAT.
 */
export function vatRegisterTotals(side: VatSide, sums: VatRateSum[], turnover: VatAccountTurnover): VatRegisterTotals {
  const byRate = new Map<number | null, Sums & { rate: number | null }>();
  const totals: Sums = { net: 0n, vat: 0n };
  for (const s of sums) {
    const rate = rateOf(s.rate);
    const net = signed(s.net, signOf(s.kind)).minor;
    const vat = signed(s.vat, signOf(s.kind)).minor;
    const perRate = byRate.get(rate) ?? { rate, net: 0n, vat: 0n };
    perRate.net += net;
    perRate.vat += vat;
    byRate.set(rate, perRate);
    totals.net += net;
    totals.vat += vat;
  }
  const debit = numericToMinorUnits(turnover.debit);
  const credit = numericToMinorUnits(turnover.credit);
  return {
    totalsByRate: [...byRate.values()]
      .sort((a, b) => (a.rate === null ? 1 : b.rate === null ? -1 : a.rate - b.rate))
      .map((s) => ({ rate: s.rate, ...amounts(s) })),
    totals: amounts(totals),
    ledgerVat: formatMinorUnits(side === 'SALES' ? credit - debit : debit - credit),
  };
}
