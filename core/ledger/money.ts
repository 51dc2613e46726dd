// Money on the ledger path: decimal strings on the wire, NUMERIC(20,2) in PostgreSQL, and in between
// integer minor units as BigInt. Never a float.

export const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,15})(\.[0-9]{1,2})?$/;

/** "1250.5" → 125050n. The caller has checked AMOUNT_PATTERN (the OpenAPI document does). */
export function toMinorUnits(amount: string): bigint {
  if (!AMOUNT_PATTERN.test(amount)) throw new RangeError(`not an amount: ${amount}`);
  const [units, fraction = ''] = amount.split('.');
  return BigInt(units!) * 100n + BigInt(fraction.padEnd(2, '0'));
}

/** 125050n → "1250.50"; negative values keep their sign. */
export function formatMinorUnits(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const text = `${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
  return negative ? `-${text}` : text;
}

/** A NUMERIC as PostgreSQL returns it ("1250.5", "-3.00", "7") to minor units. */
export function numericToMinorUnits(value: string): bigint {
  const negative = value.startsWith('-');
  const [units, fraction = ''] = (negative ? value.slice(1) : value).split('.');
  if (fraction.length > 2 && /[1-9]/.test(fraction.slice(2))) throw new RangeError(`more than two decimals: ${value}`);
  const minor = BigInt(units!) * 100n + BigInt(fraction.slice(0, 2).padEnd(2, '0'));
  return negative ? -minor : minor;
}

/**
 * A NUMERIC as PostgreSQL returns it ("1250.5", "-3.000", "7") in units of `places` decimals (2: cents, 0: whole
 * units), rounded half-up (away from zero) past them, as decimal.js's toFixed rounds. For sums of many amounts
 * of one currency: BigInt arithmetic, no decimal object per amount.
 */
export function numericToUnits(value: string, places: number): bigint {
  const negative = value.startsWith('-');
  const [whole, fraction = ''] = (negative ? value.slice(1) : value).split('.');
  let units = BigInt(whole! + fraction.slice(0, places).padEnd(places, '0'));
  if (fraction.length > places && fraction[places]! >= '5') units += 1n;
  return negative ? -units : units;
}

/** Units of `places` decimals as a decimal string with exactly that many: (125050n, 2) → "1250.50", (-7n, 0) → "-7". */
export function formatUnits(value: bigint, places: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return negative ? `-${text}` : text;
}
