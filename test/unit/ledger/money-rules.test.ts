import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { parse } from 'yaml';
import { convertToUzs, currencyDecimals, decimalsOf } from '../../../core/ledger/currency';
import { AMOUNT_PATTERN, formatMinorUnits, formatUnits, numericToUnits, toMinorUnits } from '../../../core/ledger/money';
import { computeInvoice, DEFAULT_DOCUMENT_ACCOUNTS, type InvoiceLineInput } from '../../../core/invoices/invoices';
import { documentAmount } from '../../../core/payments/payments';
import {
  AMOUNTS, CONVERSIONS, COPIED, CURRENCY_DECIMALS, FOREIGN_AMOUNTS, GROUPED, INVOICE_LINES, INVOICE_TOTALS, NOT_AMOUNTS, PAYMENT_AMOUNTS, RATE_NUMBERS, REMAINDERS, SIGNED_SUMS,
  TYPED_AMOUNTS, VAT_RATES,
} from './money-vectors';

// The console's modules are browser JS, checked against their JSDoc by api/web/static/tsconfig.json; the root
// project reads no JS, so their signatures are stated here as that JSDoc gives them.
interface ConsoleMoney {
  AMOUNT: RegExp;
  toMinor(text: string): bigint;
  formatMinor(minor: bigint): string;
  convertToMinor(amount: string, rate: string): bigint | null;
  decimalOfNumber(value: unknown): string | null;
  groupDigits(text: string): string;
  GROUP_SEPARATOR: string;
  formatAmount(value: string | null | undefined): string;
  plainAmount(text: string): string;
  ungroupText(text: string): string;
  QUANTITY: RegExp;
  UNIT_PRICE: RegExp;
  VAT_RATE: RegExp;
  formatUnits(units: bigint, places: number): string;
  invoiceLineUnits(quantity: string, unitPrice: string, vatRate: string | null, places?: number): { net: bigint; vat: bigint; gross: bigint };
  PAYMENT_AMOUNT: RegExp;
  toUnits(text: string, places: number): bigint;
}
interface ConsoleCurrency {
  currencyDecimals(code: string): number;
  foreignAmountPattern(code: string): RegExp;
}
const consoleMoney = jest.requireActual<ConsoleMoney>('../../../api/web/static/app/money.js');
const consoleCurrency = jest.requireActual<ConsoleCurrency>('../../../api/web/static/app/console/currency.js');
const consolePayments = jest.requireActual<{ amountUnits(typed: string, places: number): bigint | null }>('../../../api/web/static/app/console/payment-allocations.js');

/** The shape the OpenAPI document gives a line's foreign amount; core then holds it to the currency's decimals. */
const document = parse(readFileSync(join(__dirname, '../../../api/openapi.yaml'), 'utf8')) as {
  components: {
    schemas: {
      JournalLineCreate: { properties: { currencyAmount: { pattern: string } } };
      InvoiceLineInput: { properties: { quantity: { pattern: string }; unitPrice: { pattern: string } } };
      PaymentCreate: { properties: { amount: { pattern: string } } };
      AllocationInput: { properties: { amount: { pattern: string } } };
    };
  };
};
const FOREIGN_AMOUNT_SHAPE = new RegExp(document.components.schemas.JournalLineCreate.properties.currencyAmount.pattern);

describe('amounts: core and the console read and write them alike', () => {
  test.each(AMOUNTS)('$text is $minor minor units, written $formatted', ({ text, minor, formatted }) => {
    expect([AMOUNT_PATTERN.test(text), consoleMoney.AMOUNT.test(text)]).toEqual([true, true]);
    expect([toMinorUnits(text), consoleMoney.toMinor(text)]).toEqual([minor, minor]);
    expect([formatMinorUnits(minor), consoleMoney.formatMinor(minor)]).toEqual([formatted, formatted]);
  });

  test.each(NOT_AMOUNTS)('%j is not an amount', (text) => {
    expect([AMOUNT_PATTERN.test(text), consoleMoney.AMOUNT.test(text)]).toEqual([false, false]);
  });

  test.each(SIGNED_SUMS)('$minor minor units are written $formatted', ({ minor, formatted }) => {
    expect([formatMinorUnits(minor), consoleMoney.formatMinor(minor)]).toEqual([formatted, formatted]);
  });
});

describe('NUMERIC text in units of a currency\'s decimals: written as decimal.js writes it, the console alike', () => {
  test.each([
    ['1250.5', 2], ['-3.000', 2], ['7', 2], ['7', 0], ['12.5', 0], ['-12.5', 0], ['12.49', 0], ['0.005', 2], ['-0.015', 2], ['99.995', 2],
    ['-99.995', 2], ['1234.4449', 3], ['0', 3], ['-0.5', 0], ['123456789012345678.999', 2], ['100.000', 3],
  ] as Array<[string, number]>)('%s at %i decimals', (text, places) => {
    const written = new Decimal(text).toFixed(places);
    expect(formatUnits(numericToUnits(text, places), places)).toBe(written);
    expect(consoleMoney.formatUnits(numericToUnits(text, places), places)).toBe(written);
  });

  test('units add up exactly where a float would not', () => {
    const sum = ['0.10', '0.20', '1234567890123456.78'].reduce((total, text) => total + numericToUnits(text, 2), 0n);
    expect(formatUnits(sum, 2)).toBe('1234567890123457.08');
  });
});

