import fc from 'fast-check';
import Decimal from 'decimal.js';
import { convertToUzs, currencyDecimals, formatForeignAmount } from '../../../core/ledger/currency';
import { applyStoredRates, prepareEntry, requestHash } from '../../../core/ledger/journal';
import { planRevaluation, revaluationRequestId, type ForeignBalance } from '../../../core/ledger/revaluation';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';
import { AppError } from '../../../core/shared/problems';

describe('convertToUzs', () => {
  test.each([
    ['100', '12850.12', '1285012.00'],
    ['0.01', '0.5', '0.01'], // 0.005 → 0.01: half-up
    ['0.05', '0.5', '0.03'], // 0.025 → 0.03 (half-even would give 0.02)
    ['1234', '67.8912', '83777.74'],
    ['1000', '7.1234567891', '7123.46'],
    ['0.001', '27001.5', '27.00'],
    ['9999999999999999.99', '1', '9999999999999999.99'],
  ])('%s at %s is %s', (amount, rate, uzs) => {
    expect(convertToUzs(amount, rate)).toBe(uzs);
  });

  test('a conversion beyond 16 digits before the point is null, never a rounded or float value', () => {
    expect(convertToUzs('9999999999999999.99', '2')).toBeNull();
  });

  test('it is the exact product rounded half-up, for any amount and rate (checked with integers)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 14n }), (amountThousandths, rateUnits) => {
        const amount = new Decimal(amountThousandths.toString()).div(1000).toFixed();
        const rate = new Decimal(rateUnits.toString()).div(10n ** 10n).toFixed();
        // In 10^-13 units: amount × 10^3 × rate × 10^10; half-up to 10^-2 means + 5 × 10^10, then ÷ 10^11.
        const exact = amountThousandths * rateUnits;
        const cents = (exact + 5n * 10n ** 10n) / 10n ** 11n;
        const uzs = convertToUzs(amount, rate);
        if (cents >= 10n ** 18n) expect(uzs).toBeNull();
        else expect(uzs).toBe(formatMinorUnits(cents));
      }),
    );
  });
});

describe('currency decimals', () => {
  test('ISO 4217 minor units, at most three', () => {
    expect([currencyDecimals('USD'), currencyDecimals('JPY'), currencyDecimals('KWD'), currencyDecimals('CLF')]).toEqual([2, 0, 3, 3]);
    expect([formatForeignAmount('100', 'USD'), formatForeignAmount('100', 'JPY'), formatForeignAmount('1.5', 'KWD')]).toEqual(['100.00', '100', '1.500']);
  });
});

describe('prepareEntry and applyStoredRates with foreign lines', () => {
  const entry = (lines: object[]) => ({ entryDate: '2025-03-04', description: 'x', lines } as Parameters<typeof prepareEntry>[0]);

  test('a UZS-only entry hashes as it did before lines had currencies', () => {
    const prepared = prepareEntry(entry([{ accountCode: '5110', debit: '1', credit: '0' }, { accountCode: '9010', debit: '0', credit: '1' }]));
    expect(prepared.lines[0]).toMatchObject({ currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null });
    // The content as it was hashed before lines had currencies: no currency keys.
    const before = {
      entryDate: '2025-03-04',
      description: 'x',
      reference: null,
      lines: [
        { lineNo: 1, accountCode: '5110', subaccountId: null, debit: '1.00', credit: '0.00', memo: null },
        { lineNo: 2, accountCode: '9010', subaccountId: null, debit: '0.00', credit: '1.00', memo: null },
      ],
    };
    expect(prepared.hash).toBe(requestHash(before));
  });

  test('a CBU line waits for the stored rate; then a mismatch is 400 with the expected amount and a missing rate is 409', () => {
    const prepared = prepareEntry(entry([{ accountCode: '5210', debit: '812345.00', credit: '0', currency: 'USD', currencyAmount: '100' }, { accountCode: '9010', debit: '0', credit: '812345.00' }]));
    expect(prepared.lines[0]).toMatchObject({ rate: null, rateSource: 'CBU', rateDate: null, currencyAmount: '100.00' });
    expect(applyStoredRates(prepared, new Map([['USD', { rate: '8123.45', rateDate: '2025-03-02' }]])).lines[0]).toMatchObject({ rate: '8123.45', rateDate: '2025-03-02' });
    const mismatch = (() => {
      try {
        applyStoredRates(prepared, new Map([['USD', { rate: '8123.46', rateDate: '2025-03-02' }]]));
      } catch (err) {
        return err as AppError;
      }
      throw new Error('no error');
    })();
    expect(mismatch).toMatchObject({ type: 'conversion-mismatch', extensions: { errors: [expect.objectContaining({ expectedAmount: '812346.00' })] } });
    expect(() => applyStoredRates(prepared, new Map())).toThrow(expect.objectContaining({ type: 'rate-unavailable' }));
  });
});

