import { SaxesParser, type SaxesTagNS } from 'saxes';
import { StatementFormatError } from '../../core/bank-statements/statements';
import { compact, decimalAmount, fieldText, isoDay, optionalText, quote } from './fields';
import { utf8Chunks, type ByteSource, type StatementHead, type StatementLine, type StatementReader } from './source';

// ISO 20022 camt.053 (BkToCstmrStmt), read as a stream of events: no document tree is built, only the values
// of a statement, its balances and the entry being read; each entry is handed on as it closes. The parser (saxes) never fetches anything; a DOCTYPE is refused
// before any of it is looked at, so no entity, internal or external, is ever declared, let alone expanded.

const CAMT_053 = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.[0-9]{2}$/;
const MAX_DEPTH = 64;
const MAX_TEXT = 10_000;
const CHUNK = 64 * 1024;

interface Party {
  name?: string;
  tin?: string;
  account?: string;
  bankCode?: string;
}

interface Transaction {
  debtor: Party;
  creditor: Party;
  remittance: string[];
  endToEnd?: string;
}

interface Entry {
  line: number;
  amount?: string;
  currency?: string;
  indicator?: string;
  status?: string;
  bookingDate?: string;
  valueDate?: string;
  reference?: string;
  additional?: string;
  transactions: Transaction[];
}

interface Balance {
  line: number;
  code?: string;
  amount?: string;
  indicator?: string;
}

interface Statement {
  line: number;
  account?: string;
  currency?: string;
  bankCode?: string;
  from?: string;
  to?: string;
  balances: Balance[];
}

/** The day of a date or a date-time as written (its own offset kept: the bank's day, not UTC's). */
function dayOf(text: string, what: string, line: number): string {
  return isoDay(text.slice(0, 10), what, line);
}

function signed(balance: Balance): string {
  if (balance.amount === undefined || (balance.indicator !== 'CRDT' && balance.indicator !== 'DBIT')) {
    throw new StatementFormatError('malformed', `the ${balance.code ?? ''} balance has no amount or no CRDT/DBIT indicator`, balance.line);
  }
  const amount = decimalAmount(balance.amount, { separator: '.', sign: 'non-negative' }, 'the balance', balance.line);
  return balance.indicator === 'DBIT' && amount !== '0.00' ? `-${amount}` : amount;
}

class Camt053Reader {
  readonly statements: StatementHead[] = [];
  /** The lines read since they were last taken (the entries of the text written to the parser last). */
  pending: StatementLine[] = [];
  private readonly path: string[] = [];
  private text = '';
  private statement: Statement | null = null;
  private balance: Balance | null = null;
  private entry: Entry | null = null;
  private transaction: Transaction | null = null;
  private namespace = '';
  private count = 0;

  constructor(
    private readonly parser: SaxesParser<{ xmlns: true }>,
    private readonly maxLines: number,
  ) {}

  open(tag: SaxesTagNS): void {
    const line = this.parser.line;
    if (this.path.length === 0) {
      if (tag.local !== 'Document' || !CAMT_053.test(tag.uri)) {
        throw new StatementFormatError('unsupported-format', `the root element ${quote(tag.name)} (${quote(tag.uri)}) is not a camt.053 Document`, line);
      }
      this.namespace = tag.uri;
    }
    if (this.path.length >= MAX_DEPTH) throw new StatementFormatError('malformed', `elements are nested deeper than ${MAX_DEPTH}`, line);
    // Elements of other namespaces (supplementary data) never match a path below.
    this.path.push(tag.uri === this.namespace ? tag.local : '#other');
    this.text = '';
    const at = this.path.join('/');
    if (at === 'Document/BkToCstmrStmt/Stmt') this.statement = { line, balances: [] };
    else if (at === 'Document/BkToCstmrStmt/Stmt/Bal') this.balance = { line };
    else if (at === 'Document/BkToCstmrStmt/Stmt/Ntry') this.entry = { line, transactions: [] };
    else if (at === 'Document/BkToCstmrStmt/Stmt/Ntry/NtryDtls/TxDtls') {
      this.transaction = { debtor: {}, creditor: {}, remittance: [] };
      this.entry!.transactions.push(this.transaction);
    } else if (at === 'Document/BkToCstmrStmt/Stmt/Ntry/Amt') {
      this.entry!.currency = tag.attributes.Ccy?.value;
    } else if (this.path.length === 2 && at !== 'Document/BkToCstmrStmt') {
      throw new StatementFormatError('unsupported-format', `${quote(tag.local)} is not a bank-to-customer statement (BkToCstmrStmt)`, line);
    }
  }

  addText(text: string): void {
    this.text += text;
    if (this.text.length > MAX_TEXT) throw new StatementFormatError('malformed', `an element's text is longer than ${MAX_TEXT} characters`, this.parser.line);
  }

