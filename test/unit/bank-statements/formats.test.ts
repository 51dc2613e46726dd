import fc from 'fast-check';
import { parseBankStatement } from '../../../adapters/bank-statements';
import type { ParsedLine, ParsedStatement } from '../../../core/bank-statements/statements';
import { closing, fee, statement } from './fixture';
import { csvProfile, expected, renderCamt, renderCsv, renderMt940, renderOneC, renderXlsx, xlsxProfile, type Statement } from './render';

const parse = (bytes: Uint8Array, profile?: Parameters<typeof parseBankStatement>[1]) => parseBankStatement(bytes, profile);

describe('the same statement in every format', () => {
  test('written in 1C (Windows-1251), camt.053, MT940, CSV and XLSX, it reads back as the same lines', async () => {
    const read = {
      '1c': await parse(renderOneC(statement)),
      'camt.053': await parse(renderCamt(statement)),
      mt940: await parse(renderMt940(statement)),
      csv: await parse(renderCsv(statement), { profile: csvProfile }),
      xlsx: await parse(await renderXlsx(statement), { profile: xlsxProfile }),
    };
    for (const [format, statements] of Object.entries(read)) {
      expect(statements).toEqual([expected(statement, format as ParsedStatement['format'])]);
    }
    // The lines themselves agree across formats (1C carries no bank reference).
    const withoutReference = (s: ParsedStatement[]) => s[0]!.lines.map(({ reference: _r, ...rest }) => rest);
    for (const statements of Object.values(read)) expect(withoutReference(statements)).toEqual(withoutReference(read['1c']));
  });

  test('the 1C text reads the same in Windows-1251, in CP866 (Кодировка=DOS) and in UTF-8 with or without a byte order mark', async () => {
    const want = [expected(statement, '1c')];
    expect(await parse(renderOneC(statement, { codePage: 'windows-1251' }))).toEqual(want);
    // CP866 has no guillemets: the names are written with straight quotes there.
    const straight = { ...statement, lines: statement.lines.map((l) => ({ ...l, counterpartyName: l.counterpartyName?.replace(/[«»]/g, '"') })) };
    expect(await parse(renderOneC(straight, { codePage: 'cp866' }))).toEqual([expected(straight, '1c')]);
    expect(await parse(renderOneC(statement, { codePage: 'utf-8' }))).toEqual(want);
    expect(await parse(renderOneC(statement, { codePage: 'utf-8', bom: true }))).toEqual(want);
  });

  test('two genuinely identical rows in one file are both kept, in every format (parsers never de-duplicate)', async () => {
    const files: [Uint8Array, Parameters<typeof parseBankStatement>[1]][] = [
      [renderOneC(statement), {}],
      [renderCamt(statement), {}],
      [renderMt940(statement), {}],
      [renderCsv(statement), { profile: csvProfile }],
      [await renderXlsx(statement), { profile: xlsxProfile }],
    ];
    for (const [bytes, options] of files) {
      const [read] = await parse(bytes, options);
      const fees = read!.lines.filter((l) => l.purpose === fee.purpose);
      expect(fees).toHaveLength(2);
      expect(fees[0]).toEqual(fees[1]);
    }
  });
});

// Text the formats all carry: Cyrillic (Windows-1251's, with Uzbek ў), Latin, digits and punctuation that
// each format must escape or quote (&, <, ", ;, ,). Words are joined by single spaces and trimmed, as every
// parser trims a field.
const CHARS = 'абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯўЎabcxyzABCXYZ0123456789.,"№()&<>\'%;';
const word = fc.string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 12 });
const text = (maxWords: number) => fc.array(word, { minLength: 1, maxLength: maxWords }).map((words) => words.join(' '));
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
const code = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: 1, maxLength: 16 });
const cents = (min: number) => fc.bigInt({ min: BigInt(min), max: 99_999_999_999_99n });
const amountOf = (c: bigint) => `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 100n}.${((c < 0n ? -c : c) % 100n).toString().padStart(2, '0')}`;
const day = fc.integer({ min: 1, max: 30 }).map((d) => `2026-11-${String(d).padStart(2, '0')}`);

const line: fc.Arbitrary<ParsedLine> = fc
  .record(
    {
      date: day,
      direction: fc.constantFrom('IN' as const, 'OUT' as const),
      amount: cents(1).map(amountOf),
      reference: code,
      counterpartyName: text(6),
      counterpartyTin: digits(9),
      counterpartyAccount: digits(20),
      counterpartyBankCode: digits(5),
      purpose: fc.oneof(text(30), fc.constant('')),
      documentNumber: code,
    },
    { requiredKeys: ['date', 'direction', 'amount', 'purpose'] },
  )
  .map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as unknown as ParsedLine);

const randomStatement: fc.Arbitrary<Statement> = fc
  .record({ accountNumber: digits(20), bankCode: digits(5), opening: fc.bigInt({ min: -99_999_999_99n, max: 99_999_999_999_99n }), lines: fc.array(line, { maxLength: 8 }) })
  .map(({ accountNumber, bankCode, opening, lines: ls }) => ({
    accountNumber,
    bankCode,
    currency: 'UZS',
    periodFrom: '2026-11-01',
    periodTo: '2026-11-30',
    openingBalance: amountOf(opening),
    closingBalance: closing(amountOf(opening), ls),
    lines: ls,
  }));

describe('property: a random statement written in each format reads back as the statement', () => {
  test.each([
    ['1c', (s: Statement) => renderOneC(s), undefined],
    ['camt.053', renderCamt, undefined],
    ['mt940', renderMt940, undefined],
    ['csv', renderCsv, csvProfile],
  ] as const)('%s', async (format, render, profile) => {
    await fc.assert(
      fc.asyncProperty(randomStatement, async (s) => {
        expect(await parse(render(s), { profile })).toEqual([expected(s, format)]);
      }),
      { numRuns: 150 },
    );
  });

  test('xlsx', async () => {
    await fc.assert(
      fc.asyncProperty(randomStatement, async (s) => {
        expect(await parse(await renderXlsx(s), { profile: xlsxProfile })).toEqual([expected(s, 'xlsx')]);
      }),
      { numRuns: 20 },
    );
  });
});
