import { QueryTypes, type Transaction } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { revaluationApi, storeCbuRate, waitForRevaluation } from '../../helpers/currency';
import { startWorkerProcess, until } from '../../helpers/worker-process';

// The revaluation's worker is a real child process, killed with SIGKILL after its step has written the entry
// and before it could commit. This file's CBU rates are dated in 2019.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
  await storeCbuRate(stack, 'USD', '2019-01-02', '8300');
  await storeCbuRate(stack, 'USD', '2019-01-31', '8350');
});
afterAll(async () => {
  await stack.stop();
});

describe('postRevaluationWorkflow survives a killed worker', () => {
  test('killed after writing its entry, before its commit: the retried step posts one entry, not two', async () => {
    const registration = startWorkerProcess(stack, { LOG_LEVEL: 'warn' }); // runs the registration's workflows
    const user = await registerWorkspace(stack);
    registration.kill('SIGKILL');
    await new Promise((r) => registration.once('exit', r));
    const ledger = ledgerApi(stack, user);
    const revaluations = revaluationApi(stack, user);
    await ledger.post(entryBody('2019-01-10', [{ accountCode: '5210', debit: '830000.00', currency: 'USD', currencyAmount: '100' }, { accountCode: '9010', credit: '830000.00' }] as never)).expect(201);

    // Hold the revaluation's row: its step writes the entry, then waits here to mark it COMPLETED.
    const requested = await revaluations.post('2019-01-31').expect(202);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const holder = stack.admin.transaction(async (transaction: Transaction) => {
      await stack.admin.query('SELECT 1 FROM revaluations WHERE id = :id FOR UPDATE', { replacements: { id: requested.body.id }, transaction });
      held();
      await released;
    });
    await holding;
    // Only now a worker takes the revaluation's workflow.
    const first = startWorkerProcess(stack, { LOG_LEVEL: 'warn' });
    try {
      await until(
        async () => {
          const waiting = await stack.admin.query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE "revaluations"%'`,
            { type: QueryTypes.SELECT },
          );
          return waiting.length > 0 ? true : null;
        },
        30_000,
        'the revaluation step to wait with its entry written',
      );
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      expect((await revaluations.get(requested.body.id).expect(200)).body.status).toBe('RUNNING');
    } finally {
      first.kill('SIGKILL');
      release();
      await holder;
    }

    const second = startWorkerProcess(stack, { LOG_LEVEL: 'warn' });
    try {
      const done = await waitForRevaluation(revaluations, requested.body.id, 90_000);
      expect(done).toMatchObject({ status: 'COMPLETED', gainTotal: '5000.00' });
      const entries = await stack.admin.query<{ kind: string; n: number }>(
        'SELECT kind, count(*)::int AS n FROM journal_entries WHERE tenant_id = :t GROUP BY kind ORDER BY kind',
        { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
      );
      expect(entries).toEqual([
        { kind: 'POSTING', n: 1 },
        { kind: 'REVALUATION', n: 1 },
      ]);
      // Numbers stay gapless: the rolled-back attempt gave its number back.
      expect((await ledger.get(done.entryId).expect(200)).body.number).toBe(2);
      const [events] = await stack.admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'ledger.revaluation.posted'",
        { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
      );
      expect(events!.n).toBe(1);
    } finally {
      second.kill('SIGKILL');
    }
  }, 150_000);
});
