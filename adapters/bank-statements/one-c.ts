import iconv from 'iconv-lite';
import { StatementFormatError, type ParsedLine } from '../../core/bank-statements/statements';
import { CODE_PAGE_NAMES, type CodePage } from './code-pages';
import { compact, decimalAmount, dottedDay, fieldText, optionalText, quote } from './fields';
import { byteLines, textLinesOf, type ByteSource, type StatementHead, type StatementReader, type TextLine } from './source';

// The 1C client-bank exchange text ("1CClientBankExchange"): key=value lines, account sections with the
// balances, then one section per payment document. The documents are not tied to a section: each names the
// payer's and the payee's account, and a document is a line of every statement whose account it names, OUT
// where the account pays and IN where it receives. The text is read twice, a line at a time: once for its
// structure and the account sections (which may come anywhere in the file), then for the documents, each
// handed on as its section ends; only the account sections are kept.

export const ONE_C_SIGNATURE = '1CClientBankExchange';

const DECLARED: Record<string, CodePage> = { WINDOWS: 'windows-1251', DOS: 'cp866', 'UTF-8': 'utf-8', UTF8: 'utf-8' };
const ENCODING_KEY = 'Кодировка=';
const KEY_BYTES = (['windows-1251', 'cp866', 'utf-8'] as const).map((page) => ({ page, bytes: iconv.encode(ENCODING_KEY, page) }));

/**
 * The code page the file is written in, from its `Кодировка=` line, checked against the bytes: the key itself
 * is Cyrillic, so the bytes it is written in show the real code page, and a file that says one and is
 * written in another is refused rather than read as mojibake.
 */
async function codePageOf(source: ByteSource): Promise<CodePage> {
  // The header lines come before the first section; 200 lines are far more than any header has.
  for await (const { number: line, bytes } of byteLines(source)) {
    if (line > 200) break;
    for (const { page, bytes: key } of KEY_BYTES) {
      if (bytes.byteLength >= key.length && key.every((b, i) => bytes[i] === b)) {
        const value = Buffer.from(bytes.subarray(key.length)).toString('latin1').trim().toUpperCase();
        const declared = DECLARED[value];
        if (!declared) throw new StatementFormatError('encoding', `Кодировка=${quote(value)} is none of Windows, DOS or UTF-8`, line);
        if (declared !== page) {
          throw new StatementFormatError('encoding', `the file declares ${CODE_PAGE_NAMES[declared]} but is written in ${CODE_PAGE_NAMES[page]}`, line);
        }
        return page;
      }
    }
  }
  throw new StatementFormatError('encoding', 'the file does not say its code page (no Кодировка= line in its header)');
}

interface Section {
  kind: 'account' | 'document';
  line: number;
  fields: Map<string, string>;
  /** The line of each key, for a message about its value. */
  lines: Map<string, number>;
}

/** The sections of the text as each ends, each a map of its keys; a section or a file that does not end is refused. */
async function* sectionsOf(batches: AsyncIterable<TextLine[]>, maxDocuments: number): AsyncGenerator<Section> {
  let current: Section | null = null;
  let documents = 0;
  let state: 'start' | 'header' | 'end' = 'start';
  for await (const batch of batches) {
    for (const { number, text: raw } of batch) {
      const line = raw.trim();
      if (state === 'start') {
        if (line.replace(/^\uFEFF/, '') !== ONE_C_SIGNATURE) throw new StatementFormatError('unsupported-format', `the first line is not ${ONE_C_SIGNATURE}`, number);
        state = 'header';
        continue;
      }
      if (line === '') continue;
      if (state === 'end') throw new StatementFormatError('malformed', `text after КонецФайла (${quote(line)})`, number);
      if (current) {
        const closing = current.kind === 'account' ? 'КонецРасчСчет' : 'КонецДокумента';
        if (line === closing) {
          yield current;
          current = null;
        } else if (line.startsWith('Секция') || line.startsWith('Конец')) {
          throw new StatementFormatError('malformed', `${quote(line)} inside the section of line ${current.line}, which has not ended (${closing})`, number);
        } else {
          const [key, value] = keyValue(line, number);
          if (current.fields.has(key)) throw new StatementFormatError('malformed', `${key} appears twice in the section of line ${current.line}`, number);
          current.fields.set(key, value);
          current.lines.set(key, number);
        }
        continue;
      }
      if (line === 'СекцияРасчСчет') {
        current = { kind: 'account', line: number, fields: new Map(), lines: new Map() };
      } else if (line.startsWith('СекцияДокумент=')) {
        documents += 1;
        if (documents > maxDocuments) throw new StatementFormatError('too-many-lines', `the file has more than ${maxDocuments} documents`, number);
        current = { kind: 'document', line: number, fields: new Map(), lines: new Map() };
      } else if (line === 'КонецФайла') {
        state = 'end';
      } else if (line.startsWith('Конец')) {
        throw new StatementFormatError('malformed', `${quote(line)} ends no section`, number);
      } else {
        keyValue(line, number); // a header line: checked, not kept
      }
    }
  }
  if (current) throw new StatementFormatError('truncated', `the file ends inside the section of line ${current.line}`);
  if (state !== 'end') throw new StatementFormatError('truncated', 'the file ends before КонецФайла');
}

function keyValue(line: string, number: number): [string, string] {
  const at = line.indexOf('=');
  if (at <= 0) throw new StatementFormatError('malformed', `${quote(line)} is not a key=value line`, number);
  return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
}

const ACCOUNT = /^[0-9]{20}$/;

interface AccountSection {
  account: string;
  line: number;
  from?: string;
  to?: string;
  opening: string;
  closing: string;
}

