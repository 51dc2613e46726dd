// @ts-check
// Money as decimal strings with at most two decimals; sums in integer minor units (BigInt), never floats.

export const AMOUNT = /^(0|[1-9][0-9]{0,15})(\.[0-9]{1,2})?$/;

/**
 * "1250.5" → 125050n; the caller has checked AMOUNT.
 * @param {string} text
 * @returns {bigint}
 */
export function toMinor(text) {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
}

/**
 * 125050n → "1250.50"; a negative sum keeps its sign.
 * @param {bigint} minor
 * @returns {string}
 */
export function formatMinor(minor) {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/**
 * A non-negative decimal string as a scaled integer: "12850.05" → { digits: 1285005n, scale: 2 }.
 * @param {string} text
 */
function scaled(text) {
  const [whole, fraction = ''] = text.split('.');
  return { digits: BigInt(whole + fraction), scale: fraction.length };
}

/** The largest UZS amount a line holds (16 digits before the point), in minor units. */
const MAX_MINOR = 10n ** 18n - 1n;

/**
 * The UZS amount of `amount` at `rate` (both decimal strings) in minor units: the exact product rounded
 * half-up to two decimals, as the API checks it (a float would round 100.10 × 12850.05 = 1286290.005 down).
 * Null when it is more than a line can hold.
 * @param {string} amount
 * @param {string} rate
 * @returns {bigint | null}
 */
export function convertToMinor(amount, rate) {
  const a = scaled(amount);
  const r = scaled(rate);
  const product = a.digits * r.digits;
  const scale = a.scale + r.scale;
  let minor;
  if (scale <= 2) minor = product * 10n ** BigInt(2 - scale);
  else {
    const unit = 10n ** BigInt(scale - 2);
    minor = product / unit + ((product % unit) * 2n >= unit ? 1n : 0n);
  }
  return minor > MAX_MINOR ? null : minor;
}

/**
 * A rate the API sends as a JSON number, as the exact decimal it stores. Rates keep at most 15 significant
 * digits, so the number's shortest text is that decimal; only its exponent form ("1.5e-7") needs writing
 * out. Null for anything that is not a positive finite number.
 * @param {unknown} value
 * @returns {string | null}
 */
export function decimalOfNumber(value) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return null;
  const text = String(value);
  const exp = /^([0-9]+)(?:\.([0-9]+))?e([+-][0-9]+)$/.exec(text);
  if (!exp) return text;
  const digits = exp[1] + (exp[2] ?? '');
  const point = exp[1].length + Number(exp[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * A decimal string with its whole part in groups of three: "12850.12" → "12 850.12".
 * @param {string} text
 * @returns {string}
 */
export function groupDigits(text) {
  const [whole, fraction] = text.split('.');
  const grouped = whole.replace(/\B(?=([0-9]{3})+$)/g, ' ');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
