import { parseDecimalLiteral, topLevelNumberLiterals } from '../../../core/shared/decimal-literals';
import { isCalendarDate, isInstant } from '../../../core/shared/calendar';

describe('parseDecimalLiteral: exact decimals from JSON number text', () => {
  test.each([
    ['12.345', '12.345', 3],
    ['12.3400000000000001', '12.3400000000000001', 16],
    ['12.30', '12.3', 1],
    ['1.25e1', '12.5', 1],
    ['1200e-3', '1.2', 1],
    ['0.07', '0.07', 2],
    ['-0', '0', 0],
    ['100.00', '100', 0],
    ['5e2', '500', 0],
  ])('%s is %s with %i decimal places', (literal, text, scale) => {
    expect(parseDecimalLiteral(literal)).toEqual({ text, scale });
  });

  test('text that is not a JSON number, or an absurd exponent, is null', () => {
    for (const literal of ['"12"', '12.', '.5', '+1', '0x10', '1e-99999999', 'NaN']) expect(parseDecimalLiteral(literal)).toBeNull();
  });
});

describe('topLevelNumberLiterals', () => {
  test('reads top-level members as written, decoding escaped names, skipping nested ones, keeping the last repeat', () => {
    const found = topLevelNumberLiterals('{"a":{"vatRate":1},"vat\\u0052ate": 12.3400000000000001, "b":[1,2], "s":"x\\"y", "vatRate" : 1.50}');
    expect(found.get('vatRate')).toBe('1.50');
    expect(found.has('a')).toBe(false);
  });
});

describe('isCalendarDate and isInstant', () => {
  test('days that exist, and only those', () => {
    expect(['2024-02-29', '2025-12-31', '2025-03-09'].every(isCalendarDate)).toBe(true);
    expect(['2025-02-29', '2025-02-30', '2025-13-01', '2025-00-10', '2025-3-9', '0000-01-01'].some(isCalendarDate)).toBe(false);
    // The books' calendar: 1900-01-01 to 9999-12-31.
    expect(['1900-01-01', '9999-12-31', '2000-02-29'].every(isCalendarDate)).toBe(true);
    expect(['0001-01-01', '1899-12-31', '0100-02-29'].some(isCalendarDate)).toBe(false);
    expect(isInstant('0001-01-01T00:00:00Z')).toBe(false);
  });

  test('RFC 3339 instants with real days, hours, minutes, seconds and offsets', () => {
    expect(['2025-03-09T19:00:00Z', '2025-03-09T19:00:00.123+05:00', '2025-03-09t19:00:00-0330'].every(isInstant)).toBe(true);
    expect(['2025-02-30T00:00:00Z', '2025-03-09T24:00:00Z', '2025-03-09T19:60:00Z', '2025-03-09T19:00:00+16:00', '2025-03-09'].some(isInstant)).toBe(false);
  });
});
