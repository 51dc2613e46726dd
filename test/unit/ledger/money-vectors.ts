// The money rules the API (core/ledger/money.ts, core/ledger/currency.ts, core/invoices/invoices.ts) and the
// console (api/web/static/app/money.js, console/currency.js) both apply, as cases: money-rules.test.ts runs each
// case through both. The console repeats the rules so that a posting form shows what the API will post; where the
// two differ, the form would show one UZS amount and the API refuse it, or post another.

/** An amount as the API takes it (at most two decimals), its minor units, and the text they format back to. */
export const AMOUNTS: readonly { text: string; minor: bigint; formatted: string }[] = [
  { text: '0', minor: 0n, formatted: '0.00' },
  { text: '0.5', minor: 50n, formatted: '0.50' },
  { text: '0.05', minor: 5n, formatted: '0.05' },
  { text: '7', minor: 700n, formatted: '7.00' },
  { text: '1250.5', minor: 125050n, formatted: '1250.50' },
  { text: '1250.00', minor: 125000n, formatted: '1250.00' },
  { text: '9999999999999999.99', minor: 999999999999999999n, formatted: '9999999999999999.99' },
];

/** Texts that are not amounts: a leading zero, a bare point, a third decimal, a sign, an exponent, 17 digits. */
export const NOT_AMOUNTS: readonly string[] = ['', '01', '1.', '.5', '1.234', '-1', '+1', '1e3', ' 1', '1,5', '10000000000000000'];

/** Sums below zero (a balance on the other side) keep their sign. */
export const SIGNED_SUMS: readonly { minor: bigint; formatted: string }[] = [
  { minor: -125050n, formatted: '-1250.50' },
  { minor: -5n, formatted: '-0.05' },
  { minor: -100n, formatted: '-1.00' },
  { minor: -999999999999999999n, formatted: '-9999999999999999.99' },
];

/**
 * A foreign amount at a rate (UZS per unit) in UZS: the exact product rounded half-up to two decimals, null
 * when it has more than 16 digits before the point. `float` is what a float product rounds to where it differs.
 */
export const CONVERSIONS: readonly { amount: string; rate: string; uzs: string | null; float?: string }[] = [
  { amount: '100.10', rate: '12850.05', uzs: '1286290.01', float: '1286290.00' }, // exactly 1286290.005
  { amount: '1.005', rate: '1', uzs: '1.01', float: '1.00' },
  { amount: '100', rate: '12850.12', uzs: '1285012.00' },
  { amount: '0', rate: '12850.05', uzs: '0.00' },
  { amount: '0.01', rate: '0.5', uzs: '0.01' }, // 0.005: half-up
  { amount: '0.05', rate: '0.5', uzs: '0.03' }, // 0.025: half-up, where half-even would give 0.02
  { amount: '1234', rate: '67.8912', uzs: '83777.74' },
  { amount: '0.001', rate: '27001.5', uzs: '27.00' },
  { amount: '1.255', rate: '40000.5', uzs: '50200.63' }, // three decimals (KWD)
  { amount: '1000', rate: '0.000123456789', uzs: '0.12' },
  { amount: '1', rate: '0.000123456789', uzs: '0.00' },
  { amount: '81', rate: '0.000123456789', uzs: '0.01' }, // 0.009999999909
  { amount: '12345678.901', rate: '0.000123456789', uzs: '1524.16' },
  { amount: '1000000', rate: '0.000000005', uzs: '0.01' }, // 0.005
  { amount: '99999999', rate: '12850.05', uzs: '1285004987149.95' },
  { amount: '9999999999999999.99', rate: '1', uzs: '9999999999999999.99' }, // the most a line holds
  { amount: '1999999999999999.998', rate: '5', uzs: '9999999999999999.99' }, // …999.990
  { amount: '1999999999999999.999', rate: '5', uzs: null }, // …999.995 rounds past 16 digits
  { amount: '9999999999999999.99', rate: '2', uzs: null },
  { amount: '1000000', rate: '10000000000', uzs: null }, // 10^16
];

/**
 * A rate as the API's JSON number, and the exact decimal it stands for (rates keep at most 15 significant
 * digits); null for what is not a rate.
 */
