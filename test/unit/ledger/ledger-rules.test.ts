import fc from 'fast-check';
import { checkPosting, MAX_ENTRY_TOTAL, prepareEntry, prepareReversal, type PostingFacts } from '../../../core/ledger/journal';
import { formatMinorUnits, toMinorUnits } from '../../../core/ledger/money';
import { AppError } from '../../../core/shared/problems';

// The ledger's pure rules (core/ledger/journal.ts); the same rules hold in the database (see the ledger's integration tests).

const amount = fc.bigInt({ min: 1n, max: 10n ** 12n }).map(formatMinorUnits);
/** A balanced entry: debits and credits of random amounts whose sums are equal. */
const balancedLines = fc
  .tuple(fc.array(amount, { minLength: 1, maxLength: 20 }), fc.array(amount, { minLength: 0, maxLength: 19 }))
  .map(([debits, credits]) => {
    const debitSum = debits.reduce((s, a) => s + toMinorUnits(a), 0n);
    const creditSum = credits.reduce((s, a) => s + toMinorUnits(a), 0n);
    // One more credit line closes the difference (or a debit line, when credits are larger).
    const gap = debitSum - creditSum;
    const closing = gap > 0n ? [{ side: 'credit', value: gap }] : gap < 0n ? [{ side: 'debit', value: -gap }] : [];
    return [
      ...debits.map((a) => ({ accountCode: '5110', debit: a, credit: '0' })),
      ...credits.map((a) => ({ accountCode: '9010', debit: '0', credit: a })),
      ...closing.map((c) => ({ accountCode: '6010', debit: c.side === 'debit' ? formatMinorUnits(c.value) : '0', credit: c.side === 'credit' ? formatMinorUnits(c.value) : '0' })),
    ];
  })
  .filter((lines) => lines.length >= 2);

const entry = (lines: Array<{ accountCode: string; debit: string; credit: string }>) => ({ entryDate: '2026-01-15', description: 'Test', lines });

function problemOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('no problem thrown');
}

describe('prepareEntry', () => {
  test('a balanced entry is prepared: every line keeps one side, and the total is the sum of either side', () => {
    fc.assert(
      fc.property(balancedLines, (lines) => {
        const prepared = prepareEntry(entry(lines));
        const debits = prepared.lines.reduce((s, l) => s + toMinorUnits(l.debit), 0n);
        const credits = prepared.lines.reduce((s, l) => s + toMinorUnits(l.credit), 0n);
        expect(debits).toBe(credits);
        expect(prepared.total).toBe(debits);
        for (const l of prepared.lines) expect((toMinorUnits(l.debit) > 0n) !== (toMinorUnits(l.credit) > 0n)).toBe(true);
        expect(prepared.lines.map((l) => l.lineNo)).toEqual(lines.map((_, i) => i + 1));
      }),
    );
  });

  test('"debits equal credits": one minor unit off either way is 400 entry-unbalanced with both totals', () => {
    fc.assert(
      fc.property(balancedLines, fc.boolean(), (lines, up) => {
        const first = lines[0]!;
        const nudged = formatMinorUnits(toMinorUnits(first.debit) + (up ? 1n : -1n));
        fc.pre(toMinorUnits(nudged) > 0n);
        const problem = problemOf(() => prepareEntry(entry([{ ...first, debit: nudged }, ...lines.slice(1)])));
        expect(problem.type).toBe('entry-unbalanced');
        expect(problem.extensions.totalDebit).not.toBe(problem.extensions.totalCredit);
      }),
    );
  });

  test('a line with both sides, or neither, is 400 validation naming the line', () => {
    for (const line of [{ debit: '1.00', credit: '1.00' }, { debit: '0', credit: '0.00' }]) {
      const problem = problemOf(() => prepareEntry(entry([{ accountCode: '5110', debit: '5.00', credit: '0' }, { accountCode: '9010', ...line }])));
      expect(problem.type).toBe('validation');
      expect(problem.extensions.errors).toEqual([{ path: '/body/lines/1', message: 'must have exactly one of debit and credit above zero' }]);
    }
  });

  test('totals beyond what NUMERIC(20,2) holds are 400 validation, before anything is written', () => {
    // A line holds at most 16 digits before the point, so it takes 101 of the largest lines per side.
    const largest = '9999999999999999.99';
    expect(101n * toMinorUnits(largest)).toBeGreaterThan(MAX_ENTRY_TOTAL);
    const lines = [
      ...Array.from({ length: 101 }, () => ({ accountCode: '5110', debit: largest, credit: '0' })),
      ...Array.from({ length: 101 }, () => ({ accountCode: '9010', debit: '0', credit: largest })),
    ];
    expect(problemOf(() => prepareEntry(entry(lines))).type).toBe('validation');
  });

  test('amounts are normalised before hashing: "42" and "42.00" are the same request, another amount is not', () => {
    const a = prepareEntry(entry([{ accountCode: '5110', debit: '42', credit: '0' }, { accountCode: '9010', debit: '0', credit: '42.0' }]));
    const b = prepareEntry(entry([{ accountCode: '5110', debit: '42.00', credit: '0' }, { accountCode: '9010', debit: '0', credit: '42.00' }]));
    const c = prepareEntry(entry([{ accountCode: '5110', debit: '42.01', credit: '0' }, { accountCode: '9010', debit: '0', credit: '42.01' }]));
    expect(a.hash).toBe(b.hash);
    expect(c.hash).not.toBe(a.hash);
  });
});

