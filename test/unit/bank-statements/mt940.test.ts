import { bytesSource, collectStatements, parseBankStatement, readBankStatement } from '../../../adapters/bank-statements';
import { StatementFormatError } from '../../../core/bank-statements/statements';
import { refusal, statement } from './fixture';
import { mt940Text, renderMt940 } from './render';

const mt = (...lines: string[]) => Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
const head = [':20:STMT-7', ':25:00014/20208000900123456001', ':28C:7/1', ':60F:C261101UZS1000,00'];
const envelope = (ref: string) => `{1:F01KAPBUZ22AXXX0000000000}{2:O9401200261130KAPBUZ22AXXX00000000002611301200N}{4:\r\n${mt940Text(statement, ref).replace(/-\r\n$/, '')}-}`;

describe('MT940: fields and narratives', () => {
  test(':86: over several lines is one narrative: a full 65-character line joins the next as it is, a shorter one with a space', async () => {
    const full = 'Оплата по договору поставки № 12 от 01.10.2026 за товар, согласно';
    expect(full).toHaveLength(65);
    const [read] = await parseBankStatement(mt(...head, ':61:2611021102C500,00NTRF154//B1', `:86:${full}`, ' счёту-фактуре № 88,', 'НДС не облагается', ':62F:C261130UZS1500,00', '-'));
    expect(read!.lines).toEqual([
      { date: '2026-11-02', direction: 'IN', amount: '500.00', reference: 'B1', documentNumber: '154', purpose: `${full} счёту-фактуре № 88, НДС не облагается` },
    ]);
  });

  test('structured :86: (/NAME/ /ACCT/ /BANK/ /TIN/ /REMI/) gives the counterparty; /REMI/ runs to the end, slashes and all', async () => {
    const [read] = await parseBankStatement(
      mt(...head, ':61:261102D500,NTRFNONREF', ':86:/NAME/ООО «Гамма»/ACCT/20208000100555666003/BANK/00401/TIN/305111222/REMI/Аренда за 11/2026', ':62F:C261130UZS500,00'),
    );
    expect(read!.lines).toEqual([
      {
        date: '2026-11-02',
        direction: 'OUT',
        amount: '500.00',
        counterpartyName: 'ООО «Гамма»',
        counterpartyAccount: '20208000100555666003',
        counterpartyBankCode: '00401',
        counterpartyTin: '305111222',
        purpose: 'Аренда за 11/2026',
      },
    ]);
  });

  test('a reversal of a credit (RC) is money out, of a debit (RD) money in; an entry date in January of a December value date is next year', async () => {
    const [read] = await parseBankStatement(
      mt(':20:S', ':25:20208000900123456001', ':60F:C261231UZS100,00', ':61:2612310102RC10,00NTRFNONREF', ':86:Сторно', ':61:261231RD5,00NTRFNONREF', ':86:Сторно', ':62F:C270102UZS95,00'),
    );
    expect(read!.lines.map((l) => [l.date, l.direction, l.amount])).toEqual([
      ['2027-01-02', 'OUT', '10.00'],
      ['2026-12-31', 'IN', '5.00'],
    ]);
    expect(read).toMatchObject({ accountNumber: '20208000900123456001', currency: 'UZS', periodFrom: '2026-12-31', periodTo: '2027-01-02' });
    expect(read!.bankCode).toBeUndefined();
  });

  test('a debit balance (D) is negative', async () => {
    const [read] = await parseBankStatement(mt(':20:S', ':25:20208000900123456001', ':60F:D261101UZS100,00', ':62F:D261130UZS100,00'));
    expect(read).toMatchObject({ openingBalance: '-100.00', closingBalance: '-100.00', lines: [] });
  });

  test('messages inside the SWIFT envelope ({1:}{2:}{4: … -}) are read, each a statement', async () => {
    const read = await parseBankStatement(Buffer.from(`${envelope('A')}\r\n${envelope('B')}\r\n`, 'utf8'));
    expect(read).toHaveLength(2);
    expect(read[1]!.lines).toEqual(statement.lines);
  });
});

