import { StatementFormatError, type ParsedLine, type ParsedStatement } from '../../core/bank-statements/statements';
import { compact, decimalAmount, fieldText, isoDay, optionalText, quote, refuseControlCharacters, strictUtf8, textLines } from './fields';

// SWIFT MT940, read strictly: each message from :20: to its closing balance (:62F: or :62M:) is one statement;
// :61: is a transaction and the :86: after it its details. Messages may stand bare, separated by "-" lines,
// or inside the SWIFT envelope ({1:…}{2:…}{4: … -}). The text is UTF-8 (ASCII, the SWIFT character set, is a
// part of it).

const TAG = /^:([0-9]{2}[A-Z]?):(.*)$/;
const BALANCE = /^([CD])([0-9]{6})([A-Z]{3})([0-9]{1,15},[0-9]{0,15})$/;
const TRANSACTION = /^([0-9]{6})([0-9]{4})?(RC|RD|C|D)([A-Z])?([0-9]{1,15},[0-9]{0,15})([NSF][A-Z0-9]{3})(.*)$/;
const ACCOUNT_WITH_BANK = /^(?:([0-9]{5})\/)?([0-9]{20})$/;
const ACCOUNT_OTHER = /^[A-Za-z0-9/.-]{1,35}$/;
/** Tags read or knowingly passed over; any other tag is refused. */
const KNOWN_TAGS = new Set(['20', '21', '25', '28C', '28', '60F', '60M', '61', '86', '62F', '62M', '64', '65', '13D']);
/** The line width of SWIFT's narrative fields: a full line was cut, a shorter one ended a word. */
const NARRATIVE_WIDTH = 65;

interface Field {
  tag: string;
  line: number;
  lines: string[];
}

/** The fields of the text, message by message. */
function messagesOf(text: string): Field[][] {
  const messages: Field[][] = [];
  let message: Field[] | null = null;
  let field: Field | null = null;
  let enveloped: boolean | null = null;
  let inBlock4 = false;
  let lastLine = 0;
  const endMessage = () => {
    if (message && message.length > 0) messages.push(message);
    message = null;
    field = null;
  };
  for (const { number, text: raw } of textLines(text)) {
    lastLine = number;
    const line = raw.trimEnd();
    if (enveloped === null) {
      if (line === '') continue;
      enveloped = line.startsWith('{');
    }
    if (enveloped && !inBlock4) {
      if (line === '') continue;
      const at = line.indexOf('{4:');
      if (!line.startsWith('{1:') || at < 0) throw new StatementFormatError('malformed', 'a SWIFT message must start with {1:…} and open its text block {4:', number);
      if (line.slice(at + 3).trim() !== '') throw new StatementFormatError('malformed', 'the text block {4: must end its line', number);
      inBlock4 = true;
      continue;
    }
    if (enveloped && line.startsWith('-}')) {
      endMessage();
      inBlock4 = false;
      continue;
    }
    if (!enveloped && (line === '-' || line === '')) {
      if (line === '-') endMessage();
      continue;
    }
    const m = TAG.exec(line);
    if (m) {
      const tag = m[1]!;
      if (!KNOWN_TAGS.has(tag)) throw new StatementFormatError('malformed', `unknown field :${tag}:`, number);
      if (tag === '20') endMessage();
      if (!message) {
        if (tag !== '20') throw new StatementFormatError('malformed', `:${tag}: before the message's :20:`, number);
        message = [];
      }
      field = { tag, line: number, lines: [m[2]!] };
      (message as Field[]).push(field);
    } else if (field) {
      (field as Field).lines.push(line);
    } else {
      throw new StatementFormatError('malformed', `${quote(line)} is not a field (":tag:value")`, number);
    }
  }
  if (enveloped && inBlock4) throw new StatementFormatError('truncated', 'the file ends inside a SWIFT text block (no closing "-}")', lastLine);
  endMessage();
  return messages;
}

