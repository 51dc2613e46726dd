// @ts-check
// Money as decimal strings with at most two decimals; sums in integer minor units (BigInt), never floats. An invoice
// line's amounts are worked the same way, in units of the currency's decimals (invoiceLineUnits).

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
  const minor = roundHalfUp(a.digits * r.digits, a.scale + r.scale, 2);
  return minor > MAX_MINOR ? null : minor;
}

/**
 * A non-negative scaled integer (`digits` × 10^-`scale`) rounded half-up to `places` decimals, in units of
 * 10^-`places`: roundHalfUp(1286290005n, 3, 2) → 128629001n.
 * @param {bigint} digits
 * @param {number} scale
 * @param {number} places
 * @returns {bigint}
 */
function roundHalfUp(digits, scale, places) {
  if (scale <= places) return digits * 10n ** BigInt(places - scale);
  const unit = 10n ** BigInt(scale - places);
  return digits / unit + ((digits % unit) * 2n >= unit ? 1n : 0n);
}

/** An invoice line's quantity as the API takes it: above zero (checked apart), at most three decimals. */
export const QUANTITY = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,3})?$/;
/** An invoice line's unit price in the invoice's currency: at most four decimals. */
export const UNIT_PRICE = /^(0|[1-9][0-9]{0,16})(\.[0-9]{1,4})?$/;
/** A VAT rate typed as a percentage: 0 to 100, at most two decimals ("12", "12.5"). */
export const VAT_RATE = /^(100(\.0{1,2})?|[1-9]?[0-9](\.[0-9]{1,2})?)$/;

/**
 * `units` of 10^-`places` as a decimal with `places` decimals: formatUnits(125050n, 2) → "1250.50",
 * formatUnits(1255n, 3) → "1.255", formatUnits(1250n, 0) → "1250"; a negative sum keeps its sign.
 * @param {bigint} units
 * @param {number} places
 * @returns {string}
 */
export function formatUnits(units, places) {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const unit = 10n ** BigInt(places);
  const fraction = places > 0 ? `.${String(abs % unit).padStart(places, '0')}` : '';
  return `${negative ? '-' : ''}${abs / unit}${fraction}`;
}

/** A payment's or an allocation's amount as the API takes it; it then holds it to the currency's decimals. */
export const PAYMENT_AMOUNT = /^(0|[1-9][0-9]{0,16})(\.[0-9]{1,3})?$/;

/**
 * A non-negative decimal with at most `places` decimals in units of 10^-`places`, the inverse of formatUnits:
 * toUnits("1250.5", 2) → 125050n, toUnits("7", 0) → 7n, toUnits("1.25", 3) → 1250n. The caller has checked it.
 * @param {string} text
 * @param {number} places
 * @returns {bigint}
 */
export function toUnits(text, places) {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole) * 10n ** BigInt(places) + BigInt((fraction + '0'.repeat(places)).slice(0, places) || '0');
}

/**
 * An invoice line's amounts as the API computes them, exactly, on the decimal strings (never floats): net =
 * quantity × unit price and VAT = net × rate / 100, each rounded half-up to `places` (the currency's
 * decimals), gross = net + VAT; in units of 10^-`places`. A `vatRate` of null is exempt (no VAT). The caller
 * has checked QUANTITY, UNIT_PRICE and VAT_RATE.
 * @param {string} quantity
 * @param {string} unitPrice
 * @param {string | null} vatRate a percentage, "12" for 12 %
 * @param {number} [places]
 * @returns {{ net: bigint, vat: bigint, gross: bigint }}
 */
export function invoiceLineUnits(quantity, unitPrice, vatRate, places = 2) {
  const q = scaled(quantity);
  const p = scaled(unitPrice);
  const net = roundHalfUp(q.digits * p.digits, q.scale + p.scale, places);
  let vat = 0n;
  if (vatRate !== null) {
    const r = scaled(vatRate);
    // net × rate / 100: the rate's scale two more.
    vat = roundHalfUp(net * r.digits, places + r.scale + 2, places);
  }
  return { net, vat, gross: net + vat };
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
 * The one digit group separator the console shows amounts and rates with: U+202F NARROW NO-BREAK SPACE, the SI
 * thin space. It never breaks a number across lines, cannot be taken for the decimal point (always ".") or for
 * a typed space, and `ungroupText` takes it out again wherever the console's text is copied.
 */
export const GROUP_SEPARATOR = '\u202F';

/**
 * A decimal string with its whole part in groups of three, worked on the text (never through a float, which
 * would lose digits past 2^53): "1250000.5" → "1 250 000.5", "-1250.50" → "-1 250.50" (U+202F between groups).
 * Anything that is not a plain decimal ("", "n/a", "1e3") is answered unchanged.
 * @param {string} text
 * @returns {string}
 */
export function groupDigits(text) {
  const parts = /^(-?)([0-9]+)(\.[0-9]+)?$/.exec(text);
  if (!parts) return text;
  const [, sign, whole, fraction = ''] = parts;
  const groups = [];
  for (let end = whole.length; end > 0; end -= 3) groups.unshift(whole.slice(Math.max(0, end - 3), end));
  return `${sign}${groups.join(GROUP_SEPARATOR)}${fraction}`;
}

/**
 * An amount of the API (a decimal string, or null where there is none) as the console shows it: grouped, and
 * empty for null. The API's text is kept digit for digit: "1250000.00" → "1 250 000.00".
 * @param {string | null | undefined} value
 * @returns {string}
 */
export function formatAmount(value) {
  return value === null || value === undefined ? '' : groupDigits(value);
}

/** Digits grouped in threes by a space, a no-break space or a narrow no-break space, with an optional fraction. */
const GROUPED_INPUT = /^(-?)([0-9]{1,3}(?:[ \u00A0\u202F][0-9]{3})+)(\.[0-9]*)?$/;

/**
 * A typed or pasted amount as the API takes it: "1 250 000.50" (grouped as the console shows amounts, by spaces,
 * no-break or narrow no-break spaces) → "1250000.50". Text grouped any other way ("1 25", "12 50.00") is
 * answered unchanged, for the form to refuse rather than guess.
 * @param {string} text
 * @returns {string}
 */
export function plainAmount(text) {
  const parts = GROUPED_INPUT.exec(text);
  return parts ? `${parts[1]}${parts[2].replace(/[ \u00A0\u202F]/g, '')}${parts[3] ?? ''}` : text;
}

/**
 * Copied text without the console's group separators between digits, so that an amount pasted elsewhere (a
 * spreadsheet, a form) is the API's decimal: "Debit 1 250.50" → "Debit 1250.50". Other text is kept.
 * @param {string} text
 * @returns {string}
 */
export function ungroupText(text) {
  return text.replace(/(?<=[0-9])\u202F(?=[0-9]{3})/g, '');
}
