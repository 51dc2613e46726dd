import iconv from 'iconv-lite';
import { bytesSource, collectStatements, parseBankStatement, readBankStatement } from '../../../adapters/bank-statements';
import { oneCText, renderOneC, type Statement } from './render';
import { refusal, statement } from './fixture';

const win = (text: string) => iconv.encode(text, 'windows-1251');
const text = (s: Statement = statement) => oneCText(s).replace('Кодировка=@@', 'Кодировка=Windows');

describe('1C client-bank exchange: code pages are checked, never trusted', () => {
  test('a Windows-1251 file reads its Cyrillic names and purposes', async () => {
    const [read] = await parseBankStatement(renderOneC(statement));
    expect(read!.lines[0]).toMatchObject({ counterpartyName: 'ООО «Тошкент Савдо»', purpose: expect.stringContaining('Оплата по счёту-фактуре № 17') });
    expect(read!.lines[1]!.counterpartyName).toBe('ЧП «Ўзбекистон Ижара»');
  });

  test('when a UTF-8 file declares Кодировка=Windows, then it is refused as an encoding problem on the line of the declaration', async () => {
    const error = await refusal(renderOneC(statement, { codePage: 'utf-8', declared: 'Windows' }));
    expect(error).toMatchObject({ code: 'encoding', line: 3 });
    expect(error.message).toBe('line 3: the file declares Windows-1251 but is written in UTF-8');
  });

  test('when a Windows-1251 file declares Кодировка=UTF-8, then it is refused', async () => {
    const error = await refusal(renderOneC(statement, { codePage: 'windows-1251', declared: 'UTF-8' }));
    expect(error).toMatchObject({ code: 'encoding', message: 'line 3: the file declares UTF-8 but is written in Windows-1251' });
  });

  test('when a CP866 file declares Кодировка=Windows, then it is refused', async () => {
    const error = await refusal(renderOneC(statement, { codePage: 'cp866', declared: 'Windows' }));
    expect(error).toMatchObject({ code: 'encoding', message: 'line 3: the file declares Windows-1251 but is written in DOS (CP866)' });
  });

  test('when a file declared UTF-8 holds a byte sequence that is not UTF-8, then it is refused with the line', async () => {
    const good = Buffer.from(text().replace('Кодировка=Windows', 'Кодировка=UTF-8'), 'utf8');
    const at = good.indexOf(Buffer.from('Аренда офиса'));
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xd0, 0x28]), good.subarray(at)]);
    const error = await refusal(bad);
    expect(error.code).toBe('encoding');
    expect(error.line).toBe(good.subarray(0, at).toString('latin1').split('\n').length);
    expect(error.message).toMatch(/is not valid UTF-8/);
  });

  test('when the header is Windows-1251 but a purpose line is UTF-8, then the file is refused on that line', async () => {
    const lines = text().split('\r\n');
    const at = lines.findIndex((l) => l.startsWith('НазначениеПлатежа='));
    const bytes = Buffer.concat(lines.map((l, i) => Buffer.concat([i === at ? Buffer.from(l, 'utf8') : win(l), Buffer.from('\r\n')])));
    expect(await refusal(bytes)).toMatchObject({ code: 'encoding', line: at + 1, message: `line ${at + 1}: the file is declared Windows-1251, but this line is UTF-8` });
  });

  test('a byte Windows-1251 leaves undefined (0x98) is refused, not turned into a replacement character', async () => {
    const good = renderOneC(statement);
    const at = good.indexOf(win('Аренда'));
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0x98]), good.subarray(at)]);
    expect(await refusal(bad)).toMatchObject({ code: 'encoding', message: expect.stringMatching(/a byte the code page does not define/) });
  });

  test('a file that does not say its code page is refused', async () => {
    const bytes = win(text().replace('Кодировка=Windows\r\n', ''));
    expect(await refusal(bytes)).toMatchObject({ code: 'encoding', message: expect.stringMatching(/does not say its code page/) });
  });
});

