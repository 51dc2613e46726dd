import { StatementFormatError, type ParsedLine } from '../../core/bank-statements/statements';
import { compact, decimalAmount, fieldText, isoDay, MAX_LINE_LENGTH, optionalText, quote } from './fields';
import { textLinesOf, type ByteSource, type StatementHead, type StatementLine, type StatementReader } from './source';

// SWIFT MT940, read strictly: each message from :20: to its closing balance (:62F: or :62M:) is one statement;
// :61: is a transaction and the :86: after it its details. Messages may stand bare, separated by "-" lines,
// or inside the SWIFT envelope ({1:…}{2:…}{4: … -}). The text is UTF-8 (ASCII, the SWIFT character set, is a
// part of it).
//
// The text is read a line at a time: of a message only its head (account, balances) is kept, and of its
// transactions the one :61: whose :86: may still be coming, so memory does not grow with the file. A message's
// own faults are told at its end, in the order a whole message was checked in (account, opening and closing
// balances, then where its :61: stand), so that a file with one fault is refused for that fault.

const TAG = /^:([0-9]{2}[A-Z]?):(.*)$/;
const BALANCE = /^([CD])([0-9]{6})([A-Z]{3})([0-9]{1,15},[0-9]{0,15})$/;
const TRANSACTION = /^([0-9]{6})([0-9]{4})?(RC|RD|C|D)([A-Z])?([0-9]{1,15},[0-9]{0,15})([NSF][A-Z0-9]{3})(.*)$/;
const ACCOUNT_WITH_BANK = /^(?:([0-9]{5})\/)?([0-9]{20})$/;
const ACCOUNT_OTHER = /^[A-Za-z0-9/.-]{1,35}$/;
/** Tags read or knowingly passed over; any other tag is refused. */
const KNOWN_TAGS = new Set(['20', '21', '25', '28C', '28', '60F', '60M', '61', '86', '62F', '62M', '64', '65', '13D']);
/** The line width of SWIFT's narrative fields: a full line was cut, a shorter one ended a word. */
const NARRATIVE_WIDTH = 65;
/**
 * The most of an account or a balance kept: more than either pattern matches and than a message quotes of it,
 * so a longer field is refused alike whatever follows.
 */
const HEAD_FIELD_KEPT = 64;

/** 261130 → 2026-11-30 (two-digit years are 2000–2099). */
function shortDay(text: string, what: string, line: number): string {
  return isoDay(`20${text.slice(0, 2)}-${text.slice(2, 4)}-${text.slice(4, 6)}`, what, line);
}

/** The account or a balance of a message: the first such field, and the line of a second one (which is refused). */
interface HeadField {
  tag: string;
  line: number;
  /** Its lines joined, up to a little over HEAD_FIELD_KEPT characters. */
  text: string;
  again?: number;
}