export const RATE_NUMBERS: readonly { value: unknown; text: string | null }[] = [
  { value: 12850.05, text: '12850.05' },
  { value: 12850, text: '12850' },
  { value: 0.000123456789, text: '0.000123456789' },
  { value: 1.5e-7, text: '0.00000015' },
  { value: 1.2345e-10, text: '0.00000000012345' },
  { value: 123456789012345, text: '123456789012345' },
  { value: 2.5e21, text: '2500000000000000000000' },
  { value: 0, text: null },
  { value: -1, text: null },
  { value: Number.NaN, text: null },
  { value: Number.POSITIVE_INFINITY, text: null },
  { value: null, text: null },
  { value: '12850.05', text: null },
];

/**
 * The console's digit group separator, U+202F NARROW NO-BREAK SPACE: `thin('1 250.00')` writes the cases below
 * with a plain space where the console shows it, so that no invisible character sits in this file.
 */
export const thin = (text: string): string => text.replaceAll(' ', '\u202F');

/**
 * A decimal with its whole part in groups of three, as the console shows rates and amounts; a sign kept in front,
 * digits past what a float holds kept exactly, and what is not a plain decimal left as it is.
 */
export const GROUPED: readonly { text: string; grouped: string }[] = [
  { text: '0.00', grouped: '0.00' },
  { text: '100', grouped: '100' },
  { text: '999.99', grouped: '999.99' },
  { text: '1000', grouped: thin('1 000') },
  { text: '1000000', grouped: thin('1 000 000') },
  { text: '1250000.00', grouped: thin('1 250 000.00') },
  { text: '12850.12', grouped: thin('12 850.12') },
  { text: '1234.5678', grouped: thin('1 234.5678') },
  { text: '0.000123456789', grouped: '0.000123456789' },
  { text: '9999999999999999.99', grouped: thin('9 999 999 999 999 999.99') }, // Number() would say 10000000000000000
  { text: '12345678901234567890.123', grouped: thin('12 345 678 901 234 567 890.123') },
  { text: '-5.00', grouped: '-5.00' },
  { text: '-125.50', grouped: '-125.50' },
  { text: '-1250.50', grouped: thin('-1 250.50') },
  { text: '-100000', grouped: thin('-100 000') },
  { text: '', grouped: '' },
  { text: 'n/a', grouped: 'n/a' },
  { text: '1e21', grouped: '1e21' },
  { text: '1.', grouped: '1.' },
  { text: '12 850', grouped: '12 850' }, // grouped already (by a plain space): not a decimal, left alone
];

/** A typed or pasted amount and what the posting form reads it as: grouped in threes, the separators go. */
export const TYPED_AMOUNTS: readonly { typed: string; plain: string }[] = [
  { typed: '1250.50', plain: '1250.50' },
  { typed: '1 250.50', plain: '1250.50' },
  { typed: thin('1 250 000.00'), plain: '1250000.00' },
  { typed: '1\u00A0250\u00A0000', plain: '1250000' },
  { typed: '12 850.', plain: '12850.' }, // then refused as an amount, as "12850." is
  { typed: '1 25', plain: '1 25' }, // not groups of three: left for the form to refuse
  { typed: '12 50.00', plain: '12 50.00' },
  { typed: '1234 567', plain: '1234 567' },
  { typed: '1,250.00', plain: '1,250.00' },
  { typed: ' 1 250', plain: ' 1 250' },
];

/** Text copied from the console: the group separators between digits go, so a pasted amount is the API's decimal. */
export const COPIED: readonly { shown: string; copied: string }[] = [
  { shown: `Debit ${thin('1 250 000.00')} · Credit ${thin('1 250 000.00')} · balanced`, copied: 'Debit 1250000.00 · Credit 1250000.00 · balanced' },
  { shown: `1 USD = ${thin('12 850.12')} UZS, CBU 2011-03-01`, copied: '1 USD = 12850.12 UZS, CBU 2011-03-01' },
  { shown: `5110\t${thin('1 000.00')}\t${thin('-2 500.75')}`, copied: '5110\t1000.00\t-2500.75' },
  { shown: 'no amounts here', copied: 'no amounts here' },
  { shown: thin('a 12 b'), copied: thin('a 12 b') }, // not between digit groups
  { shown: thin('No. 12 34'), copied: thin('No. 12 34') }, // digits, but not a group of three after the separator
];

/** The decimals of a currency's amounts: its ISO 4217 minor unit, at most three; 2 for a code ISO lacks. */
export const CURRENCY_DECIMALS: readonly { currency: string; decimals: number }[] = [
  { currency: 'USD', decimals: 2 },
  { currency: 'UZS', decimals: 2 },
  { currency: 'JPY', decimals: 0 },
  { currency: 'KWD', decimals: 3 },
  { currency: 'CLF', decimals: 3 }, // four in ISO 4217, three in a foreign amount column
  { currency: 'XYZ', decimals: 2 }, // not an ISO 4217 code
];