describe('1C client-bank exchange: structure', () => {
  test('when the file is cut before КонецФайла, or inside a document, then it is refused as truncated', async () => {
    expect(await refusal(win(text().replace('КонецФайла\r\n', '')))).toMatchObject({ code: 'truncated', message: 'the file ends before КонецФайла' });
    const full = text();
    const cut = full.slice(0, full.lastIndexOf('КонецДокумента'));
    const error = await refusal(win(cut));
    expect(error.code).toBe('truncated');
    expect(error.message).toMatch(/^the file ends inside the section of line \d+$/);
  });

  test('a section left open when the next one starts is refused with both lines', async () => {
    const bytes = win(text().replace('КонецРасчСчет\r\n', ''));
    expect(await refusal(bytes)).toMatchObject({ code: 'malformed', message: expect.stringMatching(/^line 18: "СекцияДокумент=Платежное поручение" inside the section of line 12/) });
  });

  test('an amount with a comma or with three decimals is refused with its line', async () => {
    const comma = text().replace('Сумма=1200000.50', 'Сумма=1200000,50');
    const line = comma.split('\r\n').indexOf('Сумма=1200000,50') + 1;
    expect(await refusal(win(comma))).toMatchObject({ code: 'malformed', line, message: expect.stringContaining('Сумма "1200000,50" is not an amount') });
    const three = text().replace('Сумма=1200000.50', 'Сумма=1200000.505');
    expect(await refusal(win(three))).toMatchObject({ line, message: `line ${line}: Сумма "1200000.505" has more than two decimals` });
  });

  test('a document naming neither account of the file is refused', async () => {
    const bytes = win(text().replace(/ПолучательСчет=20208000900123456001/, 'ПолучательСчет=20208000900999999999'));
    expect(await refusal(bytes)).toMatchObject({ code: 'malformed', message: expect.stringMatching(/names neither account of the file's sections/) });
  });

  test('the balances of the account section are the statement\'s; a negative (overdrawn) balance keeps its sign', async () => {
    const s = { ...statement, openingBalance: '-250000.00', closingBalance: '-250000.00', lines: [] };
    expect(await parseBankStatement(renderOneC(s))).toEqual([
      { format: '1c', accountNumber: s.accountNumber, periodFrom: '2026-11-01', periodTo: '2026-11-30', openingBalance: '-250000.00', closingBalance: '-250000.00', lines: [] },
    ]);
  });
});

describe('1C client-bank exchange: several accounts and several days', () => {
  const second = '20208000900123456099';
  const twoAccounts = (from: string, to: string) =>
    [
      '1CClientBankExchange',
      'ВерсияФормата=1.03',
      'Кодировка=Windows',
      `РасчСчет=${statement.accountNumber}`,
      `РасчСчет=${second}`,
      'СекцияРасчСчет',
      'ДатаНачала=01.11.2026',
      'ДатаКонца=01.11.2026',
      `РасчСчет=${statement.accountNumber}`,
      'НачальныйОстаток=1000.00',
      'КонечныйОстаток=900.00',
      'КонецРасчСчет',
      'СекцияРасчСчет',
      'ДатаНачала=01.11.2026',
      'ДатаКонца=01.11.2026',
      `РасчСчет=${second}`,
      'НачальныйОстаток=0.00',
      'КонечныйОстаток=100.00',
      'КонецРасчСчет',
      'СекцияДокумент=Платежное поручение',
      'Номер=7',
      'Дата=01.11.2026',
      'Сумма=100.00',
      `ПлательщикСчет=${from}`,
      'Плательщик=ООО «Пример»',
      `ПолучательСчет=${to}`,
      'Получатель=ООО «Пример»',
      'НазначениеПлатежа=Перевод собственных средств',
      'КонецДокумента',
      'КонецФайла',
    ].join('\r\n');

  test('a transfer between two accounts of the file is a line OUT of the one and IN to the other: one statement per account', async () => {
    const read = await parseBankStatement(win(twoAccounts(statement.accountNumber, second)));
    expect(read.map((s) => [s.accountNumber, s.openingBalance, s.closingBalance, s.lines.map((l) => l.direction)])).toEqual([
      [statement.accountNumber, '1000.00', '900.00', ['OUT']],
      [second, '0.00', '100.00', ['IN']],
    ]);
    expect(read[0]!.lines[0]).toMatchObject({ counterpartyAccount: second, amount: '100.00', documentNumber: '7' });
    expect(read[1]!.lines[0]).toMatchObject({ counterpartyAccount: statement.accountNumber });
  });

  test('an account paying itself is refused: the direction would be both', async () => {
    expect(await refusal(win(twoAccounts(second, second)))).toMatchObject({ code: 'malformed', message: expect.stringMatching(/both the payer and the payee/) });
  });

  const day = (from: string, opening: string, closing: string) =>
    ['СекцияРасчСчет', `ДатаНачала=${from}`, `ДатаКонца=${from}`, `РасчСчет=${statement.accountNumber}`, `НачальныйОстаток=${opening}`, `КонечныйОстаток=${closing}`, 'КонецРасчСчет'];
  const days = (...sections: string[][]) => win(['1CClientBankExchange', 'Кодировка=Windows', ...sections.flat(), 'КонецФайла'].join('\r\n'));

  test('sections of one account day by day are one statement from the first opening to the last closing', async () => {
    const read = await parseBankStatement(days(day('02.11.2026', '150.00', '175.00'), day('01.11.2026', '100.00', '150.00')));
    expect(read).toEqual([
      { format: '1c', accountNumber: statement.accountNumber, periodFrom: '2026-11-01', periodTo: '2026-11-02', openingBalance: '100.00', closingBalance: '175.00', lines: [] },
    ]);
  });

  test('when a day\'s opening is not the day before\'s closing, then the file is refused', async () => {
    const error = await refusal(days(day('01.11.2026', '100.00', '150.00'), day('02.11.2026', '140.00', '175.00')));
    expect(error).toMatchObject({ code: 'malformed', line: 10 });
    expect(error.message).toMatch(/opening balance 140.00 .* does not follow on from the closing balance 150.00/);
  });
});

describe('1C client-bank exchange: read as a stream', () => {
  const inChunks = (bytes: Uint8Array, size: number) => collectStatements(readBankStatement(bytesSource(bytes, size), { size: bytes.byteLength }));

  test('a file cut into chunks of any size, inside a line or a character, reads as the whole file does', async () => {
    for (const codePage of ['windows-1251', 'utf-8'] as const) {
      const bytes = renderOneC(statement, { codePage, bom: codePage === 'utf-8' });
      const whole = await parseBankStatement(bytes);
      for (const size of [1, 2, 3, 5, 64]) expect(await inChunks(bytes, size)).toEqual(whole);
    }
  });

  test('a byte that breaks UTF-8 is refused with its offset in the file and its line, wherever the chunks are cut', async () => {
    const good = Buffer.from(text().replace('Кодировка=Windows', 'Кодировка=UTF-8'), 'utf8');
    const at = good.indexOf(Buffer.from('Аренда офиса'));
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xd0, 0x28]), good.subarray(at)]);
    const line = good.subarray(0, at).toString('latin1').split('\n').length;
    for (const size of [1, 7, 4096]) {
      await expect(inChunks(bad, size)).rejects.toMatchObject({ code: 'encoding', line, message: `line ${line}: the file is not valid UTF-8 (byte ${at + 1})` });
    }
  });
});
