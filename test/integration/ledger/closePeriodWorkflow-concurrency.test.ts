import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { numericToMinorUnits } from '../../../core/ledger/money';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('closePeriodWorkflow under concurrent posting', () => {
  test('"a posting that commits before the cut-off is counted, one after it is rejected, never lost and never counted twice"', async () => {
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    const closeDate = '2025-07-31';
    const outcomes: Array<{ requestId: string; date: string; status: number }> = [];
    let stop = false;

    async function client(n: number) {
      for (let i = 0; !stop; i++) {
        const date = (n + i) % 3 === 0 ? '2025-08-01' : `2025-07-${String(1 + ((n * 7 + i) % 31)).padStart(2, '0')}`;
        const body = simpleEntry(date, `${1 + ((n + i) % 97)}.${String(i % 100).padStart(2, '0')}`);
        const res = await ledger.post(body);
        outcomes.push({ requestId: body.requestId, date, status: res.status });
      }
    }
    const clients = Array.from({ length: 8 }, (_, n) => client(n));
    await new Promise((r) => setTimeout(r, 700));
    const close = await ledger.close(closeDate).expect(202);
    const done = await waitForClose(ledger, close.body.id);
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(clients);

    expect(done.status).toBe('COMPLETED');
    expect(outcomes.every((o) => o.status === 201 || (o.status === 409 && o.date <= closeDate))).toBe(true);
    const accepted = outcomes.filter((o) => o.status === 201);
    const rejected = outcomes.filter((o) => o.status === 409);
    expect(accepted.filter((o) => o.date <= closeDate).length).toBeGreaterThan(0);
    expect(rejected.length).toBeGreaterThan(0);

    const rows = await stack.admin.query<{ request_id: string; entry_date: string }>(
      `SELECT request_id, to_char(entry_date, 'YYYY-MM-DD') AS entry_date FROM journal_entries WHERE tenant_id = :t`,
      { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    // Never lost: every 201 is in the ledger; and no 409 is.
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(accepted.map((o) => o.requestId)));
    // Counted once: the close counts exactly the entries dated in the period, and its snapshot equals their lines.
    expect(done.entryCount).toBe(rows.filter((r) => r.entry_date <= closeDate).length);
    const [sums] = await stack.admin.query<{ d: string; c: string }>(
      `SELECT sum(debit)::text AS d, sum(credit)::text AS c FROM journal_lines WHERE tenant_id = :t AND entry_date <= :closeDate`,
      { replacements: { t: user.me.tenantId, closeDate }, type: QueryTypes.SELECT },
    );
    const snapshotDebit = done.balances.reduce((s: bigint, b: { debitTotal: string }) => s + numericToMinorUnits(b.debitTotal), 0n);
    expect(snapshotDebit).toBe(numericToMinorUnits(sums!.d));
    expect(sums!.d).toBe(sums!.c);
  }, 120_000);
});