  close(): void {
    const at = this.path.join('/');
    const value = this.text.trim();
    const line = this.parser.line;
    this.path.pop();
    this.text = '';
    const inStatement = 'Document/BkToCstmrStmt/Stmt/';
    if (at === 'Document/BkToCstmrStmt/Stmt') return this.endStatement();
    if (!at.startsWith(inStatement) || !this.statement) return;
    const rel = at.slice(inStatement.length);
    const s = this.statement;
    switch (rel) {
      case 'Acct/Id/IBAN':
      case 'Acct/Id/Othr/Id':
        s.account = value;
        return;
      case 'Acct/Ccy':
        s.currency = value;
        return;
      case 'Acct/Svcr/FinInstnId/ClrSysMmbId/MmbId':
      case 'Acct/Svcr/FinInstnId/Othr/Id':
        s.bankCode = value;
        return;
      case 'FrToDt/FrDtTm':
        s.from = dayOf(value, 'FrDtTm', line);
        return;
      case 'FrToDt/ToDtTm':
        s.to = dayOf(value, 'ToDtTm', line);
        return;
      case 'Bal':
        s.balances.push(this.balance!);
        this.balance = null;
        return;
      case 'Bal/Tp/CdOrPrtry/Cd':
        this.balance!.code = value;
        return;
      case 'Bal/Amt':
        this.balance!.amount = value;
        return;
      case 'Bal/CdtDbtInd':
        this.balance!.indicator = value;
        return;
      case 'Ntry':
        return this.endEntry();
    }
    const e = this.entry;
    if (!e) return;
    switch (rel) {
      case 'Ntry/Amt':
        e.amount = value;
        return;
      case 'Ntry/CdtDbtInd':
        e.indicator = value;
        return;
      case 'Ntry/Sts':
      case 'Ntry/Sts/Cd':
        if (value !== '') e.status = value;
        return;
      case 'Ntry/BookgDt/Dt':
      case 'Ntry/BookgDt/DtTm':
        e.bookingDate = dayOf(value, 'BookgDt', line);
        return;
      case 'Ntry/ValDt/Dt':
      case 'Ntry/ValDt/DtTm':
        e.valueDate = dayOf(value, 'ValDt', line);
        return;
      case 'Ntry/AcctSvcrRef':
        e.reference = value;
        return;
      case 'Ntry/AddtlNtryInf':
        e.additional = value;
        return;
    }
    const t = this.transaction;
    const tx = 'Ntry/NtryDtls/TxDtls/';
    if (!t || !rel.startsWith(tx)) return;
    this.transactionValue(t, rel.slice(tx.length), value);
  }