/** A foreign amount's text in its currency, and whether the API takes it (at most the currency's decimals). */
export const FOREIGN_AMOUNTS: readonly { currency: string; amount: string; accepted: boolean }[] = [
  { currency: 'USD', amount: '100.10', accepted: true },
  { currency: 'USD', amount: '100', accepted: true },
  { currency: 'USD', amount: '100.101', accepted: false },
  { currency: 'USD', amount: '01', accepted: false },
  { currency: 'USD', amount: '1.', accepted: false },
  { currency: 'JPY', amount: '100', accepted: true },
  { currency: 'JPY', amount: '100.5', accepted: false },
  { currency: 'KWD', amount: '1.255', accepted: true },
  { currency: 'KWD', amount: '1.2555', accepted: false },
  { currency: 'CLF', amount: '0.125', accepted: true },
  { currency: 'CLF', amount: '0.1255', accepted: false },
  { currency: 'USD', amount: '9999999999999999.99', accepted: true },
  { currency: 'USD', amount: '10000000000000000', accepted: false },
];

/**
 * An invoice line's amounts (core/invoices computeInvoice, the console's invoiceLineUnits): net = quantity × unit
 * price, VAT = net × rate / 100, each rounded half-up to the currency's decimals, gross = net +
 * VAT. `vatRate` null is exempt. `float` is what a float product rounds the net to where it differs.
 */
export const INVOICE_LINES: readonly { quantity: string; unitPrice: string; vatRate: string | null; currency: string; net: string; vat: string; gross: string; float?: string }[] = [
  { quantity: '2', unitPrice: '1250.50', vatRate: '12', currency: 'UZS', net: '2501.00', vat: '300.12', gross: '2801.12' },
  { quantity: '1.5', unitPrice: '333.3333', vatRate: '12', currency: 'UZS', net: '500.00', vat: '60.00', gross: '560.00' }, // 499.99995
  { quantity: '3', unitPrice: '1.005', vatRate: null, currency: 'UZS', net: '3.02', vat: '0.00', gross: '3.02', float: '3.01' }, // exactly 3.015
  { quantity: '1', unitPrice: '0.125', vatRate: null, currency: 'UZS', net: '0.13', vat: '0.00', gross: '0.13' }, // half-up, where half-even gives 0.12
  { quantity: '3', unitPrice: '0.0035', vatRate: '12', currency: 'UZS', net: '0.01', vat: '0.00', gross: '0.01' }, // 0.0105; VAT 0.0012
  { quantity: '1', unitPrice: '10.625', vatRate: '12', currency: 'UZS', net: '10.63', vat: '1.28', gross: '11.91' }, // VAT of the rounded net: 1.2756
  { quantity: '1', unitPrice: '0.2', vatRate: '12.5', currency: 'UZS', net: '0.20', vat: '0.03', gross: '0.23' }, // VAT 0.025: half-up
  { quantity: '0.001', unitPrice: '999.9999', vatRate: '15', currency: 'UZS', net: '1.00', vat: '0.15', gross: '1.15' },
  { quantity: '7', unitPrice: '100', vatRate: '0', currency: 'UZS', net: '700.00', vat: '0.00', gross: '700.00' }, // zero-rated, not exempt
  { quantity: '1', unitPrice: '1', vatRate: '100', currency: 'UZS', net: '1.00', vat: '1.00', gross: '2.00' },
  { quantity: '1000000000', unitPrice: '12345678.9012', vatRate: '12', currency: 'UZS', net: '12345678901200000.00', vat: '1481481468144000.00', gross: '13827160369344000.00' }, // past 2^53
  { quantity: '3', unitPrice: '333.5', vatRate: '10', currency: 'JPY', net: '1001', vat: '100', gross: '1101' }, // no decimals: 1000.5, 100.1
  { quantity: '2.5', unitPrice: '1.2345', vatRate: '5', currency: 'KWD', net: '3.086', vat: '0.154', gross: '3.240' }, // three: 3.08625, 0.1543
  { quantity: '2', unitPrice: '49.995', vatRate: '12', currency: 'USD', net: '99.99', vat: '12.00', gross: '111.99' }, // VAT 11.9988
];