function accountSection(section: Section): AccountSection {
  const { fields, line } = section;
  const account = fields.get('РасчСчет') ?? '';
  if (!ACCOUNT.test(account)) throw new StatementFormatError('malformed', `РасчСчет ${quote(account)} of the account section is not 20 digits`, section.lines.get('РасчСчет') ?? line);
  const at = (key: string) => section.lines.get(key) ?? line;
  const balance = (key: string) => {
    const value = fields.get(key);
    if (value === undefined || value === '') throw new StatementFormatError('malformed', `the account section has no ${key}`, line);
    return decimalAmount(value, { separator: '.', sign: 'any' }, key, at(key));
  };
  const day = (key: string) => {
    const value = fields.get(key);
    return value ? dottedDay(value, key, at(key)) : undefined;
  };
  return { account, line, from: day('ДатаНачала'), to: day('ДатаКонца'), opening: balance('НачальныйОстаток'), closing: balance('КонечныйОстаток') };
}

/** The sections of one account, in date order, as one statement: they must follow on from each other. */
function mergeSections(account: string, sections: AccountSection[]): StatementHead {
  const ordered = [...sections].sort((a, b) => (a.from ?? '').localeCompare(b.from ?? ''));
  for (let i = 1; i < ordered.length; i += 1) {
    if (ordered[i]!.opening !== ordered[i - 1]!.closing) {
      throw new StatementFormatError(
        'malformed',
        `the opening balance ${ordered[i]!.opening} of account ${account} does not follow on from the closing balance ${ordered[i - 1]!.closing} of its section of line ${ordered[i - 1]!.line}`,
        ordered[i]!.line,
      );
    }
  }
  const first = ordered[0]!;
  const last = ordered[ordered.length - 1]!;
  return compact({ format: '1c' as const, accountNumber: account, periodFrom: first.from, periodTo: last.to, openingBalance: first.opening, closingBalance: last.closing });
}

function documentLine(section: Section, direction: 'IN' | 'OUT'): ParsedLine {
  const { fields, line } = section;
  const get = (key: string) => fields.get(key) || undefined;
  const at = (key: string) => section.lines.get(key) ?? line;
  const text = (key: string) => optionalText(get(key), key, at(key));
  const amountText = get('Сумма');
  if (amountText === undefined) throw new StatementFormatError('malformed', 'the document has no Сумма', line);
  const dateKey = [direction === 'OUT' ? 'ДатаСписано' : 'ДатаПоступило', 'Дата'].find((key) => get(key) !== undefined);
  if (dateKey === undefined) throw new StatementFormatError('malformed', 'the document has no Дата', line);
  // The other side: the payer of money received, the payee of money paid.
  const side = direction === 'IN' ? 'Плательщик' : 'Получатель';
  const purposeKeys = get('НазначениеПлатежа') !== undefined ? ['НазначениеПлатежа'] : [1, 2, 3, 4, 5, 6].map((n) => `НазначениеПлатежа${n}`);
  const purpose = purposeKeys.map((key) => get(key) ?? '').filter((part) => part !== '').join(' ');
  return compact({
    date: dottedDay(get(dateKey)!, dateKey, at(dateKey)),
    direction,
    amount: decimalAmount(amountText, { separator: '.' }, 'Сумма', at('Сумма')),
    counterpartyName: text(get(`${side}1`) !== undefined ? `${side}1` : side),
    counterpartyTin: text(`${side}ИНН`),
    counterpartyAccount: text(`${side}Счет`),
    counterpartyBankCode: text(get(`${side}МФО`) !== undefined ? `${side}МФО` : `${side}БИК`),
    purpose: fieldText(purpose, 'НазначениеПлатежа', at(purposeKeys[0]!)),
    documentNumber: text('Номер'),
  });
}

/** One statement per account of the file's account sections, each with the documents that name it. */
export async function* readOneC(source: ByteSource, maxLines: number): StatementReader {
  const page = await codePageOf(source);
  const text = () => textLinesOf(source, page, 'the file');
  const accounts: Section[] = [];
  for await (const section of sectionsOf(text(), maxLines)) if (section.kind === 'account') accounts.push(section);
  const byAccount = new Map<string, AccountSection[]>();
  for (const section of accounts.map(accountSection)) byAccount.set(section.account, [...(byAccount.get(section.account) ?? []), section]);
  if (byAccount.size === 0) throw new StatementFormatError('malformed', 'the file has no СекцияРасчСчет, so no balances to check its documents against');
  const heads = [...byAccount].map(([account, list]) => mergeSections(account, list));
  const statementOf = new Map(heads.map((head, i) => [head.accountNumber, i]));
  let count = 0;
  for await (const section of sectionsOf(text(), maxLines)) {
    if (section.kind !== 'document') continue;
    const payer = section.fields.get('ПлательщикСчет') ?? '';
    const payee = section.fields.get('ПолучательСчет') ?? '';
    if (payer === payee && statementOf.has(payer)) throw new StatementFormatError('malformed', `account ${payer} is both the payer and the payee`, section.line);
    const paying = statementOf.get(payer);
    const receiving = statementOf.get(payee);
    if (paying === undefined && receiving === undefined) {
      throw new StatementFormatError('malformed', `the document names neither account of the file's sections (payer ${quote(payer)}, payee ${quote(payee)})`, section.line);
    }
    for (const [statement, direction] of [[paying, 'OUT'], [receiving, 'IN']] as const) {
      if (statement === undefined) continue;
      count += 1;
      if (count > maxLines) throw new StatementFormatError('too-many-lines', `the file has more than ${maxLines} lines`, section.line);
      yield { statement, line: documentLine(section, direction) };
    }
  }
  return heads;
}
