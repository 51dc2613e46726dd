// Exact decimal checks on numbers as the client wrote them. JSON.parse turns 12.345 and 12.3400000000000001
// into binary floats, so "at most two decimal places" is decided on the literal text, never on the float.

const TOKEN = /\s*("(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}[\]:,])/y;
const NUMBER = /^-?(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The literal text of each number-valued member of a flat top-level JSON object (nested values are skipped
 * over, not read). A repeated member keeps its last literal, as JSON.parse keeps its last value.
 */
export function topLevelNumberLiterals(json: string): Map<string, string> {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(json); m; m = TOKEN.exec(json)) tokens.push(m[1]);
  const found = new Map<string, string>();
  if (tokens[0] !== '{') return found;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === '{' || t === '[') depth++;
    else if (t === '}' || t === ']') depth--;
    else if (depth === 1 && t.startsWith('"') && tokens[i + 1] === ':') {
      const value = tokens[i + 2] ?? '';
      if (NUMBER.test(value)) found.set(JSON.parse(t) as string, value);
    }
  }
  return found;
}

export interface ExactDecimal {
  /** Canonical plain decimal text, e.g. "12.5" for 1.25e1 or 12.50. */
  text: string;
  /** Digits after the decimal point once trailing zeros are dropped. */
  scale: number;
}

/** Reads a JSON number literal exactly (no float on the way). Null when the text is not a JSON number. */
export function parseDecimalLiteral(literal: string): ExactDecimal | null {
  const m = NUMBER.exec(literal);
  // A bound on the exponent keeps "1e-99999999" from spelling out a hundred million zeros.
  if (!m || Math.abs(Number(m[3] ?? 0)) > 1000) return null;
  const negative = literal.startsWith('-');
  let digits = m[1] + (m[2] ?? '');
  let scale = (m[2] ?? '').length - Number(m[3] ?? 0);
  while (scale > 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale--;
  }
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  digits = digits.replace(/^0+(?=\d)/, '').padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  const isZero = /^0*$/.test(digits);
  const text = `${negative && !isZero ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
  return { text, scale: isZero ? 0 : scale };
}
