import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { withShortLockWaits } from '../../helpers/schema-changes';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

async function company(): Promise<{ user: Registered; ledger: ReturnType<typeof ledgerApi> }> {
  const user = await registerWorkspace(stack);
  return { user, ledger: ledgerApi(stack, user) };
}

describe('reverseJournalEntry: POST /api/v1/ledger/{legalEntityId}/entries/{entryId}/reversal', () => {
  test('"the mirror entry, linked both ways"', async () => {
    const { ledger } = await company();
    const original = await ledger.post(entryBody('2025-04-01', [{ accountCode: '5110', debit: '80' }, { accountCode: '6410', credit: '30' }, { accountCode: '9010', credit: '50' }])).expect(201);
    const reversal = await ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-04-02', reason: 'wrong customer' }).expect(201);
    expect(reversal.body).toMatchObject({ number: 2, entryDate: '2025-04-02', reversalOf: original.body.id, reversedBy: null, totalDebit: '80.00' });
    expect(reversal.body.description).toBe('Reversal of entry #1: wrong customer');
    expect(reversal.body.lines.map((l: { accountCode: string; debit: string; credit: string }) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['5110', '0.00', '80.00'],
      ['6410', '30.00', '0.00'],
      ['9010', '50.00', '0.00'],
    ]);
    expect((await ledger.get(original.body.id).expect(200)).body.reversedBy).toBe(reversal.body.id);
    const tb = await ledger.trialBalance('2025-04-30').expect(200);
    expect(tb.body.lines.map((l: { balance: string }) => l.balance)).toEqual(['0.00', '0.00', '0.00']);
  });

  test('"at most once": a second reversal is 409, and of ten at once exactly one wins', async () => {
    const { ledger } = await company();
    const original = await ledger.post(simpleEntry('2025-04-01', '10')).expect(201);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-04-03', reason: 'duplicate' })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.type).toBe('/problems/entry-already-reversed');
    }
  });

  test('"never of a reversal": 409 entry-not-reversible', async () => {
    const { ledger } = await company();
    const original = await ledger.post(simpleEntry('2025-04-01', '10')).expect(201);
    const reversal = await ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-04-01', reason: 'oops' }).expect(201);
    const res = await ledger.reverse(reversal.body.id, { requestId: randomUUID(), entryDate: '2025-04-05', reason: 'undo' }).expect(409);
    expect(res.body.type).toBe('/problems/entry-not-reversible');
  });

  test('a repeated requestId returns the same reversal; an unknown entry is 404; a date before the original is 400', async () => {
    const { ledger } = await company();
    const original = await ledger.post(simpleEntry('2025-04-10', '10')).expect(201);
    const body = { requestId: randomUUID(), entryDate: '2025-04-11', reason: 'typo' };
    const first = await ledger.reverse(original.body.id, body).expect(201);
    expect((await ledger.reverse(original.body.id, body).expect(201)).body.id).toBe(first.body.id);
    await ledger.reverse(randomUUID(), { ...body, requestId: randomUUID() }).expect(404);
    const other = await ledger.post(simpleEntry('2025-04-10', '5')).expect(201);
    await ledger.reverse(other.body.id, { requestId: randomUUID(), entryDate: '2025-04-09', reason: 'early' }).expect(400);
  });

  test('"dated after the last close": reversing into a closed period is 409; after it, fine', async () => {
    const { ledger } = await company();
    const original = await ledger.post(simpleEntry('2025-05-10', '10')).expect(201);
    const close = await ledger.close('2025-05-31').expect(202);
    await waitForClose(ledger, close.body.id);
    const res = await ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-05-31', reason: 'late' }).expect(409);
    expect(res.body.type).toBe('/problems/period-closed');
    await ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-06-01', reason: 'in the next period' }).expect(201);
  });

  test('when the entry has a line on a header account written before that rule, then its reversal is 400 header-account and nothing is posted; the journal, the trial balance and a close still read it', async () => {
    const { user, ledger } = await company();
    await ledger.post(simpleEntry('2025-07-01', '10')).expect(201);
    // An entry from before the rule, arranged by hand with the rule's trigger off in this transaction only.
    const [legacy] = await withShortLockWaits(stack.admin, async (tx) => {
      await stack.admin.query('ALTER TABLE journal_lines DISABLE TRIGGER journal_lines_detail_account', { transaction: tx });
      const rows = await stack.admin.query<{ id: string }>(
        `WITH e AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
                     VALUES (:t, gen_random_uuid(), :le, 1000, '2025-07-02', 'on a header', gen_random_uuid(), 'x', 7, 7, 2, gen_random_uuid()) RETURNING id, number),
              l AS (INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
                    SELECT :t, e.id, e.number, n, :le, '2025-07-02', CASE n WHEN 1 THEN '5100' ELSE '9010' END, CASE n WHEN 1 THEN 7 ELSE 0 END, CASE n WHEN 1 THEN 0 ELSE 7 END
                      FROM e, generate_series(1, 2) n)
         SELECT id FROM e`,
        { replacements: { t: user.me.tenantId, le: user.me.company.id }, transaction: tx, type: QueryTypes.SELECT },
      );
      await stack.admin.query('ALTER TABLE journal_lines ENABLE TRIGGER journal_lines_detail_account', { transaction: tx });
      return rows;
    });
    const reversal = await ledger.reverse(legacy!.id, { requestId: randomUUID(), entryDate: '2025-07-03', reason: 'wrong account' }).expect(400);
    expect(reversal.body).toMatchObject({ type: '/problems/header-account', errors: [{ message: 'line 1: 5100 is a header account; post to one of its detail accounts (5110)' }] });
    expect(reversal.body.errors[0].path).toBeUndefined();
    const journal = await ledger.list().expect(200);
    expect(journal.body.items.map((e: { number: number; reversedBy: string | null }) => [e.number, e.reversedBy])).toEqual([[1, null], [1000, null]]);
    expect(journal.body.items[1].lines.map((l: { accountCode: string }) => l.accountCode)).toEqual(['5100', '9010']);
    const tb = await ledger.trialBalance('2025-07-31').expect(200);
    expect(tb.body.lines.map((l: { code: string; balance: string }) => [l.code, l.balance])).toEqual([['5100', '7.00'], ['5110', '10.00'], ['9010', '17.00']]);
    const close = await ledger.close('2025-07-31').expect(202);
    const done = await waitForClose(ledger, close.body.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.balances.map((b: { accountCode: string }) => b.accountCode)).toEqual(['5100', '5110', '9010']);
  });
});

