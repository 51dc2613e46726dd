import Decimal from 'decimal.js';
import { AppError } from '../shared/problems';
import { FUNCTIONAL_CURRENCY, currencyDecimals, convertToUzs, formatForeignAmount, isKnownCurrency } from '../ledger/currency';
import { MAX_ENTRY_TOTAL, type LedgerLine } from '../ledger/journal';
import { formatMinorUnits } from '../ledger/money';

// The rules of an invoice that need no database: its lines' arithmetic (net = quantity × unit price, VAT
// half-up per line, gross), the VAT rate a line takes, and the one journal entry a posted invoice writes.
// Every amount is exact (decimal.js, strings on the way in and out); nothing here reads the clock or I/O.

export type InvoiceKind = 'SALES' | 'PURCHASE';
export type TaxRegime = 'GENERAL' | 'SIMPLIFIED';

/** The accounts a document posts to (company settings with these defaults). */
export interface DocumentAccounts {
  /** Dr on a sale: the customer's debt (4010). */
  receivable: string;
  /** Cr on a purchase: the debt to the supplier (6010). */
  payable: string;
  /** Cr on a sale: VAT charged (6410). */
  outputVat: string;
  /** Dr on a purchase: VAT to recover (4410). */
  inputVat: string;
  /** Cr on money received before an invoice (6310). */
  advancesReceived: string;
  /** Dr on money paid before an invoice (4310). */
  advancesPaid: string;
  /** A sales line's revenue account when it names none (9020). */
  revenue: string;
}

export const DEFAULT_DOCUMENT_ACCOUNTS: DocumentAccounts = {
  receivable: '4010',
  payable: '6010',
  outputVat: '6410',
  inputVat: '4410',
  advancesReceived: '6310',
  advancesPaid: '4310',
  revenue: '9020',
};

/** A line as the client writes it (the OpenAPI InvoiceLineInput). */
export interface InvoiceLineInput {
  description: string;
  quantity: string;
  unitPrice: string;
  account?: string;
  /** A percentage with at most two decimals; null: exempt; absent: the company's rate. */
  vatRate?: number | null;
  catalogCode?: string | null;
}

/** A line with its amounts, in the invoice's currency and decimals. */
export interface InvoiceLine {
  lineNo: number;
  description: string;
  quantity: string;
  unitPrice: string;
  account: string;
  vatRate: string | null;
  catalogCode: string | null;
  net: string;
  vat: string;
  gross: string;
}

export interface InvoiceAmounts {
  lines: InvoiceLine[];
  totalNet: string;
  totalVat: string;
  totalGross: string;
}

/** The company's VAT setting as a line needs it. */
export interface VatSetting {
  taxRegime: TaxRegime | null;
  /** The settings' rate as stored (NUMERIC text), null before the settings are saved. */
  vatRate: string | null;
}

/** The largest invoice total: 17 digits before the point (NUMERIC(20, 3)). */
const MAX_DOCUMENT_AMOUNT = new Decimal('99999999999999999.999');

const invalid = (path: string, message: string) => new AppError('validation', message, { errors: [{ path, message }] });

/** "12.50" → "12.5", "12" → "12": a rate as the API writes it. */
export function canonicalRate(rate: Decimal.Value): string {
  return new Decimal(rate).toFixed();
}

/** The currency of a document: a known ISO 4217 code (UZS when absent). */
export function documentCurrency(currency: string | undefined, path = '/body/currency'): string {
  const code = currency ?? FUNCTIONAL_CURRENCY;
  if (!isKnownCurrency(code)) throw invalid(path, `${code} is not an ISO 4217 currency code`);
  return code;
}

/** The rate a line takes: its own (null: exempt), else the company's; under SIMPLIFIED none (400 if one is given). */
function lineVatRate(line: InvoiceLineInput, i: number, vat: VatSetting): Decimal | null {
  const path = `/body/lines/${i}/vatRate`;
  if (vat.taxRegime === 'SIMPLIFIED') {
    if (line.vatRate !== undefined && line.vatRate !== null) {
      throw invalid(path, `line ${i + 1}: the company is on the SIMPLIFIED tax regime, where no line carries VAT; leave vatRate out or null`);
    }
    return null;
  }
  if (line.vatRate === null) return null;
  if (line.vatRate === undefined) {
    if (vat.vatRate === null) {
      throw invalid(path, `line ${i + 1}: the company's VAT rate is not set; give the line's vatRate or save the accounting settings`);
    }
    return new Decimal(vat.vatRate);
  }
  // JSON numbers arrive as floats; their shortest decimal text is what the client wrote for any rate with
  // two decimals, so the check is on that text, never on binary arithmetic.
  const rate = new Decimal(String(line.vatRate));
  if (rate.isNegative() || rate.greaterThan(100) || rate.decimalPlaces() > 2) {
    throw invalid(path, `line ${i + 1}: vatRate must be a percentage from 0 to 100 with at most two decimals`);
  }
  return rate;
}

