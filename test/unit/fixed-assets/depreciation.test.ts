import fc from 'fast-check';
import { accumulatedThrough, addMonths, chargesDue, depreciationSchedule, disposalFigures, lastDayOf, monthsBetween, type DepreciableAsset } from '../../../core/fixed-assets/depreciation';
import { formatMinorUnits, toMinorUnits } from '../../../core/ledger/money';

const asset = (cost: string, usefulLifeMonths: number, commissionedOn = '2026-01-15', salvageValue = '0.00'): DepreciableAsset => ({ cost, salvageValue, usefulLifeMonths, commissionedOn });
const charges = (a: DepreciableAsset) => depreciationSchedule(a).map((c) => c.charge);

describe('straight-line depreciation, exact', () => {
  test('12,000,000 over 60 months is 200,000.00 a month, from the month after commissioning, to a net book value of 0', () => {
    const schedule = depreciationSchedule(asset('12000000.00', 60, '2026-01-15'));
    expect(schedule).toHaveLength(60);
    expect(new Set(schedule.map((c) => c.charge))).toEqual(new Set(['200000.00']));
    expect(schedule[0]).toEqual({ month: '2026-02', charge: '200000.00', accumulated: '200000.00', netBookValue: '11800000.00' });
    expect(schedule.at(-1)).toEqual({ month: '2031-01', charge: '200000.00', accumulated: '12000000.00', netBookValue: '0.00' });
  });

  test('1,000.00 over 3 months is 333.33, 333.33 and 333.34: the last month takes the rounding', () => {
    expect(charges(asset('1000.00', 3))).toEqual(['333.33', '333.33', '333.34']);
    // Rounded up, the last month gives the difference back.
    expect(charges(asset('2000.00', 3))).toEqual(['666.67', '666.67', '666.66']);
  });

  test('the salvage value is never depreciated', () => {
    const schedule = depreciationSchedule(asset('1000.00', 3, '2026-01-15', '100.00'));
    expect(schedule.map((c) => c.charge)).toEqual(['300.00', '300.00', '300.00']);
    expect(schedule.at(-1)).toMatchObject({ accumulated: '900.00', netBookValue: '100.00' });
    expect(charges(asset('500.00', 12, '2026-01-15', '500.00'))).toEqual(Array(12).fill('0.00'));
    expect(() => depreciationSchedule(asset('100.00', 12, '2026-01-15', '100.01'))).toThrow(RangeError);
  });

  test('an asset commissioned on the last day of a month is charged from the next month; one on the first day too', () => {
    expect(depreciationSchedule(asset('1200.00', 12, '2026-01-31'))[0]!.month).toBe('2026-02');
    expect(depreciationSchedule(asset('1200.00', 12, '2026-02-01'))[0]!.month).toBe('2026-03');
    expect(depreciationSchedule(asset('1200.00', 12, '2026-12-31'))[0]!.month).toBe('2027-01');
  });

  test('a charge whose rounding would pass the depreciable amount stops at it: fully depreciated early, never below salvage', () => {
    expect(charges(asset('0.05', 10))).toEqual(['0.01', '0.01', '0.01', '0.01', '0.01', '0.00', '0.00', '0.00', '0.00', '0.00']);
  });

  test('a close covering several months charges each month not yet charged (a catch-up), and nothing twice', () => {
    const a = asset('1000.00', 3, '2026-01-10');
    expect(chargesDue(a, null, '2026-01')).toEqual([]);
    expect(chargesDue(a, null, '2026-03').map((c) => [c.month, c.charge])).toEqual([
      ['2026-02', '333.33'],
      ['2026-03', '333.33'],
    ]);
    expect(chargesDue(a, '2026-03', '2026-12').map((c) => [c.month, c.charge])).toEqual([['2026-04', '333.34']]);
    expect(chargesDue(a, '2026-04', '2027-06')).toEqual([]);
  });

  test('disposal: in the commissioning month nothing was charged; in the first month of depreciation that month is charged', () => {
    const a = asset('1000.00', 3, '2026-01-10');
    expect(disposalFigures(a, null, '2026-01-31')).toEqual({ charges: [], accumulated: '0.00', netBookValue: '1000.00' });
    const first = disposalFigures(a, null, '2026-02-05');
    expect(first).toEqual({ charges: [{ month: '2026-02', charge: '333.33', accumulated: '333.33', netBookValue: '666.67' }], accumulated: '333.33', netBookValue: '666.67' });
    expect(disposalFigures(a, '2026-02', '2026-03-01').charges.map((c) => c.month)).toEqual(['2026-03']);
    expect(disposalFigures(a, '2026-04', '2027-01-01')).toEqual({ charges: [], accumulated: '1000.00', netBookValue: '0.00' });
    expect(() => disposalFigures(a, null, '2026-01-09')).toThrow(RangeError);
  });

  test('months: adding, counting, last days', () => {
    expect(addMonths('2026-12', 1)).toBe('2027-01');
    expect(addMonths('2026-01', -1)).toBe('2025-12');
    expect(addMonths('2026-03', 60)).toBe('2031-03');
    expect(monthsBetween('2026-11', '2027-02')).toBe(3);
    expect(lastDayOf('2028-02')).toBe('2028-02-29');
    expect(lastDayOf('2026-02')).toBe('2026-02-28');
    expect(lastDayOf('2026-12')).toBe('2026-12-31');
  });
});

