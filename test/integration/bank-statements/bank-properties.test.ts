import Decimal from 'decimal.js';
import fc from 'fast-check';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { createBankAccount } from '../../helpers/bank-accounts';
import { ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { bankStatementsApi, waitForImport } from '../../helpers/bank-statements';
import { closing } from '../../unit/bank-statements/fixture';
import { renderOneC, type Statement } from '../../unit/bank-statements/render';
import type { ParsedLine } from '../../../core/bank-statements/statements';

// Random statements (imported as two overlapping files) and random matches and unmatches: at every date, the GL
// bank account's balance (the trial balance, not the reconciliation's own sums) is the statement's balance less
// the lines not matched by then, as a model of the statement and its matches computes them; and the
// reconciliation report says the same, with nothing unexplained.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const ACCOUNT = '20208000900777000001';
const TINS = ['301000001', '301000002', '301000003'];

// A line: its day, direction, amount in tiyin, counterparty, and whether an open invoice of its amount awaits it.
const lineSpec = fc.record({
  day: fc.integer({ min: 1, max: 28 }),
  direction: fc.constantFrom<'IN' | 'OUT'>('IN', 'OUT'),
  cents: fc.integer({ min: 1, max: 50_000_000 }),
  party: fc.integer({ min: 0, max: TINS.length - 1 }),
  invoiced: fc.boolean(),
});

const ops = fc.array(fc.record({ op: fc.constantFrom<'match' | 'unmatch'>('match', 'match', 'unmatch'), pick: fc.nat() }), { maxLength: 12 });

const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}`;
const amountOf = (cents: number) => new Decimal(cents).dividedBy(100).toFixed(2);

test('"GL bank balance = statement closing balance − unmatched lines" at every date, whatever is imported, matched and unmatched', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(lineSpec, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 27 }), ops, async (specs, split, sequence) => {
      const who = await registerWorkspace(stack);
      await saveTaxSettings(stack, who);
      const account = (await createBankAccount(stack, who, { bankCode: '00014', accountNumber: ACCOUNT, name: 'Property account' }).expect(201)).body;
      const parties = await Promise.all(TINS.map((tin, i) => aCounterparty(stack, who, { name: `Party ${i}`, tin })));
      const invoices = invoicesApi(stack, who);
      const sorted = [...specs].sort((a, b) => a.day - b.day);
      for (const [i, s] of sorted.entries()) {
        if (!s.invoiced) continue;
        const line = { description: 'Goods', quantity: '1', unitPrice: amountOf(s.cents), vatRate: null };
        const body =
          s.direction === 'IN'
            ? salesBody(parties[s.party]!, '2026-11-01', { lines: [line] })
            : purchaseBody(parties[s.party]!, '2026-11-01', `P-${i}`, { lines: [{ ...line, account: '1010' }] });
        const draft = (await invoices.create(body).expect(201)).body;
        await invoices.post(draft.id).expect(200);
      }
      const lines: ParsedLine[] = sorted.map((s, i) => ({
        date: day(s.day),
        direction: s.direction,
        amount: amountOf(s.cents),
        counterpartyName: `Party ${s.party}`,
        counterpartyTin: TINS[s.party],
        counterpartyAccount: `2020800010000000${String(s.party).padStart(4, '0')}`,
        purpose: `Payment ${i}`,
      }));
      // Two files overlapping on the split day: the account has their union.
      const statements = bankStatementsApi(stack, who, account.id);
      const upTo = lines.filter((l) => l.date <= day(split));
      const from = lines.filter((l) => l.date >= day(split));
      const opening = closing('0.00', lines.filter((l) => l.date < day(split)));
      for (const file of [
        { periodFrom: day(1), periodTo: day(split), openingBalance: '0.00', closingBalance: closing('0.00', upTo), lines: upTo },
        { periodFrom: day(split), periodTo: day(28), openingBalance: opening, closingBalance: closing(opening, from), lines: from },
      ] satisfies Array<Omit<Statement, 'accountNumber' | 'bankCode' | 'currency'>>) {
        const sent = await statements.import(renderOneC({ ...file, accountNumber: ACCOUNT, bankCode: '00014', currency: 'UZS' })).expect(202);
        expect((await waitForImport(statements, sent.body.id)).status).toBe('COMPLETED');
      }
      const stored = (await statements.lines({ size: 100 }).expect(200)).body.items as Array<{ id: string; date: string; direction: string; amount: string; status: string; counterpartyTin: string }>;
      expect(stored.map((l) => [l.date, l.direction, l.amount])).toEqual(lines.map((l) => [l.date, l.direction, l.amount]));

      // The model: which lines are matched.
      const matched = new Set<string>();
      for (const { op, pick } of sequence) {
        const line = stored[pick % stored.length]!;
        if (op === 'match') {
          const proposed = (await statements.lines({ size: 100 }).expect(200)).body.items.find((l: { id: string }) => l.id === line.id).status === 'PROPOSED';
          const party = parties[TINS.indexOf(line.counterpartyTin)]!;
          const res = await statements.match(line.id, proposed ? { acceptProposal: true } : { counterpartyId: party, allocations: [] });
          if (matched.has(line.id)) expect(res.status).toBe(409);
          else {
            expect(res.status).toBe(200);
            matched.add(line.id);
          }
        } else {
          const res = await statements.unmatch(line.id);
          expect(res.status).toBe(matched.has(line.id) ? 200 : 409);
          matched.delete(line.id);
        }
      }

      const ledger = ledgerApi(stack, who);
      const dates = [...new Set([...stored.map((l) => l.date), day(28)])];
      for (const date of dates) {
        const signed = (l: { direction: string; amount: string }) => (l.direction === 'IN' ? new Decimal(l.amount) : new Decimal(l.amount).negated());
        const upToDate = stored.filter((l) => l.date <= date);
        const statementBalance = upToDate.reduce((s, l) => s.plus(signed(l)), new Decimal(0));
        const unmatched = upToDate.filter((l) => !matched.has(l.id)).reduce((s, l) => s.plus(signed(l)), new Decimal(0));
        const tb = (await ledger.trialBalance(date).expect(200)).body as { lines: Array<{ code: string; balance: string }> };
        const gl = tb.lines.find((l) => l.code === '5110')?.balance ?? '0.00';
        expect({ date, gl }).toEqual({ date, gl: statementBalance.minus(unmatched).toFixed(2) });
        const report = (
          await api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId: account.id, asOf: date }).set(...bearer(who.accessToken)).expect(200)
        ).body;
        expect({ date, ...report }).toMatchObject({
          date,
          statementBalance: statementBalance.toFixed(2),
          ledgerBalance: gl,
          unmatchedStatementLines: { total: unmatched.toFixed(2) },
          unmatchedLedgerLines: { count: 0 },
          unexplained: '0.00',
        });
      }
    }),
    { numRuns: 10, interruptAfterTimeLimit: 150_000 },
  );
}, 240_000);