/**
 * The invoice's lines with their amounts: net = quantity × unit price and VAT = net × rate / 100, each
 * rounded half-up to the currency's decimals, gross = net + VAT; the totals are the lines' sums.
 */
export function computeInvoice(kind: InvoiceKind, input: InvoiceLineInput[], currency: string, vat: VatSetting, accounts: DocumentAccounts): InvoiceAmounts {
  // The accounts the posting writes itself are never a line's: a line on 6410 would be VAT outside the register.
  const own = new Set([accounts.receivable, accounts.payable, accounts.outputVat, accounts.inputVat, accounts.advancesReceived, accounts.advancesPaid]);
  const places = currencyDecimals(currency);
  let totalNet = new Decimal(0);
  let totalVat = new Decimal(0);
  const lines = input.map((line, i): InvoiceLine => {
    const quantity = new Decimal(line.quantity);
    if (!quantity.greaterThan(0)) throw invalid(`/body/lines/${i}/quantity`, `line ${i + 1}: quantity must be above zero`);
    const account = line.account ?? (kind === 'SALES' ? accounts.revenue : undefined);
    if (account === undefined) throw invalid(`/body/lines/${i}/account`, `line ${i + 1}: a purchase line names its expense, inventory or asset account`);
    if (own.has(account)) throw invalid(`/body/lines/${i}/account`, `line ${i + 1}: ${account} is an account the posting writes itself (settlement, VAT or advances); name the revenue, expense, inventory or asset account`);
    const rate = lineVatRate(line, i, vat);
    const net = quantity.times(line.unitPrice).toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
    const lineVat = rate === null ? new Decimal(0) : net.times(rate).dividedBy(100).toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
    totalNet = totalNet.plus(net);
    totalVat = totalVat.plus(lineVat);
    return {
      lineNo: i + 1,
      description: line.description,
      quantity: quantity.toFixed(),
      unitPrice: new Decimal(line.unitPrice).toFixed(),
      account,
      vatRate: rate === null ? null : canonicalRate(rate),
      catalogCode: line.catalogCode ?? null,
      net: net.toFixed(places),
      vat: lineVat.toFixed(places),
      gross: net.plus(lineVat).toFixed(places),
    };
  });
  const totalGross = totalNet.plus(totalVat);
  if (totalGross.greaterThan(MAX_DOCUMENT_AMOUNT)) throw invalid('/body/lines', `the invoice's total exceeds ${MAX_DOCUMENT_AMOUNT.toFixed(places)}, the most a document holds`);
  if (!totalGross.greaterThan(0)) throw invalid('/body/lines', 'the invoice\'s total must be above zero');
  return { lines, totalNet: totalNet.toFixed(places), totalVat: totalVat.toFixed(places), totalGross: totalGross.toFixed(places) };
}

/** The due date: given, else the invoice date plus the counterparty's payment terms (days). */
export function dueDateOf(invoiceDate: string, dueDate: string | undefined | null, termsDays: number): string {
  if (dueDate) {
    if (dueDate < invoiceDate) throw invalid('/body/dueDate', 'the due date cannot be before the invoice date');
    return dueDate;
  }
  const d = new Date(`${invoiceDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + termsDays);
  return d.toISOString().slice(0, 10);
}

/** The posting's UZS amounts of each line (net and VAT), and the invoice's. */
export interface UzsAmounts {
  lines: Array<{ netUzs: string; vatUzs: string }>;
  grossUzs: string;
  vatUzs: string;
}

/**
 * The invoice in UZS at `rate` (null for a UZS invoice: the amounts are already UZS). The gross is converted
 * whole, as the settlement line carries it (the ledger checks that line's conversion); each line's VAT is
 * converted on its own, so the VAT register's rows add up to the VAT account; each line's net is converted
 * and the largest absorbs the rounding difference, so net + VAT is exactly the gross.
 */
export function uzsAmountsOf(amounts: InvoiceAmounts, rate: string | null): UzsAmounts {
  if (rate === null) {
    return { lines: amounts.lines.map((l) => ({ netUzs: l.net, vatUzs: l.vat })), grossUzs: amounts.totalGross, vatUzs: amounts.totalVat };
  }
  const convert = (amount: string) => {
    const uzs = convertToUzs(amount, rate);
    if (uzs === null) throw invalid('/body/lines', `the invoice's UZS amount at ${rate} is more than an entry can hold`);
    return new Decimal(uzs);
  };
  const grossUzs = convert(amounts.totalGross);
  if (!grossUzs.greaterThan(0)) throw invalid('/body/lines', `the invoice's total is below 0.01 UZS at ${rate}`);
  const lines = amounts.lines.map((l) => ({ net: convert(l.net), vat: convert(l.vat) }));
  const converted = lines.reduce((sum, l) => sum.plus(l.net).plus(l.vat), new Decimal(0));
  let largest = 0;
  for (let i = 1; i < lines.length; i++) if (lines[i]!.net.greaterThan(lines[largest]!.net)) largest = i;
  lines[largest]!.net = lines[largest]!.net.plus(grossUzs.minus(converted));
  if (lines[largest]!.net.isNegative()) throw invalid('/body/lines', `the invoice's lines cannot be converted to UZS at ${rate} without a negative amount`);
  const vatUzs = lines.reduce((sum, l) => sum.plus(l.vat), new Decimal(0));
  return {
    lines: lines.map((l) => ({ netUzs: l.net.toFixed(2), vatUzs: l.vat.toFixed(2) })),
    grossUzs: grossUzs.toFixed(2),
    vatUzs: vatUzs.toFixed(2),
  };
}

