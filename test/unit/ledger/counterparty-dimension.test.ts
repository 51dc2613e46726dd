import { createHash } from 'node:crypto';
import { isSettlementAccount } from '../../../core/ledger/accounts';
import { checkPosting, prepareEntry, prepareReversal, type PostingFacts } from '../../../core/ledger/journal';
import { AppError } from '../../../core/shared/problems';

const CP = '0b9c7a52-4d8e-4e0a-9f5c-2a1b3c4d5e6f';

function problemOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('isSettlementAccount', () => {
  test.each([
    ['4000', true],
    ['4010', true],
    ['4890', true],
    ['4891', false],
    ['3999', false],
    ['6000', true],
    ['6010', true],
    ['6399', true],
    ['6400', false],
    ['6410', false],
    ['6499', false],
    ['6500', true],
    ['6699', true],
    ['6700', false],
    ['6710', false],
    ['6799', false],
    ['6800', true],
    ['6990', true],
    ['6991', false],
    ['5110', false],
    ['9010', false],
    ['401', false],
    ['40100', false],
  ])('%s → %s', (code, expected) => {
    expect(isSettlementAccount(code)).toBe(expected);
  });
});

describe('a line\'s counterpartyId in prepareEntry and the request hash', () => {
  const input = (counterparty?: string | null) => ({
    entryDate: '2026-01-15',
    description: 'Sale',
    lines: [
      { accountCode: '4010', debit: '100', credit: '0', ...(counterparty === undefined ? {} : { counterpartyId: counterparty }) },
      { accountCode: '9010', debit: '0', credit: '100' },
    ],
  });

  test('a body without counterpartyId hashes exactly as before the field existed (and so does an explicit null)', () => {
    // The hash as it was computed before lines had counterparties: a UZS line without the currency fields.
    const before = createHash('sha256')
      .update(
        JSON.stringify({
          entryDate: '2026-01-15',
          description: 'Sale',
          reference: null,
          lines: [
            { lineNo: 1, accountCode: '4010', subaccountId: null, debit: '100.00', credit: '0.00', memo: null },
            { lineNo: 2, accountCode: '9010', subaccountId: null, debit: '0.00', credit: '100.00', memo: null },
          ],
        }),
      )
      .digest('hex');
    expect(prepareEntry(input()).hash).toBe(before);
    expect(prepareEntry(input(null)).hash).toBe(before);
  });

  test('a counterparty is part of the content: with one the hash differs, and differs per counterparty', () => {
    const without = prepareEntry(input()).hash;
    const withOne = prepareEntry(input(CP)).hash;
    expect(withOne).not.toBe(without);
    expect(prepareEntry(input('1b9c7a52-4d8e-4e0a-9f5c-2a1b3c4d5e6f')).hash).not.toBe(withOne);
    expect(prepareEntry(input(CP)).lines.map((l) => l.counterpartyId)).toEqual([CP, null]);
  });

  test('a reversal keeps each line\'s counterparty', () => {
    const { lines } = prepareEntry(input(CP));
    const reversal = prepareReversal({ id: 'e1', number: 1, reference: null, totalDebit: '100.00', lines }, { entryDate: '2026-02-01', reason: 'typo' });
    expect(reversal.lines.map((l) => [l.accountCode, l.counterpartyId, l.debit, l.credit])).toEqual([
      ['4010', CP, '0.00', '100.00'],
      ['9010', null, '100.00', '0.00'],
    ]);
  });
});

describe('checkPosting: counterparties', () => {
  const facts = (over: Partial<PostingFacts> = {}): PostingFacts => ({
    company: { archived: false },
    replayed: false,
    knownCodes: new Set(['4010', '9010', '6410', '6010']),
    headerDetails: new Map(),
    subaccountParents: new Map(),
    counterparties: new Map([[CP, { archived: false }]]),
    requireCounterpartyOnSettlements: false,
    ...over,
  });
  const lines = (counterparty: string | null, code = '4010') =>
    prepareEntry({ entryDate: '2026-01-15', description: 'x', lines: [{ accountCode: code, debit: '1', credit: '0', counterpartyId: counterparty }, { accountCode: '9010', debit: '0', credit: '1' }] }).lines;

  test('a known, active counterparty passes', () => {
    expect(checkPosting(facts(), lines(CP), false)).toEqual({ replayed: false });
  });

  test('an unknown counterparty is 400 unknown-counterparty naming the line', () => {
    const problem = problemOf(() => checkPosting(facts({ counterparties: new Map() }), lines(CP), false));
    expect(problem.type).toBe('unknown-counterparty');
    expect(problem.extensions.errors).toEqual([{ path: '/body/lines/0/counterpartyId', message: 'line 1: no counterparty with this id in this company' }]);
  });

  test('an archived counterparty is 400 unknown-counterparty; a reversal is not checked again', () => {
    const archived = facts({ counterparties: new Map([[CP, { archived: true }]]) });
    const problem = problemOf(() => checkPosting(archived, lines(CP), false));
    expect(problem.type).toBe('unknown-counterparty');
    expect(problem.extensions.errors).toEqual([{ path: '/body/lines/0/counterpartyId', message: 'line 1: the counterparty is archived' }]);
    expect(checkPosting(archived, lines(CP), true)).toEqual({ replayed: false });
  });

  test('with the setting on, a settlement line without a counterparty is 400 counterparty-required; other accounts and the setting off pass', () => {
    const on = facts({ requireCounterpartyOnSettlements: true });
    const problem = problemOf(() => checkPosting(on, lines(null, '4010'), false));
    expect(problem.type).toBe('counterparty-required');
    expect(problem.extensions.errors).toEqual([
      { path: '/body/lines/0/counterpartyId', message: "line 1: 4010 is a settlement account; name the line's counterparty" },
    ]);
    expect(problemOf(() => checkPosting(on, lines(null, '6010'), false)).type).toBe('counterparty-required');
    expect(checkPosting(on, lines(null, '6410'), false)).toEqual({ replayed: false });
    expect(checkPosting(on, lines(CP, '4010'), false)).toEqual({ replayed: false });
    expect(checkPosting(facts(), lines(null, '4010'), false)).toEqual({ replayed: false });
    expect(checkPosting(on, lines(null, '4010'), true)).toEqual({ replayed: false });
  });
});
