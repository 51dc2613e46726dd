import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import Papa from 'papaparse';
import type { ParsedLine, ParsedStatement } from '../../../core/bank-statements/statements';
import type { ColumnProfile } from '../../../adapters/bank-statements';

// The tests' own fixtures: one statement written the way each format's exporters write it. Each writer takes
// the same statement, so what the parsers read back can be compared field by field.

export interface Statement {
  accountNumber: string;
  bankCode: string;
  currency: string;
  periodFrom: string;
  periodTo: string;
  openingBalance: string;
  closingBalance: string;
  lines: ParsedLine[];
}

const OUR_NAME = 'ООО «Пример»';
const OUR_TIN = '301234567';

const dmy = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;
const yymmdd = (iso: string) => `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
const abs = (amount: string) => amount.replace(/^-/, '');

export interface OneCOptions {
  codePage?: 'windows-1251' | 'cp866' | 'utf-8';
  /** What the Кодировка line says; the code page's own name unless given. */
  declared?: string;
  bom?: boolean;
}

export function oneCText(s: Statement): string {
  const out = [
    '1CClientBankExchange',
    'ВерсияФормата=1.03',
    'Кодировка=@@',
    'Отправитель=Клиент-Банк',
    'Получатель=Бухгалтерия',
    `ДатаСоздания=${dmy(s.periodTo)}`,
    'ВремяСоздания=18:00:00',
    `ДатаНачала=${dmy(s.periodFrom)}`,
    `ДатаКонца=${dmy(s.periodTo)}`,
    `РасчСчет=${s.accountNumber}`,
    'Документ=Платежное поручение',
    'СекцияРасчСчет',
    `ДатаНачала=${dmy(s.periodFrom)}`,
    `ДатаКонца=${dmy(s.periodTo)}`,
    `РасчСчет=${s.accountNumber}`,
    `НачальныйОстаток=${s.openingBalance}`,
    `КонечныйОстаток=${s.closingBalance}`,
    'КонецРасчСчет',
  ];
  const put = (key: string, value: string | undefined) => value !== undefined && out.push(`${key}=${value}`);
  for (const line of s.lines) {
    const ours = { account: s.accountNumber, name: OUR_NAME, tin: OUR_TIN, bank: s.bankCode };
    const theirs = { account: line.counterpartyAccount, name: line.counterpartyName, tin: line.counterpartyTin, bank: line.counterpartyBankCode };
    const [payer, payee] = line.direction === 'OUT' ? [ours, theirs] : [theirs, ours];
    out.push('СекцияДокумент=Платежное поручение');
    put('Номер', line.documentNumber);
    put('Дата', dmy(line.date));
    put('Сумма', line.amount);
    put('ПлательщикСчет', payer.account);
    put('Плательщик', payer.name);
    put('ПлательщикИНН', payer.tin);
    put('ПлательщикБИК', payer.bank);
    put('ПолучательСчет', payee.account);
    put('Получатель', payee.name);
    put('ПолучательИНН', payee.tin);
    put('ПолучательБИК', payee.bank);
    put(line.direction === 'OUT' ? 'ДатаСписано' : 'ДатаПоступило', dmy(line.date));
    put('НазначениеПлатежа', line.purpose);
    out.push('КонецДокумента');
  }
  out.push('КонецФайла', '');
  return out.join('\r\n');
}

export function renderOneC(s: Statement, options: OneCOptions = {}): Buffer {
  const page = options.codePage ?? 'windows-1251';
  const declared = options.declared ?? { 'windows-1251': 'Windows', cp866: 'DOS', 'utf-8': 'UTF-8' }[page];
  const text = oneCText(s).replace('Кодировка=@@', `Кодировка=${declared}`);
  const bytes = iconv.encode(text, page);
  return options.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderCamt(s: Statement): Buffer {
  const balance = (code: string, amount: string, date: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${s.currency}">${abs(amount)}</Amt>` +
    `<CdtDbtInd>${amount.startsWith('-') ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  const party = (name: string | undefined, tin: string | undefined) =>
    (name !== undefined ? `<Nm>${xml(name)}</Nm>` : '') + (tin !== undefined ? `<Id><OrgId><Othr><Id>${tin}</Id><SchmeNm><Cd>TXID</Cd></SchmeNm></Othr></OrgId></Id>` : '');
  const account = (id: string | undefined) => (id === undefined ? '' : `<Id><Othr><Id>${id}</Id></Othr></Id>`);
  const agent = (code: string | undefined) => (code === undefined ? '' : `<FinInstnId><ClrSysMmbId><MmbId>${code}</MmbId></ClrSysMmbId></FinInstnId>`);
  const entries = s.lines.map((line) => {
    const theirs = { p: party(line.counterpartyName, line.counterpartyTin), a: account(line.counterpartyAccount), g: agent(line.counterpartyBankCode) };
    const ours = { p: party(OUR_NAME, OUR_TIN), a: account(s.accountNumber), g: agent(s.bankCode) };
    const [debtor, creditor] = line.direction === 'IN' ? [theirs, ours] : [ours, theirs];
    return (
      `<Ntry><Amt Ccy="${s.currency}">${line.amount}</Amt><CdtDbtInd>${line.direction === 'IN' ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts>` +
      `<BookgDt><Dt>${line.date}</Dt></BookgDt><ValDt><Dt>${line.date}</Dt></ValDt>` +
      (line.reference !== undefined ? `<AcctSvcrRef>${xml(line.reference)}</AcctSvcrRef>` : '') +
      '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd>' +
      `<NtryDtls><TxDtls><Refs><EndToEndId>${xml(line.documentNumber ?? 'NOTPROVIDED')}</EndToEndId></Refs>` +
      `<RltdPties><Dbtr>${debtor.p}</Dbtr><DbtrAcct>${debtor.a}</DbtrAcct><Cdtr>${creditor.p}</Cdtr><CdtrAcct>${creditor.a}</CdtrAcct></RltdPties>` +
      `<RltdAgts><DbtrAgt>${debtor.g}</DbtrAgt><CdtrAgt>${creditor.g}</CdtrAgt></RltdAgts>` +
      (line.purpose !== '' ? `<RmtInf><Ustrd>${xml(line.purpose)}</Ustrd></RmtInf>` : '') +
      '</TxDtls></NtryDtls></Ntry>'
    );
  });
  return Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
      '<BkToCstmrStmt><GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-12-01T09:00:00</CreDtTm></GrpHdr>\n' +
      `<Stmt><Id>STMT-1</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2026-12-01T09:00:00</CreDtTm>` +
      `<FrToDt><FrDtTm>${s.periodFrom}T00:00:00</FrDtTm><ToDtTm>${s.periodTo}T23:59:59</ToDtTm></FrToDt>\n` +
      `<Acct><Id><Othr><Id>${s.accountNumber}</Id></Othr></Id><Ccy>${s.currency}</Ccy><Ownr><Nm>${xml(OUR_NAME)}</Nm></Ownr>` +
      `<Svcr><FinInstnId><ClrSysMmbId><MmbId>${s.bankCode}</MmbId></ClrSysMmbId></FinInstnId></Svcr></Acct>\n` +
      balance('OPBD', s.openingBalance, s.periodFrom) +
      '\n' +
      balance('CLBD', s.closingBalance, s.periodTo) +
      '\n' +
      entries.join('\n') +
      '\n</Stmt></BkToCstmrStmt></Document>\n',
    'utf8',
  );
}

/** Cuts a narrative into SWIFT's 65-character lines. */
const lines65 = (text: string) => (text === '' ? [''] : (text.match(/[\s\S]{1,65}/g) ?? []));

export function mt940Text(s: Statement, reference = 'STMT-1'): string {
  const bal = (tag: string, amount: string, date: string) => `:${tag}:${amount.startsWith('-') ? 'D' : 'C'}${yymmdd(date)}${s.currency}${abs(amount).replace('.', ',')}`;
  const out = [`:20:${reference}`, `:25:${s.bankCode}/${s.accountNumber}`, ':28C:1/1', bal('60F', s.openingBalance, s.periodFrom)];
  for (const line of s.lines) {
    const owner = line.documentNumber ?? 'NONREF';
    const bank = line.reference !== undefined ? `//${line.reference}` : '';
    out.push(`:61:${yymmdd(line.date)}${line.date.slice(5, 7)}${line.date.slice(8, 10)}${line.direction === 'IN' ? 'C' : 'D'}${line.amount.replace('.', ',')}NTRF${owner}${bank}`);
    const details =
      (line.counterpartyName !== undefined ? `/NAME/${line.counterpartyName}` : '') +
      (line.counterpartyAccount !== undefined ? `/ACCT/${line.counterpartyAccount}` : '') +
      (line.counterpartyBankCode !== undefined ? `/BANK/${line.counterpartyBankCode}` : '') +
      (line.counterpartyTin !== undefined ? `/TIN/${line.counterpartyTin}` : '') +
      `/REMI/${line.purpose}`;
    const [first, ...rest] = lines65(details);
    out.push(`:86:${first}`, ...rest);
  }
  out.push(bal('62F', s.closingBalance, s.periodTo), '-');
  return out.join('\r\n') + '\r\n';
}