describe('prepareReversal', () => {
  test('mirrors every line, keeps the total, and reversing the mirror gives the original lines back', () => {
    fc.assert(
      fc.property(balancedLines, (lines) => {
        const posted = prepareEntry(entry(lines));
        const original = { id: 'e1', number: 7, reference: null, totalDebit: formatMinorUnits(posted.total), lines: posted.lines };
        const reversal = prepareReversal(original, { entryDate: '2026-02-01', reason: 'typo' });
        expect(reversal.total).toBe(posted.total);
        expect(reversal.reversalOf).toBe('e1');
        expect(reversal.description).toBe('Reversal of entry #7: typo');
        reversal.lines.forEach((l, i) => expect([l.debit, l.credit]).toEqual([posted.lines[i]!.credit, posted.lines[i]!.debit]));
        const back = prepareReversal({ ...original, id: 'e2', lines: reversal.lines }, { entryDate: '2026-02-02', reason: 'again' });
        expect(back.lines).toEqual(posted.lines);
      }),
    );
  });

  test('the same reversal request hashes the same; another date or reason does not', () => {
    const original = { id: 'e1', number: 1, reference: 'INV-1', totalDebit: '10.00', lines: [] };
    const a = prepareReversal(original, { entryDate: '2026-02-01', reason: 'typo' });
    expect(prepareReversal(original, { entryDate: '2026-02-01', reason: 'typo' }).hash).toBe(a.hash);
    expect(prepareReversal(original, { entryDate: '2026-02-02', reason: 'typo' }).hash).not.toBe(a.hash);
    expect(prepareReversal(original, { entryDate: '2026-02-01', reason: 'other' }).hash).not.toBe(a.hash);
  });
});

describe('checkPosting', () => {
  const lines = prepareEntry(entry([{ accountCode: '5110', debit: '5.00', credit: '0' }, { accountCode: '5100', debit: '0', credit: '5.00' }])).lines;
  const facts = (over: Partial<PostingFacts> = {}): PostingFacts => ({
    company: { archived: false },
    replayed: false,
    knownCodes: new Set(['5110', '5100']),
    headerDetails: new Map(),
    subaccountParents: new Map(),
    ...over,
  });

  test('an unknown company is 404; a replay is answered before the archive and account checks', () => {
    expect(problemOf(() => checkPosting(facts({ company: null }), lines, false)).type).toBe('not-found');
    expect(checkPosting(facts({ replayed: true, company: { archived: true }, knownCodes: new Set() }), lines, false)).toEqual({ replayed: true });
    expect(problemOf(() => checkPosting(facts({ company: { archived: true } }), lines, false)).type).toBe('company-archived');
  });

  test('unknown accounts come first, one error per line; then header accounts, one error per line', () => {
    const unknown = problemOf(() => checkPosting(facts({ knownCodes: new Set(['5110']), headerDetails: new Map([['5100', ['5110']]]) }), lines, false));
    expect(unknown.type).toBe('unknown-account');
    expect(unknown.extensions.errors).toEqual([{ path: '/body/lines/1/accountCode', message: "no account 5100 in this company's chart" }]);
    const header = problemOf(() => checkPosting(facts({ headerDetails: new Map([['5100', ['5110', '5120']]]) }), lines, false));
    expect(header.type).toBe('header-account');
    expect(header.extensions.errors).toEqual([
      { path: '/body/lines/1/accountCode', message: 'line 2: 5100 is a header account; post to one of its detail accounts (5110, 5120)' },
    ]);
    const reversal = problemOf(() => checkPosting(facts({ headerDetails: new Map([['5100', ['5110']]]) }), lines, true));
    expect(reversal.extensions.errors).toEqual([{ message: 'line 2: 5100 is a header account; post to one of its detail accounts (5110)' }]);
  });

  test('a subaccount must belong to the line\'s account', () => {
    const withSub = lines.map((l, i) => (i === 0 ? { ...l, subaccountId: 's1' } : l));
    expect(checkPosting(facts({ subaccountParents: new Map([['s1', '5110']]) }), withSub, false)).toEqual({ replayed: false });
    const wrong = problemOf(() => checkPosting(facts({ subaccountParents: new Map([['s1', '9010']]) }), withSub, false));
    expect(wrong.extensions.errors).toEqual([{ path: '/body/lines/0/subaccountId', message: 'not a subaccount of 5110 in this company' }]);
  });
});
