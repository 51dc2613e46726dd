// The money rules the API (core/ledger/money.ts, core/ledger/currency.ts) and the console
// (api/web/static/app/money.js, console/currency.js) both apply, as cases: money-rules.test.ts runs each case
// through both. The console repeats the rules so that a posting form shows what the API will post; where the
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

/** A decimal with its whole part in groups of three, as the console shows rates and amounts. */
export const GROUPED: readonly { text: string; grouped: string }[] = [
  { text: '100', grouped: '100' },
  { text: '1000000', grouped: '1 000 000' },
  { text: '12850.12', grouped: '12 850.12' },
  { text: '1234.5678', grouped: '1 234.5678' },
  { text: '0.000123456789', grouped: '0.000123456789' },
  { text: '9999999999999999.99', grouped: '9 999 999 999 999 999.99' },
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
