import { readFileSync } from 'node:fs';
import path from 'node:path';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { parseCentralBankDocument, parseCommercialBankDocument } from '../../../adapters/rates';
import { quoteTime } from '../../../adapters/rates/commercial-bank';
import { MalformedRateDocument, parseRate, perUnit, ratesStatus } from '../../../core/rates/rates';

const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'rates', name), 'utf8'));
const rateOf = (doc: ReturnType<typeof parseCentralBankDocument>, code: string) => doc.rates.find((r) => r.currency === code);

describe('Central Bank of Uzbekistan document', () => {
  const doc = parseCentralBankDocument(fixture('cbu-2026-11-20.json'));

  test('every row of the recorded list is read, with its English name, day and rate per one unit', () => {
    expect(doc.skipped).toEqual([]);
    expect(doc.rates).toHaveLength(14);
    expect(rateOf(doc, 'USD')).toEqual({
      currency: 'USD',
      name: 'US Dollar',
      effectiveDate: '2026-11-20',
      sourceUpdatedAt: '2026-11-19T19:00:00.000Z', // 00:00 in Tashkent (UTC+5)
      rate: '12046.26',
      buyRate: null,
      sellRate: null,
    });
  });

  test('Rate / Nominal is exact: 2.86 per 10 IRR is 0.286, 55.71 per 100 LAK is 0.5571; 0.77 per IDR keeps both digits', () => {
    expect(rateOf(doc, 'IRR')?.rate).toBe('0.286');
    expect(rateOf(doc, 'VND')?.rate).toBe('0.473');
    expect(rateOf(doc, 'LAK')?.rate).toBe('0.5571');
    expect(rateOf(doc, 'IDR')?.rate).toBe('0.77');
    expect(rateOf(doc, 'KWD')?.rate).toBe('39250.18');
  });

  test('malformed rows are skipped, each with its reason, and the good rows are kept', () => {
    const mixed = parseCentralBankDocument(fixture('cbu-with-bad-rows.json'));
    expect(mixed.rates.map((r) => r.currency)).toEqual(['USD', 'EUR', 'RUB']);
    expect(rateOf(mixed, 'USD')?.rate).toBe('12046.26'); // the duplicate later in the list does not win
    expect(mixed.skipped.map((s) => s.index)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    const reasons = mixed.skipped.map((s) => s.reason).join('\n');
    expect(reasons).toMatch(/"usd" is not three capital letters/);
    expect(reasons).toMatch(/CAD: Rate "abc" is not a positive decimal/);
    expect(reasons).toMatch(/AUD: Nominal "0" is not a positive whole number/);
    expect(reasons).toMatch(/TRY: Date "31.02.2026" is not a DD.MM.YYYY day/);
    expect(reasons).toMatch(/USD appears twice/);
    expect(reasons).toMatch(/UZS is the base currency/);
    expect(reasons).toMatch(/row is not an object \(null\)/);
    expect(reasons).toMatch(/BYN: Rate "-3561.20" is not a positive decimal/);
  });

  test.each([
    ['an object instead of a list', { error: 'maintenance' }, /not a JSON array/],
    ['an empty list', [], /none of the 0 rows/],
    ['a list without one usable row', [{ Ccy: 'USD', Nominal: '1', Rate: 'n/a', Date: '20.11.2026' }], /none of the 1 rows is a usable rate \(row 0: USD: Rate "n\/a"/],
    ['a string', 'Service temporarily unavailable', /not a JSON array/],
  ])('a malformed document (%s) is refused as a whole', (_label, document, reason) => {
    expect(() => parseCentralBankDocument(document)).toThrow(MalformedRateDocument);
    expect(() => parseCentralBankDocument(document)).toThrow(reason);
  });
});

describe('commercial bank document (the National Bank of Uzbekistan format)', () => {
  const doc = parseCommercialBankDocument(fixture('bank-2026-11-20.json'));

  test('buy and sell per one unit, rate null, the quote time in Tashkent', () => {
    expect(doc.rates.find((r) => r.currency === 'USD')).toEqual({
      currency: 'USD',
      name: 'US Dollar',
      effectiveDate: '2026-11-20',
      sourceUpdatedAt: '2026-11-20T04:00:01.000Z',
      rate: null,
      buyRate: '11990',
      sellRate: '12090',
    });
    expect(doc.rates.map((r) => r.currency)).toEqual(['USD', 'EUR', 'RUB', 'GBP', 'CHF', 'JPY']);
  });

  test('currencies the bank does not trade (empty prices) are left out with the reason', () => {
    expect(doc.skipped).toEqual([
      { index: 6, reason: 'KZT: the bank quotes no buy or sell price' },
      { index: 7, reason: 'CNY: the bank quotes no buy or sell price' },
    ]);
  });

  test('a buy price above the sell price, or a missing sell price, is a malformed row', () => {
    const result = parseCommercialBankDocument([
      { code: 'USD', title: 'US Dollar', nbu_buy_price: '12100', nbu_cell_price: '12000', date: '20.11.2026 09:00:00' },
      { code: 'EUR', title: 'Euro', nbu_buy_price: '13700', nbu_cell_price: '', date: '20.11.2026 09:00:00' },
      { code: 'GBP', title: 'Pound', nbu_buy_price: '15450', nbu_cell_price: '16100', date: 'yesterday' },
      { code: 'CHF', title: 'Swiss Franc', nbu_buy_price: '14700', nbu_cell_price: '15450', date: '20.11.2026 09:00:00' },
    ]);
    expect(result.rates.map((r) => r.currency)).toEqual(['CHF']);
    expect(result.skipped.map((s) => s.reason)).toEqual([
      'USD: buy price 12100 is above sell price 12000',
      'EUR: sell price "" is not a positive decimal',
      'GBP: date "yesterday" is not a date and time the bank uses',
    ]);
  });

  test.each([
    ['11/20/2026 09:00:01 am', '2026-11-20', '2026-11-20T04:00:01.000Z'],
    ['11/20/2026 12:30:00 pm', '2026-11-20', '2026-11-20T07:30:00.000Z'],
    ['11/20/2026 12:05:00 am', '2026-11-20', '2026-11-19T19:05:00.000Z'],
    ['20.11.2026 17:45:10', '2026-11-20', '2026-11-20T12:45:10.000Z'],
    ['20.11.2026', '2026-11-20', '2026-11-19T19:00:00.000Z'],
  ])('quote time %s → %s (%s)', (text, day, instant) => {
    expect(quoteTime(text)).toEqual({ effectiveDate: day, sourceUpdatedAt: instant });
  });

  test.each(['13/20/2026 09:00:01 am', '11/31/2026 09:00:01', '11/20/2026 13:00:00 pm', '20.11.2026 24:00:00', '2026-11-20T09:00:00Z', ''])(
    'quote time %j is not one',
    (text) => {
      expect(quoteTime(text)).toBeNull();
    },
  );
});

describe('exact rates', () => {
  test.each([
    ['12046.26', '12046.26'],
    [' 0.77 ', '0.77'],
    ['7.50', '7.5'],
    ['0', null],
    ['-1', null],
    ['1e3', null],
    ['12 046.26', null],
    ['1,5', null],
    ['1234567890123456', null], // 16 significant digits: more than a JSON number carries exactly
    ['', null],
  ])('parseRate(%j) = %j', (text, expected) => {
    expect(parseRate(text)).toBe(expected);
  });

  test('Rate / Nominal by a power of ten is exact, and its JSON number is the same decimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 99_999_999_99n }), fc.integer({ min: 0, max: 8 }), (cents, power) => {
        const rate = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
        const nominal = 10 ** power;
        const unit = perUnit(rate, nominal);
        // Multiplying back gives the published rate, digit for digit.
        const [whole, fraction = ''] = unit.split('.');
        const scaled = BigInt(whole + fraction.padEnd(10, '0')) * BigInt(nominal);
        expect(scaled).toBe(cents * 10n ** 8n);
        // What JSON.stringify writes for the number is the same decimal (1e-7 for 0.0000001).
        expect(new Decimal(JSON.stringify(Number(unit))).equals(unit)).toBe(true);
      }),
    );
  });

  test('a quotient that does not terminate is rounded half-even at 10 decimals (and 15 significant digits)', () => {
    expect(perUnit('100', 3)).toBe('33.3333333333');
    expect(perUnit('39250.18', 7)).toBe('5607.1685714286');
    expect(perUnit('123456789012.34', 3)).toBe('41152263004.1133');
    const tiny = parseCentralBankDocument([
      { Ccy: 'USD', CcyNm_EN: 'US Dollar', Nominal: '1', Rate: '12046.26', Date: '20.11.2026' },
      { Ccy: 'XAF', CcyNm_EN: 'CFA Franc', Nominal: '1000000000', Rate: '0.01', Date: '20.11.2026' },
    ]);
    expect(tiny.skipped).toEqual([{ index: 1, reason: 'XAF: Rate 0.01 per 1000000000 rounds to zero' }]);
  });
});

describe('freshness', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const hour = 3600;
  test.each([
    [{ hasRates: false, lastSuccessAt: null }, 'UNAVAILABLE'],
    [{ hasRates: false, lastSuccessAt: new Date(now.getTime() - 1000) }, 'UNAVAILABLE'],
    [{ hasRates: true, lastSuccessAt: new Date(now.getTime() - 1000) }, 'FRESH'],
    [{ hasRates: true, lastSuccessAt: new Date(now.getTime() - 2 * hour * 1000 + 1) }, 'FRESH'],
    [{ hasRates: true, lastSuccessAt: new Date(now.getTime() - 2 * hour * 1000) }, 'STALE'],
    [{ hasRates: true, lastSuccessAt: new Date(now.getTime() - 30 * 86400 * 1000) }, 'STALE'],
  ])('%o is %s', (state, status) => {
    expect(ratesStatus({ ...state, now, refreshIntervalSeconds: hour })).toBe(status);
  });
});