/** 261130 → 2026-11-30 (two-digit years are 2000–2099). */
function shortDay(text: string, what: string, line: number): string {
  return isoDay(`20${text.slice(0, 2)}-${text.slice(2, 4)}-${text.slice(4, 6)}`, what, line);
}

function balance(field: Field): { date: string; currency: string; amount: string } {
  const m = BALANCE.exec(field.lines.join(''));
  if (!m) throw new StatementFormatError('malformed', `:${field.tag}: ${quote(field.lines.join(''))} is not a balance (C or D, YYMMDD, currency, amount)`, field.line);
  const amount = decimalAmount(m[4]!, { separator: ',', sign: 'non-negative', bareSeparator: true }, `the balance of :${field.tag}:`, field.line);
  return { date: shortDay(m[2]!, `the date of :${field.tag}:`, field.line), currency: m[3]!, amount: m[1] === 'D' && amount !== '0.00' ? `-${amount}` : amount };
}

/** The entry date MMDD in the year that puts it nearest the value date (an entry in January of a December value date is next year's). */
function entryDay(valueDate: string, monthDay: string, line: number): string {
  const year = Number(valueDate.slice(0, 4));
  const [valueMonth, entryMonth] = [Number(valueDate.slice(5, 7)), Number(monthDay.slice(0, 2))];
  const shift = valueMonth === 12 && entryMonth === 1 ? 1 : valueMonth === 1 && entryMonth === 12 ? -1 : 0;
  return isoDay(`${year + shift}-${monthDay.slice(0, 2)}-${monthDay.slice(2, 4)}`, 'the entry date of :61:', line);
}

/** The narrative of :86: as one text: a line cut at the full width joins the next as it is, a shorter one with a space. */
function narrative(field: Field): string {
  let text = '';
  field.lines.forEach((line, i) => {
    if (i > 0 && field.lines[i - 1]!.length < NARRATIVE_WIDTH) text += ' ';
    text += line;
  });
  return text;
}

const DETAIL_CODES = { '/NAME/': 'counterpartyName', '/ACCT/': 'counterpartyAccount', '/BANK/': 'counterpartyBankCode', '/TIN/': 'counterpartyTin' } as const;
type DetailKey = (typeof DETAIL_CODES)[keyof typeof DETAIL_CODES];

/**
 * The details of :86:. A narrative that starts with one of the codes /NAME/, /ACCT/, /BANK/, /TIN/ or /REMI/ is
 * structured: each code's value runs to the next code, and /REMI/ (the purpose) to the end. Any other
 * narrative is the purpose as it stands.
 */
function details(field: Field): Partial<Record<DetailKey, string>> & { purpose: string } {
  const text = narrative(field);
  const codes = [...Object.keys(DETAIL_CODES), '/REMI/'];
  if (!codes.some((code) => text.startsWith(code))) return { purpose: fieldText(text, 'the purpose in :86:', field.line) };
  const out: Partial<Record<DetailKey, string>> & { purpose: string } = { purpose: '' };
  let at = 0;
  while (at < text.length) {
    const code = codes.find((c) => text.startsWith(c, at));
    if (!code) throw new StatementFormatError('malformed', `:86: ${quote(text.slice(at))} is not a /CODE/ of the structured details`, field.line);
    const start = at + code.length;
    if (code === '/REMI/') {
      out.purpose = fieldText(text.slice(start), 'the purpose in :86:', field.line);
      break;
    }
    const next = Math.min(...codes.map((c) => text.indexOf(c, start)).filter((i) => i >= 0), text.length);
    out[DETAIL_CODES[code as keyof typeof DETAIL_CODES]] = optionalText(text.slice(start, next), `${code} in :86:`, field.line);
    at = next;
  }
  return out;
}

