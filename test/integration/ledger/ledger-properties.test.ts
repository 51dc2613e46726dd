import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { entryBody, ledgerApi, waitForClose } from '../../helpers/ledger';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';
import { dayBefore } from '../../../core/shared/calendar';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

// Accounts of every normal side: cash, receivables, a contra-asset, payables, equity, income, expense.
const ACCOUNTS = ['5110', '4010', '2980', '6010', '8330', '9010', '9410'];
const DEBIT_NORMAL = new Set(['5110', '4010', '9410']);
const day = (n: number) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().slice(0, 10);

type Op =
  | { kind: 'post'; day: number; lines: Array<{ account: string; cents: number }> }
  | { kind: 'reverse'; pick: number; day: number }
  | { kind: 'close'; day: number };

const postOp = fc.record({
  kind: fc.constant('post' as const),
  day: fc.integer({ min: 0, max: 90 }),
  lines: fc.array(fc.record({ account: fc.constantFrom(...ACCOUNTS), cents: fc.integer({ min: 1, max: 10_000_000 }) }), { minLength: 1, maxLength: 4 }),
});
const reverseOp = fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat(), day: fc.integer({ min: 0, max: 90 }) });
const closeOp = fc.record({ kind: fc.constant('close' as const), day: fc.integer({ min: 0, max: 90 }) });
const ops = fc.array(fc.oneof({ arbitrary: postOp, weight: 5 }, { arbitrary: reverseOp, weight: 2 }, { arbitrary: closeOp, weight: 1 }), {
  minLength: 1,
  maxLength: 14,
});

/** Debits the generated amounts and credits their sum to the first account of the other side: always balanced. */
function linesOf(op: Extract<Op, { kind: 'post' }>) {
  const total = op.lines.reduce((s, l) => s + BigInt(l.cents), 0n);
  return [
    ...op.lines.map((l) => ({ accountCode: l.account, debit: formatMinorUnits(BigInt(l.cents)) })),
    { accountCode: op.lines[0]!.account === '9010' ? '6010' : '9010', credit: formatMinorUnits(total) },
  ];
}

describe('ledger properties', () => {
  test('"random sequences of postings, reversals and closes keep every trial balance balanced and equal to a straightforward recomputation from all lines"', async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        const user = await registerWorkspace(stack);
        const ledger = ledgerApi(stack, user);
        const posted: string[] = [];
        let closedThrough = -1;
        for (const op of sequence) {
          if (op.kind === 'post') {
            const res = await ledger.post(entryBody(day(op.day), linesOf(op)));
            expect(res.status).toBe(op.day <= closedThrough ? 409 : 201);
            if (res.status === 201) posted.push(res.body.id);
          } else if (op.kind === 'reverse' && posted.length > 0) {
            const target = posted[op.pick % posted.length]!;
            const res = await ledger.reverse(target, { requestId: randomUUID(), entryDate: day(op.day), reason: 'property' });
            expect([201, 400, 409]).toContain(res.status);
            if (res.status === 201) posted.push(res.body.id);
          } else if (op.kind === 'close') {
            const res = await ledger.close(day(op.day));
            if (op.day <= closedThrough) {
              expect(res.status).toBe(409);
              continue;
            }
            expect(res.status).toBe(202);
            expect((await waitForClose(ledger, res.body.id)).status).toBe('COMPLETED');
            closedThrough = op.day;
          }
        }
        const lines = await stack.admin.query<{ entry_date: string; account_code: string; debit: string; credit: string }>(
          `SELECT to_char(entry_date, 'YYYY-MM-DD') AS entry_date, account_code, debit, credit FROM journal_lines WHERE tenant_id = :t`,
          { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
        );
        for (const asOf of [day(0), day(30), day(45), day(closedThrough < 0 ? 60 : closedThrough), day(91)]) {
          const expected = new Map<string, { d: bigint; c: bigint }>();
          for (const l of lines.filter((x) => x.entry_date <= asOf)) {
            const sum = expected.get(l.account_code) ?? { d: 0n, c: 0n };
            sum.d += numericToMinorUnits(l.debit);
            sum.c += numericToMinorUnits(l.credit);
            expected.set(l.account_code, sum);
          }
          const tb = (await ledger.trialBalance(asOf).expect(200)).body;
          expect(tb.totalDebit).toBe(tb.totalCredit);
          const actual = Object.fromEntries(tb.lines.map((l: { code: string; debit: string; credit: string; balance: string }) => [l.code, [l.debit, l.credit, l.balance]]));
          const wanted = Object.fromEntries(
            [...expected.entries()].map(([code, s]) => [
              code,
              [formatMinorUnits(s.d), formatMinorUnits(s.c), formatMinorUnits(DEBIT_NORMAL.has(code) ? s.d - s.c : s.c - s.d)],
            ]),
          );
          expect(actual).toEqual(wanted);
        }
        // The turnover sheet of a range opens at the trial balance of the day before it and closes at the one
        // of its last day, whatever snapshots lie in between; its totals balance.
        for (const [from, to] of [
          [day(0), day(30)],
          [day(31), day(59)],
          [day(closedThrough < 0 ? 10 : closedThrough + 1), day(91)],
        ] as const) {
          const sheet = (await ledger.turnoverSheet(from, to).expect(200)).body;
          expect(sheet.totals.openingDebit).toBe(sheet.totals.openingCredit);
          expect(sheet.totals.turnoverDebit).toBe(sheet.totals.turnoverCredit);
          expect(sheet.totals.closingDebit).toBe(sheet.totals.closingCredit);
          const tbAt = async (asOf: string) =>
            new Map(
              (await ledger.trialBalance(asOf).expect(200)).body.lines
                .map((l: { code: string; debit: string; credit: string }) => [l.code, numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit)] as const)
                .filter(([, v]: readonly [string, bigint]) => v !== 0n),
            );
          const side = (d: string, c: string) => numericToMinorUnits(d) - numericToMinorUnits(c);
          type Row = { accountCode: string; openingDebit: string; openingCredit: string; closingDebit: string; closingCredit: string };
          const rows: Row[] = sheet.rows;
          expect(new Map(rows.map((r) => [r.accountCode, side(r.openingDebit, r.openingCredit)] as const).filter(([, v]) => v !== 0n))).toEqual(await tbAt(dayBefore(from)));
          expect(new Map(rows.map((r) => [r.accountCode, side(r.closingDebit, r.closingCredit)] as const).filter(([, v]) => v !== 0n))).toEqual(await tbAt(to));
        }
        // Form 1 balances at every date, and Form 2's net result is the period's income less its expenses.
        for (const asOf of [day(30), day(91)]) {
          const form1 = (await ledger.report('balance-sheet', { asOf }).expect(200)).body.rows;
          const at = (code: string) => form1.find((r: { code: string }) => r.code === code).amount;
          expect(at('400')).toBe(at('780'));
        }
        const form2 = (await ledger.report('financial-results', { from: day(0), to: day(91) }).expect(200)).body.rows;
        const income = lines.filter((l) => l.account_code === '9010').reduce((sum, l) => sum + numericToMinorUnits(l.credit) - numericToMinorUnits(l.debit), 0n);
        const expenses = lines.filter((l) => l.account_code === '9410').reduce((sum, l) => sum + numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit), 0n);
        expect(form2.find((r: { code: string }) => r.code === '270').amount).toBe(formatMinorUnits(income - expenses));
      }),
      { numRuns: 25 },
    );
  }, 240_000);
});