describe('straight-line depreciation, properties', () => {
  const amount = fc.bigInt({ min: 0n, max: 10n ** 15n }).map(formatMinorUnits);
  const assets = fc
    .record({
      cost: amount,
      salvageShare: fc.integer({ min: 0, max: 100 }),
      usefulLifeMonths: fc.integer({ min: 1, max: 600 }),
      day: fc.integer({ min: 0, max: 3650 }),
    })
    .map(({ cost, salvageShare, usefulLifeMonths, day }) => {
      const salvage = (toMinorUnits(cost) * BigInt(salvageShare)) / 100n;
      const commissionedOn = new Date(Date.UTC(2020, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
      return { cost, salvageValue: formatMinorUnits(salvage), usefulLifeMonths, commissionedOn };
    });

  test('the charges are never negative, never pass cost − salvage, and add up to it exactly over the life', () => {
    fc.assert(
      fc.property(assets, (a) => {
        const schedule = depreciationSchedule(a);
        const depreciable = toMinorUnits(a.cost) - toMinorUnits(a.salvageValue);
        const salvage = toMinorUnits(a.salvageValue);
        let sum = 0n;
        // Checked without an expect per month: lives run to 600 months.
        const wrong = schedule.find((c) => {
          const charge = toMinorUnits(c.charge);
          sum += charge;
          return charge < 0n || sum > depreciable || c.accumulated !== formatMinorUnits(sum) || toMinorUnits(c.netBookValue) < salvage;
        });
        expect(wrong).toBeUndefined();
        expect(sum).toBe(depreciable);
        expect(schedule).toHaveLength(a.usefulLifeMonths);
      }),
      { numRuns: 300 },
    );
  });

  test('closes at any months charge each month once: the charges due between them add up to the schedule, and accumulatedThrough agrees', () => {
    fc.assert(
      fc.property(assets, fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 8 }), (a, offsets) => {
        const start = a.commissionedOn.slice(0, 7);
        const closes = [...new Set(offsets)].sort((x, y) => x - y).map((n) => addMonths(start, n));
        let chargedThrough: string | null = null;
        let sum = 0n;
        for (const close of closes) {
          for (const c of chargesDue(a, chargedThrough, close)) sum += toMinorUnits(c.charge);
          chargedThrough = close;
          expect(formatMinorUnits(sum)).toBe(accumulatedThrough(a, close));
        }
      }),
      { numRuns: 300 },
    );
  });
});