export function renderMt940(s: Statement): Buffer {
  return Buffer.from(mt940Text(s), 'utf8');
}

export const csvProfile: ColumnProfile = {
  delimiter: ';',
  headerRow: 4,
  dateFormat: 'DD.MM.YYYY',
  decimalSeparator: ',',
  columns: {
    date: 'Дата',
    documentNumber: '№ док.',
    reference: 'Референс',
    credit: 'Приход',
    debit: 'Расход',
    counterpartyName: 'Контрагент',
    counterpartyTin: 'ИНН',
    counterpartyAccount: 'Счёт контрагента',
    counterpartyBankCode: 'МФО',
    purpose: 'Назначение платежа',
  },
  statement: { accountNumber: { label: 'Выписка по счёту' }, openingBalance: { label: 'Входящий остаток' }, closingBalance: { label: 'Исходящий остаток' } },
};

const HEADER = ['Дата', '№ док.', 'Референс', 'Приход', 'Расход', 'Контрагент', 'ИНН', 'Счёт контрагента', 'МФО', 'Назначение платежа'];

/** A bank's grouping of digits: "-1234567.5" → "-1 234 567,50". */
export const grouped = (amount: string) => {
  const [units, fraction] = abs(amount).split('.');
  return `${amount.startsWith('-') ? '-' : ''}${units!.replace(/\B(?=(\d{3})+$)/g, ' ')},${fraction}`;
};