/** What a posting needs to know of the invoice. */
export interface InvoiceToPost {
  kind: InvoiceKind;
  counterpartyId: string;
  currency: string;
  totalGross: string;
  lines: Array<Pick<InvoiceLine, 'account'>>;
}

/** The stored CBU rate the posting converts at (null for a UZS invoice). */
export interface PostingRate {
  rate: string;
  rateDate: string;
}

const NO_FOREIGN = { currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null } as const;

/**
 * The lines of the one entry a posted invoice writes. SALES: Dr receivable (the counterparty) gross / Cr
 * each revenue account its lines' net / Cr output VAT. PURCHASE: Dr each line account its net / Dr input
 * VAT / Cr payable (the counterparty) gross. The settlement line carries the foreign amount at the CBU rate
 * (month-end revaluation then covers it); revenue, expense and VAT lines are in UZS. Accounts of several
 * lines are one line each, in the order they first appear.
 */
export function invoiceEntryLines(invoice: InvoiceToPost, uzs: UzsAmounts, rate: PostingRate | null, accounts: DocumentAccounts): LedgerLine[] {
  const byAccount = new Map<string, Decimal>();
  invoice.lines.forEach((l, i) => byAccount.set(l.account, (byAccount.get(l.account) ?? new Decimal(0)).plus(uzs.lines[i]!.netUzs)));
  const sales = invoice.kind === 'SALES';
  const foreign = rate === null
    ? NO_FOREIGN
    : { currency: invoice.currency, currencyAmount: formatForeignAmount(invoice.totalGross, invoice.currency), rate: rate.rate, rateSource: 'CBU' as const, rateDate: rate.rateDate };
  const amount = (value: Decimal.Value) => new Decimal(value).toFixed(2);
  const line = (accountCode: string, side: 'debit' | 'credit', value: Decimal.Value, extra: Partial<LedgerLine> = {}): Omit<LedgerLine, 'lineNo'> => ({
    accountCode,
    subaccountId: null,
    counterpartyId: null,
    debit: side === 'debit' ? amount(value) : '0.00',
    credit: side === 'credit' ? amount(value) : '0.00',
    memo: null,
    ...NO_FOREIGN,
    ...extra,
  });
  const settlement = line(sales ? accounts.receivable : accounts.payable, sales ? 'debit' : 'credit', uzs.grossUzs, { counterpartyId: invoice.counterpartyId, ...foreign });
  const itemSide = sales ? 'credit' : 'debit';
  const items = [...byAccount].filter(([, v]) => v.greaterThan(0)).map(([code, v]) => line(code, itemSide, v));
  const vat = new Decimal(uzs.vatUzs).greaterThan(0) ? [line(sales ? accounts.outputVat : accounts.inputVat, itemSide, uzs.vatUzs)] : [];
  const lines = sales ? [settlement, ...items, ...vat] : [...items, ...vat, settlement];
  if (new Decimal(uzs.grossUzs).times(100).greaterThan(MAX_ENTRY_TOTAL.toString())) throw invalid('/body/lines', `the invoice's UZS total exceeds ${formatMinorUnits(MAX_ENTRY_TOTAL)}, the most an entry can hold`);
  return lines.map((l, i) => ({ ...l, lineNo: i + 1 }));
}