function transaction(field: Field, info: Field | undefined): ParsedLine {
  const first = field.lines[0]!;
  const m = TRANSACTION.exec(first);
  if (!m) throw new StatementFormatError('malformed', `:61: ${quote(first)} is not a statement line (YYMMDD[MMDD], C/D/RC/RD, amount, type, reference)`, field.line);
  const valueDate = shortDay(m[1]!, 'the value date of :61:', field.line);
  const mark = m[3]!;
  // A reversal of a credit takes money out, a reversal of a debit brings it back.
  const direction = mark === 'C' || mark === 'RD' ? 'IN' : 'OUT';
  const rest = m[7]!;
  const split = rest.indexOf('//');
  const ownerReference = (split < 0 ? rest : rest.slice(0, split)).trim();
  const bankReference = split < 0 ? undefined : rest.slice(split + 2).trim();
  if (ownerReference.length > 16 || (bankReference?.length ?? 0) > 16) {
    throw new StatementFormatError('malformed', ':61: has a reference longer than 16 characters', field.line);
  }
  return compact({
    date: m[2] ? entryDay(valueDate, m[2], field.line) : valueDate,
    direction,
    amount: decimalAmount(m[5]!, { separator: ',', bareSeparator: true }, 'the amount of :61:', field.line),
    reference: optionalText(bankReference, 'the bank reference of :61:', field.line),
    ...(info ? details(info) : { purpose: '' }),
    documentNumber: ownerReference === 'NONREF' ? undefined : optionalText(ownerReference, 'the reference of :61:', field.line),
  });
}

function statementOf(fields: Field[]): ParsedStatement {
  const first = fields[0]!;
  const one = (tags: string[], what: string): Field => {
    const found = fields.filter((f) => tags.includes(f.tag));
    if (found.length === 0) {
      const truncated = tags.some((t) => t.startsWith('62'));
      throw new StatementFormatError(truncated ? 'truncated' : 'malformed', `the message of line ${first.line} has no ${what}`);
    }
    if (found.length > 1) throw new StatementFormatError('malformed', `the message has more than one ${what}`, found[1]!.line);
    return found[0]!;
  };
  const accountField = one(['25'], 'account (:25:)');
  const accountText = accountField.lines.join('').trim();
  const uzbek = ACCOUNT_WITH_BANK.exec(accountText);
  if (!uzbek && !ACCOUNT_OTHER.test(accountText)) throw new StatementFormatError('malformed', `:25: ${quote(accountText)} is not an account`, accountField.line);
  const openingField = one(['60F', '60M'], 'opening balance (:60F: or :60M:)');
  const closingField = one(['62F', '62M'], 'closing balance (:62F: or :62M:)');
  const opening = balance(openingField);
  const closing = balance(closingField);
  if (closing.currency !== opening.currency) {
    throw new StatementFormatError('malformed', `the closing balance is in ${closing.currency}, the opening one in ${opening.currency}`, closingField.line);
  }
  const lines: ParsedLine[] = [];
  fields.forEach((field, i) => {
    if (field.tag !== '61') return;
    if (i < fields.indexOf(openingField) || i > fields.indexOf(closingField)) {
      throw new StatementFormatError('malformed', ':61: outside the opening and closing balances', field.line);
    }
    const next = fields[i + 1];
    lines.push(transaction(field, next?.tag === '86' ? next : undefined));
  });
  return compact({
    format: 'mt940' as const,
    accountNumber: uzbek ? uzbek[2]! : accountText,
    bankCode: uzbek?.[1],
    currency: opening.currency,
    periodFrom: opening.date,
    periodTo: closing.date,
    openingBalance: opening.amount,
    closingBalance: closing.amount,
    lines,
  });
}

export function parseMt940(bytes: Uint8Array, maxLines: number): ParsedStatement[] {
  const text = strictUtf8(bytes, 'the MT940 file');
  refuseControlCharacters(text, 'the MT940 file');
  const messages = messagesOf(text);
  if (messages.length === 0) throw new StatementFormatError('truncated', 'the file has no MT940 message');
  const count = messages.reduce((n, fields) => n + fields.filter((f) => f.tag === '61').length, 0);
  if (count > maxLines) throw new StatementFormatError('too-many-lines', `the file has ${count} lines, more than ${maxLines}`);
  return messages.map(statementOf);
}
