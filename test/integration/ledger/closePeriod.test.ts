import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, holdSnapshotStep, ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { periodCloseWorkflowId } from '../../../contracts/workflow-ids';

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
    const [legacy] = await stack.admin.transaction(async (tx) => {
      await stack.admin.query('ALTER TABLE journal_lines DISABLE TRIGGER journal_lines_detail_account', { transaction: tx });
      const rows = await stack.admin.query<{ id: string }>(
        `WITH e AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
                     VALUES (:t, gen_random_uuid(), :le, 1000, '2025-07-02', 'on a header', gen_random_uuid(), 'x', 7, 7, 2, gen_random_uuid()) RETURNING id),
              l AS (INSERT INTO journal_lines (tenant_id, entry_id, line_no, legal_entity_id, entry_date, account_code, debit, credit)
                    SELECT :t, e.id, n, :le, '2025-07-02', CASE n WHEN 1 THEN '5100' ELSE '9010' END, CASE n WHEN 1 THEN 7 ELSE 0 END, CASE n WHEN 1 THEN 0 ELSE 7 END
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

describe('getTrialBalance: GET /api/v1/ledger/{legalEntityId}/trial-balance', () => {
  test('"balances on each account\'s normal side; totals balance", as of any date', async () => {
    const { ledger } = await company();
    await ledger.post(simpleEntry('2025-01-05', '1000.00', '5110', '8330')).expect(201); // capital in
    await ledger.post(simpleEntry('2025-01-10', '300.00', '4010', '9010')).expect(201); // sale on credit
    await ledger.post(simpleEntry('2025-01-20', '120.50', '9410', '5110')).expect(201); // expense paid
    await ledger.post(simpleEntry('2025-02-01', '300.00', '5110', '4010')).expect(201); // customer pays
    const jan = await ledger.trialBalance('2025-01-31').expect(200);
    expect(jan.body).toMatchObject({ asOf: '2025-01-31', basedOnCloseId: null, totalDebit: '1420.50', totalCredit: '1420.50' });
    const byCode = Object.fromEntries(jan.body.lines.map((l: { code: string }) => [l.code, l]));
    expect(byCode['5110']).toMatchObject({ type: 'ASSET', debit: '1000.00', credit: '120.50', balance: '879.50' });
    expect(byCode['8330']).toMatchObject({ type: 'EQUITY', debit: '0.00', credit: '1000.00', balance: '1000.00' });
    expect(byCode['9010']).toMatchObject({ type: 'INCOME', balance: '300.00' });
    expect(byCode['9410']).toMatchObject({ type: 'EXPENSE', balance: '120.50' });
    expect(jan.body.lines.map((l: { code: string }) => l.code)).toEqual(['4010', '5110', '8330', '9010', '9410']);
    const early = await ledger.trialBalance('2025-01-07').expect(200);
    expect(early.body.lines.map((l: { code: string }) => l.code)).toEqual(['5110', '8330']);
    const feb = await ledger.trialBalance('2025-02-28').expect(200);
    expect(Object.fromEntries(feb.body.lines.map((l: { code: string; balance: string }) => [l.code, l.balance]))).toMatchObject({ '4010': '0.00', '5110': '1179.50' });
  });

  test('"the last snapshot at or before that date plus the lines after it": reads start from the close', async () => {
    const { ledger } = await company();
    await ledger.post(simpleEntry('2025-01-05', '100.00')).expect(201);
    const close = await ledger.close('2025-01-31').expect(202);
    await waitForClose(ledger, close.body.id);
    await ledger.post(simpleEntry('2025-02-05', '50.00')).expect(201);
    const after = await ledger.trialBalance('2025-02-28').expect(200);
    expect(after.body.basedOnCloseId).toBe(close.body.id);
    expect(after.body.totalDebit).toBe('150.00');
    const before = await ledger.trialBalance('2025-01-30').expect(200);
    expect(before.body.basedOnCloseId).toBeNull();
    expect(before.body.totalDebit).toBe('100.00');
  });
});

describe('closePeriod, getPeriodClose and listPeriodCloses (periodCloseWorkflow)', () => {
  test('"GET .../periods/{closeId} shows RUNNING, then COMPLETED" with the closing balances and entry count', async () => {
    const { user, ledger } = await company();
    await ledger.post(simpleEntry('2025-03-05', '100.00')).expect(201);
    await ledger.post(simpleEntry('2025-03-06', '40.00', '9410', '5110')).expect(201);
    await ledger.post(simpleEntry('2025-04-01', '7.00')).expect(201);
    const res = await ledger.close('2025-03-31').expect(202);
    expect(res.body).toMatchObject({ closeDate: '2025-03-31', status: 'RUNNING', completedAt: null, entryCount: null });
    const done = await waitForClose(ledger, res.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', entryCount: 2, failureReason: null });
    expect(done.balances).toEqual([
      { accountCode: '5110', subaccountId: null, debitTotal: '100.00', creditTotal: '40.00', balance: '60.00', normalSide: 'DEBIT' },
      { accountCode: '9010', subaccountId: null, debitTotal: '0.00', creditTotal: '100.00', balance: '100.00', normalSide: 'CREDIT' },
      { accountCode: '9410', subaccountId: null, debitTotal: '40.00', creditTotal: '0.00', balance: '40.00', normalSide: 'DEBIT' },
    ]);
    const list = await ledger.closes().expect(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual(done);
    // The workflow carries a readable id and the tenant as a search attribute.
    const handle = stack.temporal.workflow.getHandle(periodCloseWorkflowId(user.me.company.id, '2025-03-31'));
    expect((await handle.result()).status).toBe('COMPLETED');
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().find((p) => p.key.name === 'TenantId')?.value).toBe(user.me.tenantId);
    const events = await stack.admin.query<{ action: string; system_actor: boolean }>(
      `SELECT action, system_actor FROM audit_events WHERE tenant_id = :t AND subject_id = :id ORDER BY occurred_at`,
      { replacements: { t: user.me.tenantId, id: res.body.id }, type: QueryTypes.SELECT },
    );
    expect(events).toEqual([
      { action: 'ledger.period.close-requested', system_actor: false },
      { action: 'ledger.period.closed', system_actor: true },
    ]);
  });

  test('"nothing dated at or before the last close can be added": posting into it is 409; the next day is fine', async () => {
    const { ledger } = await company();
    const close = await ledger.close('2025-03-31').expect(202);
    await waitForClose(ledger, close.body.id);
    const res = await ledger.post(simpleEntry('2025-03-31', '1')).expect(409);
    expect(res.body).toMatchObject({ type: '/problems/period-closed', closedThrough: '2025-03-31' });
    await ledger.post(simpleEntry('2025-02-01', '1')).expect(409);
    await ledger.post(simpleEntry('2025-04-01', '1')).expect(201);
  });

  test('"even by a buggy code path": the database refuses lines and entries dated in a closed period', async () => {
    const { user, ledger } = await company();
    const entry = await ledger.post(simpleEntry('2025-03-10', '5')).expect(201);
    const close = await ledger.close('2025-03-31').expect(202);
    await waitForClose(ledger, close.body.id);
    await expect(
      stack.admin.query(
        `INSERT INTO journal_lines (tenant_id, entry_id, line_no, legal_entity_id, entry_date, account_code, debit, credit)
         VALUES (:t, :e, 3, :le, '2025-03-10', '5110', 1, 0)`,
        { replacements: { t: user.me.tenantId, e: entry.body.id, le: user.me.company.id } },
      ),
    ).rejects.toThrow(/closed through 2025-03-31/);
    const snapshot = `UPDATE period_close_balances SET debit_total = 0 WHERE close_id = :id`;
    await expect(stack.admin.query(snapshot, { replacements: { id: close.body.id } })).rejects.toThrow(/append-only/);
  });

  test('closeDate rules: not today or later (400), not at or before the last close (409), one at a time (409), idempotent', async () => {
    const { user, ledger } = await company();
    const today = new Date().toISOString().slice(0, 10);
    await ledger.close(today).expect(400);
    const requestId = randomUUID();
    const first = await ledger.close('2025-01-31', requestId).expect(202);
    const again = await ledger.close('2025-01-31', requestId).expect(202);
    expect(again.body.id).toBe(first.body.id);
    await ledger.close('2025-02-28', requestId).expect(409);
    await waitForClose(ledger, first.body.id);
    const stale = await ledger.close('2025-01-15').expect(409);
    expect(stale.body.type).toBe('/problems/period-already-closed');
    // Hold the next close in its snapshot step (the step waits on this lock), so it is certainly running
    // when the third close is asked for.
    const hold = await holdSnapshotStep(stack, user.me.company.id, '2025-02-28');
    try {
      const next = await ledger.close('2025-02-28').expect(202);
      const running = await ledger.close('2025-03-31').expect(409);
      expect(running.body.type).toBe('/problems/period-close-running');
      expect((await ledger.getClose(next.body.id).expect(200)).body.status).toBe('RUNNING');
      await hold.release();
      expect((await waitForClose(ledger, next.body.id)).status).toBe('COMPLETED');
    } finally {
      await hold.release();
    }
  });

  test('"checks debits equal credits": a ledger that does not balance fails the close with the reason and releases the cut-off', async () => {
    const { user, ledger } = await company();
    await ledger.post(simpleEntry('2025-06-10', '10')).expect(201);
    // Arrange an impossible state by hand (bypassing every check) to prove the close's own check.
    await stack.admin.transaction(async (tx) => {
      await stack.admin.query(`ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_balanced`, { transaction: tx });
      await stack.admin.query(
        `WITH e AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
                     VALUES (:t, gen_random_uuid(), :le, 1000, '2025-06-11', 'broken', gen_random_uuid(), 'x', 5, 5, 2, gen_random_uuid()) RETURNING id)
         INSERT INTO journal_lines (tenant_id, entry_id, line_no, legal_entity_id, entry_date, account_code, debit, credit)
         SELECT :t, e.id, n, :le, '2025-06-11', '5110', 5, 0 FROM e, generate_series(1, 2) n`,
        { replacements: { t: user.me.tenantId, le: user.me.company.id }, transaction: tx },
      );
      await stack.admin.query(`ALTER TABLE journal_entries ENABLE TRIGGER journal_entries_balanced`, { transaction: tx });
    });
    const close = await ledger.close('2025-06-30').expect(202);
    const done = await waitForClose(ledger, close.body.id);
    expect(done).toMatchObject({ status: 'FAILED', balances: [] });
    expect(done.failureReason).toMatch(/do not equal/);
    await ledger.post(simpleEntry('2025-06-15', '1')).expect(201);
  });
  test('"snapshot totals bounded": balances beyond what a snapshot holds fail the close with the reason, not retries forever', async () => {
    const { ledger } = await company();
    // 101 entries of 999,999,999,999,999,999.00 on one account: more than NUMERIC(22,2) holds.
    const debits = Array.from({ length: 100 }, () => ({ accountCode: '5110', debit: '9999999999999999.99' }));
    const credits = Array.from({ length: 100 }, () => ({ accountCode: '9010', credit: '9999999999999999.99' }));
    for (let i = 0; i < 101; i++) await ledger.post(entryBody('2025-07-10', [...debits, ...credits])).expect(201);
    const close = await ledger.close('2025-07-31').expect(202);
    const done = await waitForClose(ledger, close.body.id);
    expect(done).toMatchObject({ status: 'FAILED', balances: [] });
    expect(done.failureReason).toMatch(/exceeds what a snapshot can hold/);
    await ledger.post(simpleEntry('2025-07-15', '1')).expect(201);
  }, 60_000);
});