describe('MT940: read as a stream', () => {
  test('chunks of 1, 3 and 7 bytes, cutting lines, CRLF and Cyrillic characters anywhere, read as the whole file does', async () => {
    const full = 'Оплата по договору поставки № 12 от 01.10.2026 за товар, согласно';
    const files = [
      renderMt940(statement),
      Buffer.from(`${envelope('A')}\r\n${envelope('B')}\r\n`, 'utf8'),
      mt(...head, ':61:2611021102C500,00NTRF154//B1', `:86:${full}`, ' счёту-фактуре № 88,', 'НДС не облагается', ':61:261103D5,NTRFNONREF', ':62F:C261130UZS1495,00', '-'),
      // Refused files are refused alike, a byte that is not UTF-8 told at the same offset and line.
      Buffer.concat([mt(...head, ':61:261102C500,00NTRFNONREF', ':86:Оплата'), Buffer.from([0xd0]), Buffer.from('\r\n:62F:C261130UZS1500,00\r\n')]),
      mt(...head, ':61:261102C500,00NTRFNONREF', ':86:Оплата'),
    ];
    const outcome = (read: Promise<unknown>) =>
      read.then(
        (value) => ({ value }),
        (e: unknown) => ({ error: e instanceof StatementFormatError ? { code: e.code, message: e.message, line: e.line } : e }),
      );
    for (const [i, bytes] of files.entries()) {
      const whole = await outcome(parseBankStatement(bytes));
      expect(Object.keys(whole)).toEqual([i < 3 ? 'value' : 'error']);
      for (const n of [1, 3, 7]) {
        expect(await outcome(collectStatements(readBankStatement(bytesSource(bytes, n), { size: bytes.byteLength })))).toEqual(whole);
      }
    }
  });
});

describe('MT940: what is refused', () => {
  test('a message cut before its closing balance is refused as truncated', async () => {
    const full = mt940Text(statement);
    expect(await refusal(Buffer.from(full.slice(0, full.indexOf(':62F:')), 'utf8'))).toMatchObject({ code: 'truncated', message: expect.stringMatching(/has no closing balance/) });
  });

  test('a SWIFT envelope without its closing "-}" is refused as truncated', async () => {
    const text = `{1:F01KAPBUZ22AXXX0000000000}{4:\r\n${mt940Text(statement).replace(/-\r\n$/, '')}`;
    expect(await refusal(Buffer.from(text, 'utf8'))).toMatchObject({ code: 'truncated' });
  });

  test('an unknown tag, an amount with a dot, and a field before the :20: of its message are refused with their line', async () => {
    expect(await refusal(mt(...head, ':99:X', ':62F:C261130UZS1000,00'))).toMatchObject({ code: 'malformed', line: 5, message: 'line 5: unknown field :99:' });
    expect(await refusal(mt(...head, ':61:261102C500.00NTRFNONREF', ':62F:C261130UZS1500,00'))).toMatchObject({ code: 'malformed', line: 5 });
    expect(await refusal(mt(...head, ':62F:C261130UZS1000,00', '-', ':25:20208000900123456001'))).toMatchObject({ code: 'malformed', line: 7, message: "line 7: :25: before the message's :20:" });
  });

  test('a closing balance in another currency than the opening one is refused', async () => {
    expect(await refusal(mt(...head, ':62F:C261130USD1000,00'))).toMatchObject({ code: 'malformed', line: 5 });
  });

  test('a text that is not UTF-8 is refused', async () => {
    const bytes = Buffer.concat([mt(...head, ':61:261102C500,00NTRFNONREF'), Buffer.from(':86:'), Buffer.from([0xce, 0xef, 0xeb, 0xe0, 0xf2, 0xe0]), Buffer.from('\r\n:62F:C261130UZS1500,00\r\n')]);
    expect(await refusal(bytes)).toMatchObject({ code: 'encoding', line: 6 });
  });
});