describe('conversion to UZS: core and the console round the exact product alike', () => {
  test.each(CONVERSIONS)('$amount at $rate is $uzs', ({ amount, rate, uzs, float }) => {
    expect(convertToUzs(amount, rate)).toBe(uzs);
    const minor = consoleMoney.convertToMinor(amount, rate);
    expect(minor === null ? null : consoleMoney.formatMinor(minor)).toBe(uzs);
    // The case is a trap for floats only if a float product does round otherwise.
    if (float !== undefined) expect((Number(amount) * Number(rate)).toFixed(2)).toBe(float);
  });
});

describe('rates and their display in the console', () => {
  test.each(RATE_NUMBERS)('the rate $value is the decimal $text', ({ value, text }) => {
    expect(consoleMoney.decimalOfNumber(value)).toBe(text);
    // The decimal is the number's value exactly, as core's decimal arithmetic reads the number.
    if (text !== null) expect(Number(text)).toBe(value);
  });

  test.each(GROUPED)('$text is shown $grouped', ({ text, grouped }) => {
    expect(consoleMoney.groupDigits(text)).toBe(grouped);
    expect(consoleMoney.formatAmount(text)).toBe(grouped);
  });
});

describe('amounts as the console shows them: grouped in threes by U+202F, and read back as typed or copied', () => {
  test('one separator, a narrow no-break space', () => {
    expect(consoleMoney.GROUP_SEPARATOR).toBe('\u202F');
    expect(/\s/.test(consoleMoney.GROUP_SEPARATOR)).toBe(true); // white space, so no line breaks at it either…
    expect(consoleMoney.GROUP_SEPARATOR).not.toBe(' '); // …and never a typed space
  });

  test('no amount is shown empty', () => {
    expect([consoleMoney.formatAmount(null), consoleMoney.formatAmount(undefined)]).toEqual(['', '']);
  });

  test.each(AMOUNTS)('$formatted is shown with the same digits, and taken back as it was', ({ formatted }) => {
    const shown = consoleMoney.formatAmount(formatted);
    expect(shown.replaceAll('\u202F', '')).toBe(formatted);
    expect(consoleMoney.plainAmount(shown)).toBe(formatted);
    expect(consoleMoney.ungroupText(shown)).toBe(formatted);
  });

  test.each(SIGNED_SUMS)('$formatted keeps its sign in front of the groups', ({ formatted }) => {
    const shown = consoleMoney.formatAmount(formatted);
    expect(shown.startsWith('-')).toBe(true);
    expect(consoleMoney.ungroupText(shown)).toBe(formatted);
  });

  test.each(TYPED_AMOUNTS)('$typed is read as $plain', ({ typed, plain }) => {
    expect(consoleMoney.plainAmount(typed)).toBe(plain);
  });

  test.each(COPIED)('$shown is copied as $copied', ({ shown, copied }) => {
    expect(consoleMoney.ungroupText(shown)).toBe(copied);
  });
});

describe('foreign currencies: core and the console allow the same decimals', () => {
  test.each(CURRENCY_DECIMALS)('$currency has $decimals decimals', ({ currency, decimals }) => {
    expect([currencyDecimals(currency), consoleCurrency.currencyDecimals(currency)]).toEqual([decimals, decimals]);
  });

  test.each(FOREIGN_AMOUNTS)('$amount $currency is taken: $accepted', ({ currency, amount, accepted }) => {
    const byApi = FOREIGN_AMOUNT_SHAPE.test(amount) && decimalsOf(amount) <= currencyDecimals(currency);
    expect([byApi, consoleCurrency.foreignAmountPattern(currency).test(amount)]).toEqual([accepted, accepted]);
  });
});