function balance(field: HeadField): { date: string; currency: string; amount: string } {
  const m = BALANCE.exec(field.text);
  if (!m) throw new StatementFormatError('malformed', `:${field.tag}: ${quote(field.text)} is not a balance (C or D, YYMMDD, currency, amount)`, field.line);
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

const DETAIL_CODES = { '/NAME/': 'counterpartyName', '/ACCT/': 'counterpartyAccount', '/BANK/': 'counterpartyBankCode', '/TIN/': 'counterpartyTin' } as const;
type DetailKey = (typeof DETAIL_CODES)[keyof typeof DETAIL_CODES];
type Details = Partial<Record<DetailKey, string>> & { purpose: string };
const CODES = [...Object.keys(DETAIL_CODES), '/REMI/'];
/** A code cut at the end of the text read so far starts within this many characters of it. */
const CODE_TAIL = Math.max(...CODES.map((c) => c.length)) - 1;

/**
 * The details of :86:, read a line at a time. The narrative is one text: a line cut at the full width joins the
 * next as it is, a shorter one with a space. A narrative that starts with one of the codes /NAME/, /ACCT/,
 * /BANK/, /TIN/ or /REMI/ is structured: each code's value runs to the next code, and /REMI/ (the purpose) to
 * the end. Any other narrative is the purpose as it stands.
 *
 * Only the value being read is kept, and only while it could be short enough to keep: one that is longer than
 * MAX_LINE_LENGTH (far over what fieldText keeps) is refused as soon as it is, as fieldText refuses it.
 */
class DetailsReader {
  /** The narrative's start while its kind is unknown, then the value being read. */
  private text = '';
  /** The length of the narrative's previous line, -1 before its first. */
  private previous = -1;
  private kind: 'start' | 'value' | 'purpose' = 'start';
  /** The code whose value is being read. */
  private code = '';
  /** Where in `text` a next code may start: before it none does. */
  private searched = 0;
  private readonly out: Details = { purpose: '' };
  private error: StatementFormatError | undefined;

  constructor(readonly line: number) {}

  add(line: string): void {
    if (this.error) return;
    this.text += this.previous >= 0 && this.previous < NARRATIVE_WIDTH ? ` ${line}` : line;
    this.previous = line.length;
    try {
      this.take();
    } catch (e) {
      if (!(e instanceof StatementFormatError)) throw e;
      // Told when the transaction is: a fault of its :61: comes first, as it did.
      this.error = e;
      this.text = '';
    }
  }

  /** The details, or the fault found in them. */
  result(): Details {
    if (this.error) throw this.error;
    if (this.kind === 'start') this.kind = 'purpose';
    if (this.kind === 'value') this.out[DETAIL_CODES[this.code as keyof typeof DETAIL_CODES]] = optionalText(this.text, `${this.code} in :86:`, this.line);
    else this.out.purpose = fieldText(this.text, 'the purpose in :86:', this.line);
    return this.out;
  }

  private take(): void {
    if (this.kind === 'start') {
      const code = CODES.find((c) => this.text.startsWith(c));
      if (code) this.begin(code, 0);
      else if (CODES.some((c) => c.startsWith(this.text))) return; // may still become a code
      else this.kind = 'purpose';
    }
    while (this.kind === 'value') {
      const found = CODES.map((c) => [this.text.indexOf(c, this.searched), c] as const).filter(([i]) => i >= 0);
      if (found.length === 0) break;
      const [at, code] = found.reduce((a, b) => (b[0] < a[0] ? b : a));
      this.out[DETAIL_CODES[this.code as keyof typeof DETAIL_CODES]] = optionalText(this.text.slice(0, at), `${this.code} in :86:`, this.line);
      this.begin(code, at);
    }
    this.bound();
  }

  private begin(code: string, at: number): void {
    this.text = this.text.slice(at + code.length);
    this.kind = code === '/REMI/' ? 'purpose' : 'value';
    this.code = code;
    this.searched = 0;
  }

  /** Drops white space that cannot change the outcome, and refuses a value already too long. */
  private bound(): void {
    if (this.kind === 'start') return; // the start decides the kind as it stands, white space and all
    // A value is read trimmed, and no code starts with white space.
    const trimmed = this.text.trimStart();
    this.searched = Math.max(0, this.searched - (this.text.length - trimmed.length));
    this.text = trimmed;
    if (this.kind === 'purpose') {
      if (this.text.trimEnd().length > MAX_LINE_LENGTH) fieldText(this.text, 'the purpose in :86:', this.line);
    } else {
      // No code starts before here (a code cut at the end starts after it), so the value holds all that is before.
      this.searched = Math.max(0, this.text.length - CODE_TAIL);
      const certain = this.text.slice(0, this.searched);
      if (certain.trimEnd().length > MAX_LINE_LENGTH) optionalText(certain, `${this.code} in :86:`, this.line);
    }
    // White space that ends the text counts only if more text follows, and then more than MAX_LINE_LENGTH of it
    // makes the value too long however much there is.
    const body = this.text.trimEnd().length;
    if (this.text.length > body + MAX_LINE_LENGTH + 1) this.text = this.text.slice(0, body + MAX_LINE_LENGTH + 1);
    this.searched = Math.min(this.searched, this.text.length);
  }
}

function transaction(line: number, first: string, info: DetailsReader | undefined): ParsedLine {
  const m = TRANSACTION.exec(first);
  if (!m) throw new StatementFormatError('malformed', `:61: ${quote(first)} is not a statement line (YYMMDD[MMDD], C/D/RC/RD, amount, type, reference)`, line);
  const valueDate = shortDay(m[1]!, 'the value date of :61:', line);
  const mark = m[3]!;
  // A reversal of a credit takes money out, a reversal of a debit brings it back.
  const direction = mark === 'C' || mark === 'RD' ? 'IN' : 'OUT';
  const rest = m[7]!;
  const split = rest.indexOf('//');
  const ownerReference = (split < 0 ? rest : rest.slice(0, split)).trim();
  const bankReference = split < 0 ? undefined : rest.slice(split + 2).trim();
  if (ownerReference.length > 16 || (bankReference?.length ?? 0) > 16) {
    throw new StatementFormatError('malformed', ':61: has a reference longer than 16 characters', line);
  }
  return compact({
    date: m[2] ? entryDay(valueDate, m[2], line) : valueDate,
    direction,
    amount: decimalAmount(m[5]!, { separator: ',', bareSeparator: true }, 'the amount of :61:', line),
    reference: optionalText(bankReference, 'the bank reference of :61:', line),
    ...(info ? info.result() : { purpose: '' }),
    documentNumber: ownerReference === 'NONREF' ? undefined : optionalText(ownerReference, 'the reference of :61:', line),
  });
}

type Slot = 'account' | 'opening' | 'closing';
const SLOT_OF_TAG: Record<string, Slot> = { '25': 'account', '60F': 'opening', '60M': 'opening', '62F': 'closing', '62M': 'closing' };

/** One message as it is read: its head, and its last :61: while the field after it may still be its :86:. */
class Message {
  private readonly head: Partial<Record<Slot, HeadField>> = {};
  /** The field whose lines are being read, when they matter. */
  private current: Slot | 'entry' | 'details' | null = null;
  private entry: { line: number; text: string; info?: DetailsReader } | undefined;
  /** The first :61: outside the balances; no :61: after it is read, since the message is refused. */
  private misplaced: number | undefined;

  /** `line` is the line of its :20:. */
  constructor(readonly line: number) {}

  /** A field's first line; gives the pending transaction when this field shows it has no details to come. */
  field(tag: string, value: string, line: number): ParsedLine | undefined {
    if (tag === '86' && this.current === 'entry') {
      this.entry!.info = new DetailsReader(line);
      this.entry!.info.add(value);
      this.current = 'details';
      return undefined;
    }
    const done = this.flush();
    this.current = null;
    const slot = SLOT_OF_TAG[tag];
    if (slot) {
      const field = this.head[slot];
      if (!field) {
        this.head[slot] = { tag, line, text: '' };
        this.current = slot;
        this.more(value);
      } else {
        field.again ??= line;
      }
    } else if (tag === '61' && this.misplaced === undefined) {
      if (!this.head.opening || this.head.closing) this.misplaced = line;
      else {
        this.entry = { line, text: value };
        this.current = 'entry';
      }
    }
    return done;
  }

  /** A line that goes on the current field. */
  more(text: string): void {
    if (this.current === 'details') this.entry!.info!.add(text);
    else if (this.current !== null && this.current !== 'entry') {
      const field = this.head[this.current]!;
      // An account is read trimmed; a line never ends with white space, so only its start is trimmed here.
      if (field.text.length <= HEAD_FIELD_KEPT) field.text = field.text === '' && this.current === 'account' ? text.trimStart() : field.text + text;
    }
  }

  /** The pending transaction, read. */
  flush(): ParsedLine | undefined {
    const entry = this.entry;
    this.entry = undefined;
    if (this.current === 'entry' || this.current === 'details') this.current = null;
    return entry && transaction(entry.line, entry.text, entry.info);
  }

  /** The statement's head, once the message has ended: refused for the first fault found. */
  end(): StatementHead {
    const one = (slot: Slot, what: string): HeadField => {
      const found = this.head[slot];
      if (!found) throw new StatementFormatError(slot === 'closing' ? 'truncated' : 'malformed', `the message of line ${this.line} has no ${what}`);
      if (found.again !== undefined) throw new StatementFormatError('malformed', `the message has more than one ${what}`, found.again);
      return found;
    };
    const accountField = one('account', 'account (:25:)');
    const accountText = accountField.text;
    const uzbek = ACCOUNT_WITH_BANK.exec(accountText);
    if (!uzbek && !ACCOUNT_OTHER.test(accountText)) throw new StatementFormatError('malformed', `:25: ${quote(accountText)} is not an account`, accountField.line);
    const openingField = one('opening', 'opening balance (:60F: or :60M:)');
    const closingField = one('closing', 'closing balance (:62F: or :62M:)');
    const opening = balance(openingField);
    const closing = balance(closingField);
    if (closing.currency !== opening.currency) {
      throw new StatementFormatError('malformed', `the closing balance is in ${closing.currency}, the opening one in ${opening.currency}`, closingField.line);
    }
    if (this.misplaced !== undefined) throw new StatementFormatError('malformed', ':61: outside the opening and closing balances', this.misplaced);
    return compact({
      format: 'mt940' as const,
      accountNumber: uzbek ? uzbek[2]! : accountText,
      bankCode: uzbek?.[1],
      currency: opening.currency,
      periodFrom: opening.date,
      periodTo: closing.date,
      openingBalance: opening.amount,
      closingBalance: closing.amount,
    });
  }
}

/** The file's transactions as they are read, each in the statement of its message (0-based), and the heads at the end. */
export async function* readMt940(source: ByteSource, maxLines: number): StatementReader {
  const heads: StatementHead[] = [];
  let message: Message | null = null;
  let enveloped: boolean | null = null;
  let inBlock4 = false;
  let lastLine = 0;
  let entries = 0;
  // A message ended by "-" or "-}" is told on when the next message starts or the file ends: a stray
  // separator inside a message is then refused for the field left outside any message, as it was.
  let ended: Message | null = null;
  const close = () => {
    ended = message ?? ended;
    message = null;
  };
  // Checks the message that ended (or is being read, when the next :20: or the file's end ends it).
  async function* settle(): AsyncGenerator<StatementLine, void> {
    close();
    if (!ended) return;
    const done = ended;
    ended = null;
    // The head first: a file cut inside its last :61: is refused as cut, not for the part of the line it has.
    const head = done.end();
    const last = done.flush();
    if (last) yield { statement: heads.length, line: last };
    heads.push(head);
  }
  for await (const batch of textLinesOf(source, 'utf-8', 'the MT940 file')) {
    for (const { number, text: raw } of batch) {
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
        close();
        inBlock4 = false;
        continue;
      }
      if (!enveloped && (line === '-' || line === '')) {
        if (line === '-') close();
        continue;
      }
      const m = TAG.exec(line);
      if (m) {
        const tag = m[1]!;
        if (!KNOWN_TAGS.has(tag)) throw new StatementFormatError('malformed', `unknown field :${tag}:`, number);
        if (tag === '20') {
          yield* settle();
          message = new Message(number);
        }
        if (!message) throw new StatementFormatError('malformed', `:${tag}: before the message's :20:`, number);
        if (tag === '61' && ++entries > maxLines) throw new StatementFormatError('too-many-lines', `the file has more than ${maxLines} lines`);
        const done = message.field(tag, m[2]!, number);
        if (done) yield { statement: heads.length, line: done };
      } else if (message) {
        message.more(line);
      } else {
        throw new StatementFormatError('malformed', `${quote(line)} is not a field (":tag:value")`, number);
      }
    }
  }
  if (enveloped && inBlock4) throw new StatementFormatError('truncated', 'the file ends inside a SWIFT text block (no closing "-}")', lastLine);
  yield* settle();
  if (heads.length === 0) throw new StatementFormatError('truncated', 'the file has no MT940 message');
  return heads;
}