/** An invoice's totals: the sums of its lines' rounded amounts (never the rounding of a summed product). */
export const INVOICE_TOTALS: readonly { currency: string; lines: { quantity: string; unitPrice: string; vatRate: string | null }[]; totalNet: string; totalVat: string; totalGross: string }[] = [
  {
    currency: 'UZS',
    lines: [{ quantity: '2', unitPrice: '1250.50', vatRate: '12' }, { quantity: '1', unitPrice: '499.995', vatRate: null }],
    totalNet: '3001.00', totalVat: '300.12', totalGross: '3301.12',
  },
  {
    // Each line's VAT (12 % of 0.04: 0.0048) rounds to 0.00, so the total VAT is 0.00, where 12 % of the total net 0.12 would be 0.01.
    currency: 'UZS',
    lines: [{ quantity: '1', unitPrice: '0.0416', vatRate: '12' }, { quantity: '1', unitPrice: '0.0416', vatRate: '12' }, { quantity: '1', unitPrice: '0.0416', vatRate: '12' }],
    totalNet: '0.12', totalVat: '0.00', totalGross: '0.12',
  },
  {
    currency: 'JPY',
    lines: [{ quantity: '1', unitPrice: '0.5', vatRate: '10' }, { quantity: '1', unitPrice: '0.5', vatRate: '10' }],
    totalNet: '2', totalVat: '0', totalGross: '2',
  },
];

/** A VAT rate typed in the invoice form (a percentage), and whether the console takes it: 0 to 100, two decimals. */
export const VAT_RATES: readonly { text: string; accepted: boolean }[] = [
  { text: '12', accepted: true },
  { text: '12.5', accepted: true },
  { text: '12.25', accepted: true },
  { text: '0', accepted: true },
  { text: '100', accepted: true },
  { text: '100.00', accepted: true },
  { text: '100.01', accepted: false },
  { text: '101', accepted: false },
  { text: '12.345', accepted: false },
  { text: '012', accepted: false },
  { text: '-1', accepted: false },
  { text: '12%', accepted: false },
  { text: '', accepted: false },
];

/**
 * A payment's or an allocation's amount as typed, in its currency, and whether the API takes it (the document's
 * pattern, above zero, at most the currency's decimals: core/payments documentAmount); `units` is what the
 * console's payment form reads it as, in units of the currency's decimals.
 */
export const PAYMENT_AMOUNTS: readonly { currency: string; amount: string; accepted: boolean; units?: bigint }[] = [
  { currency: 'UZS', amount: '700000', accepted: true, units: 70000000n },
  { currency: 'UZS', amount: '1250.5', accepted: true, units: 125050n },
  { currency: 'UZS', amount: '0.01', accepted: true, units: 1n },
  { currency: 'UZS', amount: '0', accepted: false },
  { currency: 'UZS', amount: '0.00', accepted: false },
  { currency: 'UZS', amount: '1.005', accepted: false },
  { currency: 'UZS', amount: '99999999999999999.99', accepted: true, units: 9999999999999999999n }, // 17 digits, past 2^53
  { currency: 'UZS', amount: '100000000000000000', accepted: false },
  { currency: 'JPY', amount: '1000', accepted: true, units: 1000n },
  { currency: 'JPY', amount: '1000.5', accepted: false },
  { currency: 'KWD', amount: '1.005', accepted: true, units: 1005n },
  { currency: 'KWD', amount: '1.0005', accepted: false },
  { currency: 'USD', amount: '01', accepted: false },
  { currency: 'USD', amount: '-5', accepted: false },
  { currency: 'USD', amount: '1e3', accepted: false },
];

/**
 * A payment's amount less what is allocated of it, in its currency's decimals: what stays an advance, negative where
 * the allocations are more. `float` is what float arithmetic makes of it where that differs.
 */
export const REMAINDERS: readonly { currency: string; amount: string; allocations: string[]; unallocated: string; float?: string }[] = [
  { currency: 'UZS', amount: '1200000.01', allocations: ['1120000.00'], unallocated: '80000.01' },
  { currency: 'UZS', amount: '0.3', allocations: ['0.1', '0.2'], unallocated: '0.00', float: '-0.00' },
  { currency: 'UZS', amount: '100', allocations: ['60', '50.5'], unallocated: '-10.50' },
  { currency: 'UZS', amount: '99999999999999999.99', allocations: ['0.01'], unallocated: '99999999999999999.98', float: '100000000000000000.00' },
  { currency: 'JPY', amount: '1000', allocations: ['999'], unallocated: '1' },
  { currency: 'KWD', amount: '1.005', allocations: ['0.335', '0.335'], unallocated: '0.335' },
];
