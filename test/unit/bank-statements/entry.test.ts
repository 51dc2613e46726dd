import Decimal from 'decimal.js';
import fc from 'fast-check';
import { parseBankStatement } from '../../../adapters/bank-statements';
import { statementDifference, type ParsedLine } from '../../../core/bank-statements/statements';
import { refusal, statement } from './fixture';
import { csvProfile, renderCamt, renderCsv, renderMt940, renderOneC } from './render';

describe('parseBankStatement: bounds and the format', () => {
  test('a 21 MB body is refused as too large before it is read, whatever it holds', async () => {
    const body = Buffer.alloc(21 * 1024 * 1024, 0x41);
    renderOneC(statement).copy(body);
    const error = await refusal(body);
    expect(error).toMatchObject({ code: 'too-large', message: `the file is ${body.length} bytes, more than 20971520 (20 MiB)` });
    // Exactly 20 MiB is still read (and refused for what it is: here, text after КонецФайла).
    const limit = Buffer.alloc(20 * 1024 * 1024, 0x41);
    renderOneC(statement).copy(limit);
    expect((await refusal(limit)).code).not.toBe('too-large');
  });

  test('the line limit holds in every format', async () => {
    for (const [bytes, options] of [
      [renderOneC(statement), {}],
      [renderCamt(statement), {}],
      [renderMt940(statement), {}],
      [renderCsv(statement), { profile: csvProfile }],
    ] as const) {
      expect(await refusal(bytes, { ...options, maxLines: 3 })).toMatchObject({ code: 'too-many-lines' });
      expect((await parseBankStatement(bytes, { ...options, maxLines: 4 }))[0]!.lines).toHaveLength(4);
    }
  });

  test('the content type, when given, must name the format the bytes are in', async () => {
    expect(await parseBankStatement(renderOneC(statement), { contentType: 'text/plain; charset=windows-1251' })).toHaveLength(1);
    expect(await parseBankStatement(renderMt940(statement), { contentType: 'text/plain' })).toHaveLength(1);
    expect(await parseBankStatement(renderCamt(statement), { contentType: 'application/xml' })).toHaveLength(1);
    expect(await refusal(renderCamt(statement), { contentType: 'text/plain' })).toMatchObject({ code: 'unsupported-format', message: 'the file reads as camt.053, which is not what text/plain names' });
    expect(await refusal(renderOneC(statement), { contentType: 'text/csv', profile: csvProfile })).toMatchObject({ code: 'unsupported-format' });
  });

  test('a file of no known format, an empty one, a UTF-16 one, and a CSV without a profile are refused', async () => {
    expect(await refusal(Buffer.from('Date,Amount\n2026-11-01,5\n'))).toMatchObject({ code: 'unsupported-format' });
    expect(await refusal(Buffer.alloc(0))).toMatchObject({ code: 'truncated' });
    expect(await refusal(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('1CClientBankExchange', 'utf16le')]))).toMatchObject({ code: 'encoding' });
    expect(await refusal(renderCsv(statement))).toMatchObject({ code: 'unsupported-format' });
  });
});

describe('statementDifference: opening + Σ in − Σ out − closing', () => {
  test('zero when the statement adds up', () => {
    expect(statementDifference(statement)).toBe('0.00');
  });

  test('the signed difference when it does not: a missing line of money in shows as what the closing balance has too much', () => {
    const withoutFirst = { ...statement, lines: statement.lines.slice(1) };
    expect(statementDifference(withoutFirst)).toBe('-4500000.00');
    expect(statementDifference({ ...statement, closingBalance: new Decimal(statement.closingBalance).plus('0.01').toFixed(2) })).toBe('-0.01');
    expect(statementDifference({ ...statement, openingBalance: '1250000.10' })).toBe('0.10');
  });

  test('property: equals the same sum in integer minor units', () => {
    const cents = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });
    const format = (c: bigint) => `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 100n}.${((c < 0n ? -c : c) % 100n).toString().padStart(2, '0')}`;
    fc.assert(
      fc.property(cents, cents, fc.array(fc.tuple(fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 15n })), { maxLength: 20 }), (opening, closing, moves) => {
        const lines: ParsedLine[] = moves.map(([into, c]) => ({ date: '2026-11-01', direction: into ? 'IN' : 'OUT', amount: format(c), purpose: '' }));
        const want = moves.reduce((total, [into, c]) => (into ? total + c : total - c), opening) - closing;
        expect(statementDifference({ openingBalance: format(opening), closingBalance: format(closing), lines })).toBe(format(want));
      }),
    );
  });
});