  private transactionValue(t: Transaction, rel: string, value: string): void {
    if (rel === 'Refs/EndToEndId') t.endToEnd = value;
    else if (rel === 'RmtInf/Ustrd') t.remittance.push(value);
    const party = /^RltdPties\/(Dbtr|Cdtr)(Acct)?\/(.+)$/.exec(rel);
    if (party) {
      const p = party[1] === 'Dbtr' ? t.debtor : t.creditor;
      // Version 8 and later wrap the party in Pty.
      const inner = party[3]!.replace(/^Pty\//, '');
      if (party[2] === 'Acct') {
        if (inner === 'Id/IBAN' || inner === 'Id/Othr/Id') p.account = value;
      } else if (inner === 'Nm') p.name = value;
      else if ((inner === 'Id/OrgId/Othr/Id' || inner === 'Id/PrvtId/Othr/Id') && p.tin === undefined) p.tin = value;
      return;
    }
    const agent = /^RltdAgts\/(Dbtr|Cdtr)Agt\/FinInstnId\/(ClrSysMmbId\/MmbId|Othr\/Id|BIC|BICFI)$/.exec(rel);
    if (agent) {
      const p = agent[1] === 'Dbtr' ? t.debtor : t.creditor;
      // A clearing member id (the MFO) wins over a BIC.
      if (p.bankCode === undefined || agent[2] === 'ClrSysMmbId/MmbId') p.bankCode = value;
    }
  }

  private endEntry(): void {
    const e = this.entry!;
    this.entry = null;
    this.transaction = null;
    // Pending and information-only entries are not in the booked balances.
    if (e.status !== undefined && e.status !== 'BOOK') return;
    if (e.indicator !== 'CRDT' && e.indicator !== 'DBIT') throw new StatementFormatError('malformed', `the entry's CdtDbtInd ${quote(e.indicator ?? '')} is neither CRDT nor DBIT`, e.line);
    if (e.amount === undefined) throw new StatementFormatError('malformed', 'the entry has no Amt', e.line);
    const s = this.statement!;
    const statement = this.statements.length;
    if (s.currency && e.currency && e.currency !== s.currency) throw new StatementFormatError('malformed', `the entry is in ${e.currency}, the account in ${s.currency}`, e.line);
    const date = e.bookingDate ?? e.valueDate;
    if (!date) throw new StatementFormatError('malformed', 'the entry has neither BookgDt nor ValDt', e.line);
    this.count += 1;
    if (this.count > this.maxLines) throw new StatementFormatError('too-many-lines', `the file has more than ${this.maxLines} entries`, e.line);
    const direction = e.indicator === 'CRDT' ? 'IN' : 'OUT';
    const single = e.transactions.length === 1 ? e.transactions[0] : undefined;
    const other = single ? (direction === 'IN' ? single.debtor : single.creditor) : {};
    const remittance = e.transactions.flatMap((t) => t.remittance).join(e.transactions.length > 1 ? '; ' : ' ');
    const endToEnd = single?.endToEnd === 'NOTPROVIDED' ? undefined : single?.endToEnd;
    this.pending.push({
      statement,
      line: compact({
        date,
        direction,
        amount: decimalAmount(e.amount, { separator: '.' }, 'the entry amount', e.line),
        reference: optionalText(e.reference, 'AcctSvcrRef', e.line),
        counterpartyName: optionalText(other.name, 'Nm', e.line),
        counterpartyTin: optionalText(other.tin, 'Id', e.line),
        counterpartyAccount: optionalText(other.account, 'the account', e.line),
        counterpartyBankCode: optionalText(other.bankCode, 'the agent', e.line),
        purpose: fieldText(remittance !== '' ? remittance : (e.additional ?? ''), 'Ustrd', e.line),
        documentNumber: optionalText(endToEnd, 'EndToEndId', e.line),
      }),
    });
  }

  private endStatement(): void {
    const s = this.statement!;
    this.statement = null;
    if (!s.account) throw new StatementFormatError('malformed', 'the statement names no account (Acct/Id/IBAN or Acct/Id/Othr/Id)', s.line);
    const find = (codes: string[], what: string) => {
      const found = s.balances.filter((b) => b.code !== undefined && codes.includes(b.code));
      if (found.length !== 1) throw new StatementFormatError('malformed', `the statement has ${found.length === 0 ? 'no' : 'more than one'} ${what} balance`, s.line);
      return signed(found[0]!);
    };
    const hasOpening = s.balances.some((b) => b.code === 'OPBD');
    this.statements.push(
      compact({
        format: 'camt.053' as const,
        accountNumber: s.account,
        bankCode: s.bankCode || undefined,
        currency: s.currency || undefined,
        periodFrom: s.from,
        periodTo: s.to,
        openingBalance: find(hasOpening ? ['OPBD'] : ['PRCD'], 'opening (OPBD or PRCD)'),
        closingBalance: find(['CLBD'], 'closing (CLBD)'),
      }),
    );
  }
}

export async function* readCamt053(source: ByteSource, maxLines: number): StatementReader {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const reader = new Camt053Reader(parser, maxLines);
  parser.on('xmldecl', (decl) => {
    if (decl.encoding !== undefined && decl.encoding.toUpperCase() !== 'UTF-8') {
      throw new StatementFormatError('encoding', `the XML declares encoding ${quote(decl.encoding)}; camt.053 is read as UTF-8 only`, parser.line);
    }
  });
  parser.on('doctype', () => {
    throw new StatementFormatError('xml-dtd', 'the XML has a DOCTYPE; a statement with a document type definition is refused unread', parser.line);
  });
  parser.on('opentag', (tag) => reader.open(tag));
  parser.on('text', (t) => reader.addText(t));
  parser.on('cdata', (t) => reader.addText(t));
  parser.on('closetag', () => reader.close());
  const taken = () => {
    const lines = reader.pending;
    reader.pending = [];
    return lines;
  };
  try {
    for await (const text of utf8Chunks(source, 'the XML document')) {
      for (let at = 0; at < text.length; at += CHUNK) {
        parser.write(text.slice(at, at + CHUNK));
        yield* taken();
      }
    }
    parser.close();
    yield* taken();
  } catch (error) {
    if (error instanceof StatementFormatError) throw error;
    const message = error instanceof Error ? error.message.replace(/^[^:]*:\d+:\d+: /, '') : String(error);
    const ended = /unclosed|unexpected end/i.test(message);
    throw new StatementFormatError(ended ? 'truncated' : 'malformed', `the XML is not well formed: ${message}`, parser.line);
  }
  if (reader.statements.length === 0) throw new StatementFormatError('malformed', 'the document has no Stmt');
  return reader.statements;
}
