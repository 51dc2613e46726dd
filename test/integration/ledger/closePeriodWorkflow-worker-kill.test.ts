import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { holdSnapshotStep, ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { snapshotLockKey } from '../../../db/repositories/ledger/period-closes';
import { startWorkerProcess, until } from '../../helpers/worker-process';

// The close's worker is a real child process here, so it can be killed with SIGKILL mid-step.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
});
afterAll(async () => {
  await stack.stop();
});

describe('closePeriodWorkflow survives a killed worker', () => {
  test('"killing the worker at any point and starting it again finishes the close with the same result"', async () => {
    const first = startWorkerProcess(stack, { LOG_LEVEL: 'warn' }); // also runs the registration's workflows below
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    for (let i = 1; i <= 30; i++) await ledger.post(simpleEntry(`2025-09-${String(1 + (i % 28)).padStart(2, '0')}`, `${i}.25`)).expect(201);
    await ledger.post(simpleEntry('2025-10-02', '5.00')).expect(201);

    // Hold the snapshot step before the close starts: it waits on this lock, and is killed waiting.
    const hold = await holdSnapshotStep(stack, user.me.company.id, '2025-09-30');
    const close = await ledger.close('2025-09-30').expect(202);
    try {
      // The first worker reaches the snapshot step and waits on that lock: kill it there.
      await until(
        async () => {
          const rows = await stack.admin.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(:key, 0)`,
            { replacements: { key: snapshotLockKey(user.me.company.id, '2025-09-30') }, type: QueryTypes.SELECT },
          );
          return rows.length > 0 ? true : null;
        },
        30_000,
        'the snapshot step to start',
      );
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      expect((await ledger.getClose(close.body.id).expect(200)).body.status).toBe('RUNNING');
    } finally {
      first.kill('SIGKILL');
      await hold.release();
    }

    const second = startWorkerProcess(stack, { LOG_LEVEL: 'warn' });
    try {
      const done = await waitForClose(ledger, close.body.id, 90_000);
      expect(done.status).toBe('COMPLETED');
      expect(done.entryCount).toBe(30);
      // The same result as a straightforward sum of the period's lines, stored once.
      const expected = await stack.admin.query<{ account_code: string; d: string; c: string }>(
        `SELECT account_code, sum(debit)::text AS d, sum(credit)::text AS c FROM journal_lines
          WHERE tenant_id = :t AND entry_date <= '2025-09-30' GROUP BY account_code ORDER BY account_code`,
        { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
      );
      expect(done.balances.map((b: { accountCode: string; debitTotal: string; creditTotal: string }) => [b.accountCode, b.debitTotal, b.creditTotal])).toEqual(
        expected.map((e) => [e.account_code, e.d, e.c]),
      );
      const [events] = await stack.admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'ledger.period.closed'`,
        { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
      );
      expect(events!.n).toBe(1);
    } finally {
      second.kill('SIGKILL');
    }
  }, 150_000);
});
