import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bytesSource, collectStatements, parseBankStatement, readBankStatement } from '../../../adapters/bank-statements';
import { refusal, statement } from './fixture';
import { renderCamt } from './render';

const NS = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';
const camt = (statements: string, ns = NS) => Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="${ns}"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr>${statements}</BkToCstmrStmt></Document>`);
const bal = (code: string, amount: string, indicator = 'CRDT') => `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="UZS">${amount}</Amt><CdtDbtInd>${indicator}</CdtDbtInd><Dt><Dt>2026-11-01</Dt></Dt></Bal>`;
const stmt = (body: string, account = '<Othr><Id>20208000900123456001</Id></Othr>') => `<Stmt><Id>S</Id><Acct><Id>${account}</Id><Ccy>UZS</Ccy></Acct>${body}</Stmt>`;

describe('camt.053: XML that could reach outside or blow up is refused unread', () => {
  test('a billion-laughs document is refused as xml-dtd at once, no entity expanded', async () => {
    const entities = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`)];
    const bomb = Buffer.from(`<?xml version="1.0"?>\n<!DOCTYPE Document [\n${entities.join('\n')}\n]>\n<Document xmlns="${NS}"><BkToCstmrStmt>&lol9;</BkToCstmrStmt></Document>`);
    const started = process.hrtime.bigint();
    const error = await refusal(bomb);
    expect(error).toMatchObject({ code: 'xml-dtd', line: 13 });
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
    expect(error.message).not.toMatch(/lollol/);
  });

  test('an external entity naming a file on disk is refused, and nothing is read from disk', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camt-xxe-'));
    const secret = path.join(dir, 'secret.txt');
    fs.writeFileSync(secret, 'SECRET-CONTENT-7f3a');
    const xxe = Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Document [ <!ENTITY xxe SYSTEM "file://${secret}"> ]>\n` +
        `<Document xmlns="${NS}"><BkToCstmrStmt>${stmt(`${bal('OPBD', '0.00')}${bal('CLBD', '0.00')}<Ntry><Amt Ccy="UZS">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-02</Dt></BookgDt><AddtlNtryInf>&xxe;</AddtlNtryInf></Ntry>`)}</BkToCstmrStmt></Document>`,
    );
    const reads = (['readFileSync', 'readFile', 'openSync', 'open', 'createReadStream', 'readSync', 'read'] as const).map((name) => jest.spyOn(fs, name));
    const promiseReads = [jest.spyOn(fs.promises, 'readFile'), jest.spyOn(fs.promises, 'open')];
    try {
      const error = await refusal(xxe);
      expect(error).toMatchObject({ code: 'xml-dtd', line: 2 });
      expect(error.message).not.toContain('SECRET');
      for (const spy of [...reads, ...promiseReads]) expect(spy).not.toHaveBeenCalled();
      // The spies do see a read: the check above could have failed.
      expect(fs.readFileSync(secret, 'utf8')).toBe('SECRET-CONTENT-7f3a');
      expect(reads[0]).toHaveBeenCalledTimes(1);
    } finally {
      for (const spy of [...reads, ...promiseReads]) spy.mockRestore();
      fs.rmSync(dir, { recursive: true });
    }
  });

  test('a DOCTYPE without any entity is refused too: no DTD is ever accepted', async () => {
    const xml = Buffer.from(`<?xml version="1.0"?><!DOCTYPE Document><Document xmlns="${NS}"/>`);
    expect(await refusal(xml)).toMatchObject({ code: 'xml-dtd' });
  });

  test('an entity reference with no DTD is refused as malformed XML, not left as text', async () => {
    const xml = camt(stmt(`${bal('OPBD', '0.00')}${bal('CLBD', '1.00')}<Ntry><Amt Ccy="UZS">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-02</Dt></BookgDt><AddtlNtryInf>&passwd;</AddtlNtryInf></Ntry>`));
    expect(await refusal(xml)).toMatchObject({ code: 'malformed', message: expect.stringMatching(/undefined entity/i) });
  });
});

describe('camt.053: encoding and structure', () => {
  test('an XML declaring another encoding than UTF-8 is refused', async () => {
    const xml = Buffer.from(renderCamt(statement).toString('utf8').replace('encoding="UTF-8"', 'encoding="windows-1251"'));
    expect(await refusal(xml)).toMatchObject({ code: 'encoding', line: 1 });
  });

  test('bytes that are not UTF-8 are refused with their line', async () => {
    const good = renderCamt(statement);
    const at = good.indexOf('<Stmt>');
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xc3, 0x28]), good.subarray(at)]);
    expect(await refusal(bad)).toMatchObject({ code: 'encoding', line: 4 });
  });

  test('a document cut short is refused as truncated', async () => {
    const full = renderCamt(statement);
    expect(await refusal(full.subarray(0, Math.floor(full.length * 0.6)))).toMatchObject({ code: 'truncated' });
  });

  test('another ISO 20022 message (camt.052) is not taken for a statement', async () => {
    const xml = camt(stmt(`${bal('OPBD', '0.00')}${bal('CLBD', '0.00')}`), 'urn:iso:std:iso:20022:tech:xsd:camt.052.001.02');
    expect(await refusal(xml)).toMatchObject({ code: 'unsupported-format' });
  });

  test('a statement without a closing booked balance is refused', async () => {
    expect(await refusal(camt(stmt(bal('OPBD', '0.00'))))).toMatchObject({ code: 'malformed', message: expect.stringMatching(/no closing \(CLBD\) balance/) });
  });
});

describe('camt.053: what is read', () => {
  test('only booked entries are lines; a debit balance is negative; PRCD stands for the opening when there is no OPBD', async () => {
    const entry = (amount: string, status: string) =>
      `<Ntry><Amt Ccy="UZS">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>${status}</Sts><BookgDt><Dt>2026-11-02</Dt></BookgDt><AddtlNtryInf>Списание</AddtlNtryInf></Ntry>`;
    const [read] = await parseBankStatement(camt(stmt(`${bal('PRCD', '100.00', 'DBIT')}${bal('CLBD', '110.00', 'DBIT')}${entry('10.00', 'BOOK')}${entry('99.00', 'PDNG')}`)));
    expect(read).toEqual({
      format: 'camt.053',
      accountNumber: '20208000900123456001',
      currency: 'UZS',
      openingBalance: '-100.00',
      closingBalance: '-110.00',
      lines: [{ date: '2026-11-02', direction: 'OUT', amount: '10.00', purpose: 'Списание' }],
    });
  });

  test('version 8 layout (Sts/Cd, Pty, DtTm, an IBAN) reads the same fields; the booking day is the one written, not UTC\'s', async () => {
    const ns = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';
    const ntry =
      '<Ntry><Amt Ccy="UZS">250.75</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>2026-11-03T01:30:00+05:00</DtTm></BookgDt>' +
      '<AcctSvcrRef>REF-9</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>ООО «Бета»</Nm><Id><OrgId><Othr><Id>309876543</Id></Othr></OrgId></Id></Pty></Dbtr>' +
      '<DbtrAcct><Id><IBAN>UZ12345678901234567890</IBAN></Id></DbtrAcct></RltdPties><RltdAgts><DbtrAgt><FinInstnId><BICFI>KAPBUZ22</BICFI><ClrSysMmbId><MmbId>00974</MmbId></ClrSysMmbId></FinInstnId></DbtrAgt></RltdAgts>' +
      '<RmtInf><Ustrd>Оплата</Ustrd><Ustrd>по договору № 4</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>';
    const [read] = await parseBankStatement(camt(stmt(`${bal('OPBD', '0')}${bal('CLBD', '250.75')}${ntry}`, '<IBAN>UZ00000000000000000001</IBAN>'), ns));
    expect(read).toMatchObject({ accountNumber: 'UZ00000000000000000001', openingBalance: '0.00' });
    expect(read!.lines).toEqual([
      {
        date: '2026-11-03',
        direction: 'IN',
        amount: '250.75',
        reference: 'REF-9',
        counterpartyName: 'ООО «Бета»',
        counterpartyTin: '309876543',
        counterpartyAccount: 'UZ12345678901234567890',
        counterpartyBankCode: '00974',
        purpose: 'Оплата по договору № 4',
      },
    ]);
  });

  test('a batch entry (several TxDtls) is one line of the booked amount with no single counterparty', async () => {
    const tx = (name: string, text: string) => `<TxDtls><RltdPties><Dbtr><Nm>${name}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${text}</Ustrd></RmtInf></TxDtls>`;
    const ntry = `<Ntry><Amt Ccy="UZS">30.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-04</Dt></BookgDt><NtryDtls>${tx('A', 'one')}${tx('B', 'two')}</NtryDtls></Ntry>`;
    const [read] = await parseBankStatement(camt(stmt(`${bal('OPBD', '0.00')}${bal('CLBD', '30.00')}${ntry}`)));
    expect(read!.lines).toEqual([{ date: '2026-11-04', direction: 'IN', amount: '30.00', purpose: 'one; two' }]);
  });

  test('several Stmt elements are several statements, in order', async () => {
    const one = stmt(`${bal('OPBD', '1.00')}${bal('CLBD', '1.00')}`);
    const two = stmt(`${bal('OPBD', '2.00')}${bal('CLBD', '2.00')}`, '<Othr><Id>20208000900123456099</Id></Othr>');
    const read = await parseBankStatement(camt(one + two));
    expect(read.map((s) => [s.accountNumber, s.openingBalance])).toEqual([
      ['20208000900123456001', '1.00'],
      ['20208000900123456099', '2.00'],
    ]);
  });
});

describe('camt.053: read as a stream', () => {
  const inChunks = (bytes: Uint8Array, size: number) => collectStatements(readBankStatement(bytesSource(bytes, size), { size: bytes.byteLength }));

  test('a document cut into chunks of any size, inside an element or a Cyrillic character, reads as the whole one does', async () => {
    const bytes = renderCamt(statement);
    const whole = await parseBankStatement(bytes);
    for (const size of [1, 2, 3, 7, 100]) expect(await inChunks(bytes, size)).toEqual(whole);
  });

  test('bytes that are not UTF-8 are refused with their offset and line wherever the chunks are cut, and a character cut off at the end too', async () => {
    const good = renderCamt(statement);
    const at = good.indexOf('<Stmt>');
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xc3, 0x28]), good.subarray(at)]);
    for (const size of [1, 3, 64 * 1024]) {
      await expect(inChunks(bad, size)).rejects.toMatchObject({ code: 'encoding', line: 4, message: `line 4: the XML document is not valid UTF-8 (byte ${at + 1})` });
    }
    const cut = Buffer.concat([good, Buffer.from([0xd0])]);
    for (const size of [1, 64 * 1024]) {
      await expect(inChunks(cut, size)).rejects.toMatchObject({ code: 'encoding', message: expect.stringContaining(`(byte ${good.length + 1})`) });
    }
  });
});
