// Money as decimal strings with at most two decimals; sums in integer minor units (BigInt), never floats.

export const AMOUNT = /^(0|[1-9][0-9]{0,15})(\.[0-9]{1,2})?$/;

export function toMinor(text) {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
}

export function formatMinor(minor) {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