describe('planRevaluation', () => {
  const rates = new Map([
    ['USD', { rate: '8100', rateDate: '2025-01-31' }],
    ['EUR', { rate: '8800.5', rateDate: '2025-01-31' }],
  ]);

  const balance = fc.record({
    accountCode: fc.constantFrom('4010', '5210', '6010'),
    currency: fc.constantFrom('USD', 'EUR'),
    balanceCents: fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }),
    carryingCents: fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }),
  });
  const balances = fc.uniqueArray(balance, { selector: (b) => `${b.accountCode}/${b.currency}`, maxLength: 6 }).map((list) =>
    list.map((b): ForeignBalance => ({ accountCode: b.accountCode, subaccountId: null, currency: b.currency, balance: formatMinorUnits(b.balanceCents), carrying: formatMinorUnits(b.carryingCents) })),
  );

  test('after its entry every balance is at the rate (a zero foreign balance at zero UZS), the entry balances, and a second plan posts nothing', () => {
    fc.assert(
      fc.property(balances, (list) => {
        const plan = planRevaluation(list, rates);
        if (plan.kind === 'missing-rates') throw new Error('rates are there');
        const after = list.map((b) => {
          const moved = plan.kind === 'entry' ? plan.adjustments.filter((a) => a.accountCode === b.accountCode && a.currency === b.currency).reduce((s, a) => s + a.difference, 0n) : 0n;
          return { ...b, carrying: formatMinorUnits(numericToMinorUnits(b.carrying) + moved) };
        });
        for (const b of after) {
          const target = new Decimal(b.balance).isZero() ? '0.00' : (b.balance.startsWith('-') ? '-' : '') + convertToUzs(b.balance.replace('-', ''), rates.get(b.currency)!.rate);
          expect(formatMinorUnits(numericToMinorUnits(b.carrying))).toBe(formatMinorUnits(numericToMinorUnits(target)));
        }
        if (plan.kind === 'entry') {
          const debit = plan.lines.reduce((s, l) => s + numericToMinorUnits(l.debit), 0n);
          const credit = plan.lines.reduce((s, l) => s + numericToMinorUnits(l.credit), 0n);
          expect(debit).toBe(credit);
          expect(debit).toBe(plan.total);
          expect(plan.gain - plan.loss).toBe(plan.adjustments.reduce((s, a) => s + a.difference, 0n));
        }
        expect(planRevaluation(after, rates).kind).toBe('nothing-to-post');
      }),
    );
  });

  test('a currency with something to adjust and no rate stops it; a zero balance at zero UZS needs no rate', () => {
    expect(planRevaluation([{ accountCode: '5210', subaccountId: null, currency: 'GBP', balance: '1.00', carrying: '100.00' }], rates)).toEqual({ kind: 'missing-rates', currencies: ['GBP'] });
    expect(planRevaluation([{ accountCode: '5210', subaccountId: null, currency: 'GBP', balance: '0.00', carrying: '0.00' }], rates)).toEqual({ kind: 'nothing-to-post' });
  });

  test("the entry's requestId is one per company and date, shaped as a UUID", () => {
    const id = revaluationRequestId('6f1c2a8e-0000-4000-8000-000000000001', '2025-01-31');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(revaluationRequestId('6f1c2a8e-0000-4000-8000-000000000001', '2025-01-31')).toBe(id);
    expect(revaluationRequestId('6f1c2a8e-0000-4000-8000-000000000001', '2025-02-28')).not.toBe(id);
  });
});
