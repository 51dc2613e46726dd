import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { withShortLockWaits } from '../../helpers/schema-changes';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, holdSnapshotStep, ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { closePeriodWorkflowId } from '../../../contracts/workflow-ids';

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

describe('closePeriod, getPeriodClose and listPeriodCloses (closePeriodWorkflow)', () => {
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
      { accountCode: '5110', subaccountId: null, currency: null, currencyBalance: null, debitTotal: '100.00', creditTotal: '40.00', balance: '60.00', normalSide: 'DEBIT' },
      { accountCode: '9010', subaccountId: null, currency: null, currencyBalance: null, debitTotal: '0.00', creditTotal: '100.00', balance: '100.00', normalSide: 'CREDIT' },
      { accountCode: '9410', subaccountId: null, currency: null, currencyBalance: null, debitTotal: '40.00', creditTotal: '0.00', balance: '40.00', normalSide: 'DEBIT' },
    ]);
    const list = await ledger.closes().expect(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual(done);
    // The workflow carries a readable id and the tenant as a search attribute.
    const handle = stack.temporal.workflow.getHandle(closePeriodWorkflowId(user.me.company.id, '2025-03-31'));
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
    await withShortLockWaits(stack.admin, async (tx) => {
      await stack.admin.query(`ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_balanced`, { transaction: tx });
      await stack.admin.query(
        `WITH e AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
                     VALUES (:t, gen_random_uuid(), :le, 1000, '2025-06-11', 'broken', gen_random_uuid(), 'x', 5, 5, 2, gen_random_uuid()) RETURNING id, number)
         INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
         SELECT :t, e.id, e.number, n, :le, '2025-06-11', '5110', 5, 0 FROM e, generate_series(1, 2) n`,
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