describe('invoice lines: core and the console compute a draft\'s amounts alike', () => {
  /** A line of the vectors as core takes it: the rate a JSON number, as the console sends it. */
  const coreLine = (l: { quantity: string; unitPrice: string; vatRate: string | null }): InvoiceLineInput => ({
    description: 'Goods', quantity: l.quantity, unitPrice: l.unitPrice, vatRate: l.vatRate === null ? null : Number(l.vatRate),
  });
  const byCore = (currency: string, lines: { quantity: string; unitPrice: string; vatRate: string | null }[]) =>
    computeInvoice('SALES', lines.map(coreLine), currency, { taxRegime: 'GENERAL', vatRate: '12' }, DEFAULT_DOCUMENT_ACCOUNTS);

  test('the form checks quantities and unit prices with the document\'s patterns', () => {
    const line = document.components.schemas.InvoiceLineInput.properties;
    expect(consoleMoney.QUANTITY.source).toBe(line.quantity.pattern);
    expect(consoleMoney.UNIT_PRICE.source).toBe(line.unitPrice.pattern);
  });

  const lineCases = INVOICE_LINES.map((c) => ({ ...c, rate: c.vatRate === null ? 'exempt' : `VAT ${c.vatRate} %` }));
  test.each(lineCases)('$quantity × $unitPrice $currency, $rate: net $net, VAT $vat, gross $gross', ({ quantity, unitPrice, vatRate, currency, net, vat, gross, float }) => {
    expect([consoleMoney.QUANTITY.test(quantity), consoleMoney.UNIT_PRICE.test(unitPrice)]).toEqual([true, true]);
    if (vatRate !== null) expect(consoleMoney.VAT_RATE.test(vatRate)).toBe(true);
    const [line] = byCore(currency, [{ quantity, unitPrice, vatRate }]).lines;
    expect({ net: line!.net, vat: line!.vat, gross: line!.gross }).toEqual({ net, vat, gross });
    const places = consoleCurrency.currencyDecimals(currency);
    const units = consoleMoney.invoiceLineUnits(quantity, unitPrice, vatRate, places);
    expect({ net: consoleMoney.formatUnits(units.net, places), vat: consoleMoney.formatUnits(units.vat, places), gross: consoleMoney.formatUnits(units.gross, places) }).toEqual({ net, vat, gross });
    if (float !== undefined) expect((Number(quantity) * Number(unitPrice)).toFixed(places)).toBe(float);
  });

  test.each(INVOICE_TOTALS)('$currency invoice: totals $totalNet + $totalVat = $totalGross', ({ currency, lines, totalNet, totalVat, totalGross }) => {
    const core = byCore(currency, lines);
    expect({ totalNet: core.totalNet, totalVat: core.totalVat, totalGross: core.totalGross }).toEqual({ totalNet, totalVat, totalGross });
    const places = consoleCurrency.currencyDecimals(currency);
    const sum = lines.map((l) => consoleMoney.invoiceLineUnits(l.quantity, l.unitPrice, l.vatRate, places))
      .reduce((s, u) => ({ net: s.net + u.net, vat: s.vat + u.vat, gross: s.gross + u.gross }), { net: 0n, vat: 0n, gross: 0n });
    expect({ totalNet: consoleMoney.formatUnits(sum.net, places), totalVat: consoleMoney.formatUnits(sum.vat, places), totalGross: consoleMoney.formatUnits(sum.gross, places) })
      .toEqual({ totalNet, totalVat, totalGross });
  });

  test.each(VAT_RATES)('the VAT rate $text is taken: $accepted', ({ text, accepted }) => {
    expect(consoleMoney.VAT_RATE.test(text)).toBe(accepted);
    // What the console takes, core takes as the number sent.
    if (accepted) expect(() => byCore('UZS', [{ quantity: '1', unitPrice: '100', vatRate: text }])).not.toThrow();
  });

  test('two decimals unless told otherwise, as formatMinor writes them', () => {
    expect(consoleMoney.invoiceLineUnits('2', '1250.50', '12')).toEqual({ net: 250100n, vat: 30012n, gross: 280112n });
    for (const { minor, formatted } of [...AMOUNTS, ...SIGNED_SUMS]) expect(consoleMoney.formatUnits(minor, 2)).toBe(formatted);
  });
});

describe('payments: core and the console read an amount and what stays unallocated alike', () => {
  test('the form checks amounts with the document\'s pattern, a payment\'s and an allocation\'s alike', () => {
    expect(consoleMoney.PAYMENT_AMOUNT.source).toBe(document.components.schemas.PaymentCreate.properties.amount.pattern);
    expect(consoleMoney.PAYMENT_AMOUNT.source).toBe(document.components.schemas.AllocationInput.properties.amount.pattern);
  });

  test.each(PAYMENT_AMOUNTS)('$amount $currency is taken: $accepted', ({ currency, amount, accepted, units }) => {
    const byApi = consoleMoney.PAYMENT_AMOUNT.test(amount) && (() => {
      try {
        documentAmount(amount, currency, '/body/amount');
        return true;
      } catch {
        return false;
      }
    })();
    const places = consoleCurrency.currencyDecimals(currency);
    const byConsole = consolePayments.amountUnits(amount, places);
    expect([byApi, byConsole !== null]).toEqual([accepted, accepted]);
    if (units !== undefined) {
      expect(byConsole).toBe(units);
      expect(consoleMoney.formatUnits(units, places)).toBe(new Decimal(amount).toFixed(places));
    }
  });

  test.each(REMAINDERS)('$amount $currency less $allocations leaves $unallocated', ({ currency, amount, allocations, unallocated, float }) => {
    const places = consoleCurrency.currencyDecimals(currency);
    const core = allocations.reduce((left, a) => left.minus(a), new Decimal(amount)).toFixed(places);
    const units = allocations.reduce((left, a) => left - consoleMoney.toUnits(a, places), consoleMoney.toUnits(amount, places));
    expect([core, consoleMoney.formatUnits(units, places)]).toEqual([unallocated, unallocated]);
    if (float !== undefined) expect(allocations.reduce((left, a) => left - Number(a), Number(amount)).toFixed(places)).toBe(float);
  });
});
