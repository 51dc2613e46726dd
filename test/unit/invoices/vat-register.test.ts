import fc from 'fast-check';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../../core/invoices/invoices';
import {
  invoiceKindOf,
  monthRange,
  vatAccountOf,
  vatRegisterRows,
  vatRegisterTotals,
  type VatRateSum,
  type VatRegisterGroup,
} from '../../../core/invoices/vat-register';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';
import { AppError } from '../../../core/shared/problems';

const group = (extra: Partial<VatRegisterGroup>): VatRegisterGroup => ({
  invoiceId: '00000000-0000-4000-8000-000000000001',
  kind: 'ORIGINAL',
  date: '2026-03-10',
  number: '2026-000001',
  counterpartyId: '00000000-0000-4000-8000-0000000000c1',
  counterpartyName: 'Customer',
  counterpartyTin: '301234567',
  vatRegistrationCode: null,
  currency: 'UZS',
  rate: '12.00',
  net: '1000.00',
  vat: '120.00',
  ...extra,
});

const NO_TURNOVER = { debit: '0', credit: '0' };

describe('core/invoices/vat-register', () => {
  test('a side covers its kind of invoice and its VAT account', () => {
    expect([invoiceKindOf('SALES'), invoiceKindOf('PURCHASES')]).toEqual(['SALES', 'PURCHASE']);
    expect([vatAccountOf('SALES', DEFAULT_DOCUMENT_ACCOUNTS), vatAccountOf('PURCHASES', DEFAULT_DOCUMENT_ACCOUNTS)]).toEqual(['6410', '4410']);
  });

  test('a month is its first to its last day, leap years and December included; before 1900 is a 400 on /query/month', () => {
    expect(monthRange('2026-03')).toEqual({ from: '2026-03-01', to: '2026-03-31' });
    expect(monthRange('2024-02')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(monthRange('1900-02')).toEqual({ from: '1900-02-01', to: '1900-02-28' });
    expect(monthRange('2000-02')).toEqual({ from: '2000-02-01', to: '2000-02-29' });
    expect(monthRange('2026-04')).toEqual({ from: '2026-04-01', to: '2026-04-30' });
    expect(monthRange('9999-12')).toEqual({ from: '9999-12-01', to: '9999-12-31' });
    for (const month of ['1899-12', '0000-01', '0099-05']) {
      expect(() => monthRange(month)).toThrow(AppError);
      expect(() => monthRange(month)).toThrow(expect.objectContaining({ type: 'validation', extensions: { errors: [expect.objectContaining({ path: '/query/month' })] } }));
    }
  });

  test('rows keep their order, a cancellation is negated, gross is net + VAT, the rate is a number (null exempt)', () => {
    const rows = vatRegisterRows([
      group({ rate: '15.00', net: '200.00', vat: '30.00' }),
      group({ rate: null, net: '50.00', vat: '0.00' }),
      group({ kind: 'CANCELLATION', date: '2026-03-20', rate: '12.50', net: '100.00', vat: '12.50', counterpartyTin: null }),
    ]);
    expect(rows.map((r) => [r.kind, r.date, r.rate, r.net, r.vat, r.gross])).toEqual([
      ['ORIGINAL', '2026-03-10', 15, '200.00', '30.00', '230.00'],
      ['ORIGINAL', '2026-03-10', null, '50.00', '0.00', '50.00'],
      ['CANCELLATION', '2026-03-20', 12.5, '-100.00', '-12.50', '-112.50'],
    ]);
    expect(rows[2]).toMatchObject({ number: '2026-000001', counterpartyName: 'Customer', counterpartyTin: null, vatRegistrationCode: null, currency: 'UZS' });
  });

  test('amounts in any NUMERIC text come out with two decimals, negated exactly, zero unsigned', () => {
    const rows = vatRegisterRows([
      group({ net: '7', vat: '0.840' }),
      group({ kind: 'CANCELLATION', net: '0.50', vat: '0.00' }),
      group({ kind: 'CANCELLATION', net: '-0.5', vat: '1234567890123456.78' }),
      group({ net: '-0.00', vat: '00.10' }),
    ]);
    expect(rows.map((r) => [r.net, r.vat, r.gross])).toEqual([
      ['7.00', '0.84', '7.84'],
      ['-0.50', '0.00', '-0.50'],
      ['0.50', '-1234567890123456.78', '-1234567890123456.28'],
      ['0.00', '0.10', '0.10'],
    ]);
  });

  test('totals: per rate numerically with exempt last, originals less cancellations, and in all; ledgerVat on the side of the account', () => {
    const sums: VatRateSum[] = [
      { rate: '15.00', kind: 'ORIGINAL', net: '200.00', vat: '30.00' },
      { rate: '12.00', kind: 'ORIGINAL', net: '1000.00', vat: '120.00' },
      { rate: null, kind: 'ORIGINAL', net: '50.00', vat: '0.00' },
      { rate: '0.00', kind: 'ORIGINAL', net: '10.00', vat: '0.00' },
      { rate: '12.00', kind: 'CANCELLATION', net: '1000.00', vat: '120.00' },
      { rate: '12.50', kind: 'ORIGINAL', net: '100.00', vat: '12.50' },
    ];
    const sales = vatRegisterTotals('SALES', sums, { debit: '120.00', credit: '282.50' });
    expect(sales.totalsByRate).toEqual([
      { rate: 0, net: '10.00', vat: '0.00', gross: '10.00' },
      { rate: 12, net: '0.00', vat: '0.00', gross: '0.00' },
      { rate: 12.5, net: '100.00', vat: '12.50', gross: '112.50' },
      { rate: 15, net: '200.00', vat: '30.00', gross: '230.00' },
      { rate: null, net: '50.00', vat: '0.00', gross: '50.00' },
    ]);
    expect(sales.totals).toEqual({ net: '360.00', vat: '42.50', gross: '402.50' });
    expect(sales.ledgerVat).toBe('162.50');
    expect(vatRegisterTotals('PURCHASES', [], { debit: '120.00', credit: '282.50' })).toEqual({
      totalsByRate: [],
      totals: { net: '0.00', vat: '0.00', gross: '0.00' },
      ledgerVat: '-162.50',
    });
  });

  test("property: the totals of the groups' sums are the sums of their rows, per rate and in all; a document cancelled in the same month adds up to nothing", () => {
    const rate = fc.option(fc.constantFrom('0.00', '12.00', '15.00', '12.50'), { nil: null });
    const cents = fc.bigInt({ min: 0n, max: 10n ** 17n });
    const groupArb = fc.record({ kind: fc.constantFrom('ORIGINAL' as const, 'CANCELLATION' as const), rate, net: cents, vat: cents });
    /** The month's sums per rate and kind, as the database adds the groups up. */
    const sumsOf = (groups: VatRegisterGroup[]): VatRateSum[] => {
      const byKey = new Map<string, VatRateSum>();
      for (const g of groups) {
        const key = `${g.rate}/${g.kind}`;
        const s = byKey.get(key) ?? { rate: g.rate, kind: g.kind, net: '0', vat: '0' };
        byKey.set(key, { ...s, net: formatMinorUnits(numericToMinorUnits(s.net) + numericToMinorUnits(g.net)), vat: formatMinorUnits(numericToMinorUnits(s.vat) + numericToMinorUnits(g.vat)) });
      }
      return [...byKey.values()];
    };
    fc.assert(
      fc.property(fc.array(groupArb, { maxLength: 30 }), (generated) => {
        const groups = generated.map((g) => group({ kind: g.kind, rate: g.rate, net: formatMinorUnits(g.net), vat: formatMinorUnits(g.vat) }));
        const rows = vatRegisterRows(groups);
        const totals = vatRegisterTotals('SALES', sumsOf(groups), NO_TURNOVER);
        const sum = (values: string[]) => formatMinorUnits(values.reduce((s, v) => s + numericToMinorUnits(v), 0n));
        for (const field of ['net', 'vat', 'gross'] as const) {
          expect(totals.totals[field]).toBe(sum(rows.map((r) => r[field])));
          expect(totals.totals[field]).toBe(sum(totals.totalsByRate.map((t) => t[field])));
          for (const t of totals.totalsByRate) expect(t[field]).toBe(sum(rows.filter((r) => r.rate === t.rate).map((r) => r[field])));
        }
        const mirrored = [...groups, ...groups.map((g) => ({ ...g, kind: g.kind === 'ORIGINAL' ? ('CANCELLATION' as const) : ('ORIGINAL' as const) }))];
        expect(vatRegisterTotals('SALES', sumsOf(mirrored), NO_TURNOVER).totals).toEqual({ net: '0.00', vat: '0.00', gross: '0.00' });
      }),
    );
  });
});