function tableRows<T>(s: Statement, amount: (a: string) => T, date: (d: string) => T | string): (string | T)[][] {
  return [
    ['Выписка по счёту', s.accountNumber],
    ['Входящий остаток', amount(s.openingBalance)],
    [],
    HEADER,
    ...s.lines.map((l) => [
      date(l.date),
      l.documentNumber ?? '',
      l.reference ?? '',
      l.direction === 'IN' ? amount(l.amount) : '',
      l.direction === 'OUT' ? amount(l.amount) : '',
      l.counterpartyName ?? '',
      l.counterpartyTin ?? '',
      l.counterpartyAccount ?? '',
      l.counterpartyBankCode ?? '',
      l.purpose,
    ]),
    [],
    ['Исходящий остаток', amount(s.closingBalance)],
  ];
}

export function csvText(s: Statement): string {
  return Papa.unparse(tableRows(s, grouped, dmy), { delimiter: ';', newline: '\r\n' });
}

export function renderCsv(s: Statement): Buffer {
  return Buffer.from(csvText(s), 'utf8');
}

/** The same table as a sheet: amounts as numbers, dates as date cells. */
export async function renderXlsx(s: Statement, edit?: (sheet: ExcelJS.Worksheet) => void): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Выписка');
  const toDate = (iso: string) => new Date(`${iso}T00:00:00Z`);
  for (const row of tableRows<number | Date>(s, Number, toDate)) sheet.addRow(row);
  edit?.(sheet);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export const xlsxProfile: ColumnProfile = { ...csvProfile, delimiter: undefined, decimalSeparator: '.' };

/** What a format carries of a statement: 1C has no transaction reference, currency or bank code of its own. */
export function expected(s: Statement, format: ParsedStatement['format']): ParsedStatement {
  const base = { format, accountNumber: s.accountNumber, openingBalance: s.openingBalance, closingBalance: s.closingBalance };
  switch (format) {
    case '1c':
      return { ...base, periodFrom: s.periodFrom, periodTo: s.periodTo, lines: s.lines.map(({ reference: _r, ...rest }) => rest) };
    case 'camt.053':
    case 'mt940':
      return { ...base, bankCode: s.bankCode, currency: s.currency, periodFrom: s.periodFrom, periodTo: s.periodTo, lines: s.lines };
    case 'csv':
    case 'xlsx':
      return { ...base, lines: s.lines };
  }
}
