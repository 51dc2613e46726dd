import { Client as PgClient } from 'pg';
import { QueryTypes } from 'sequelize';
import type { ChildProcess } from 'node:child_process';
import { adminUrlOf, startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, mailedInvitationToken, registerWorkspace, uniqueEmail, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { startWorkerProcess, until } from '../../helpers/worker-process';
import { snapshotLockKey } from '../../../db/repositories/ledger/period-closes';
import { mailInvitationWorkflowId } from '../../../contracts/workflow-ids';
import { createBankAccount } from '../../helpers/bank-accounts';
import { bankStatementsApi, storedLineCount, waitForImport } from '../../helpers/bank-statements';
import { statement } from '../../unit/bank-statements/fixture';
import { renderOneC } from '../../unit/bank-statements/render';

// A worker killed with SIGKILL in the middle of an activity: another worker finishes the work, with the
// same result as an undisturbed run and no duplicate rows. "In the middle" is made certain, not hoped
// for: the test holds a lock the activity needs, sees the activity wait on it, and kills the worker then.

let stack: TestStack;
let worker: ChildProcess | null = null;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
});
afterEach(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker!.once('exit', resolve));
  }
  worker = null;
});
afterAll(async () => {
  await stack.stop();
});

async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** A superuser session of its own, to hold a lock as long as the test says. */
async function lockHolder(): Promise<PgClient> {
  const client = new PgClient({ connectionString: adminUrlOf(stack.config) });
  await client.connect();
  return client;
}

/** Waits until some session waits on a lock while running a statement that matches `query`. */
function waitingOn(query: RegExp, what: string): Promise<true> {
  return until(async () => {
    const rows = await stack.admin.query<{ query: string }>(
      `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      { type: QueryTypes.SELECT },
    );
    return rows.some((r) => query.test(r.query)) ? true : null;
  }, 30_000, what, 50);
}

const snapshot = (closeId: string) =>
  stack.admin.query<{ account_code: string; debit_total: string; credit_total: string }>(
    'SELECT account_code, debit_total, credit_total FROM period_close_balances WHERE close_id = :closeId ORDER BY account_code',
    { replacements: { closeId }, type: QueryTypes.SELECT },
  );
const auditCount = (tenantId: string, action: string) =>
  stack.admin
    .query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :tenantId AND action = :action', {
      replacements: { tenantId, action },
      type: QueryTypes.SELECT,
    })
    .then((rows) => rows[0]!.n);

async function bookedWorkspace(): Promise<Registered> {
  const user = await registerWorkspace(stack);
  const ledger = ledgerApi(stack, user);
  for (const [date, amount] of [['2025-01-05', '100.00'], ['2025-01-17', '250.50'], ['2025-01-30', '0.25']] as const) {
    await ledger.post(simpleEntry(date, amount)).expect(201);
  }
  await ledger.post(simpleEntry('2025-01-20', '75.00', '5110', '6010')).expect(201);
  return user;
}

test('period close: SIGKILL while the closing balances are computed; another worker finishes, the same snapshot as an undisturbed close, once', async () => {
  worker = startWorkerProcess(stack);
  const [calm, disturbed] = await Promise.all([bookedWorkspace(), bookedWorkspace()]);

  // The undisturbed run.
  const calmLedger = ledgerApi(stack, calm);
  const calmClose = await calmLedger.close('2025-01-31').expect(202);
  expect((await waitForClose(calmLedger, calmClose.body.id)).status).toBe('COMPLETED');

  // The disturbed run: its snapshot waits for the lock the test holds, and the worker dies there.
  const holder = await lockHolder();
  try {
    await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [snapshotLockKey(disturbed.me.company.id, '2025-01-31')]);
    const ledger = ledgerApi(stack, disturbed);
    const close = await ledger.close('2025-01-31').expect(202);
    await waitingOn(/pg_advisory_xact_lock/, 'the snapshot to wait on the held lock');
    await kill(worker);
    await holder.query('SELECT pg_advisory_unlock_all()');
    worker = startWorkerProcess(stack);
    const done = await waitForClose(ledger, close.body.id, 90_000);
    expect(done.status).toBe('COMPLETED');
    const [expected, actual] = await Promise.all([snapshot(calmClose.body.id), snapshot(close.body.id)]);
    expect(actual).toEqual(expected);
    expect(actual.length).toBeGreaterThan(0);
    expect(await auditCount(disturbed.me.tenantId, 'ledger.period.closed')).toBe(1);
    // The period is frozen as after any close: a posting dated in it is refused.
    expect((await ledger.post(simpleEntry('2025-01-31', '1.00')).expect(409)).body.type).toBe('/problems/period-closed');
  } finally {
    await holder.end();
  }
}, 150_000);

test('invitation accept: SIGKILL while the acceptance waits on the invitation; another worker finishes: one membership, one audit event', async () => {
  worker = startWorkerProcess(stack);
  const admin = await registerWorkspace(stack);
  const email = uniqueEmail('killed-accept');
  const host = `${admin.me.company.slug}.${stack.config.baseDomain}`;
  const invited = await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(admin.accessToken))
    .send({ email, roles: ['ACCOUNTANT'] }).expect(201);
  // The new person joins from the mail. Its workflow locks the invitation row too: it has ended before the test takes the lock.
  const token = await mailedInvitationToken(stack, email);
  await stack.temporal.workflow.getHandle(mailInvitationWorkflowId(invited.body.invitationId)).result();

  const holder = await lockHolder();
  try {
    await holder.query('BEGIN');
    // FOR NO KEY UPDATE: the request's acceptance row (a foreign key, FOR KEY SHARE) passes; the activity's FOR UPDATE waits.
    await holder.query('SELECT 1 FROM membership_invitations WHERE id = $1 FOR NO KEY UPDATE', [invited.body.invitationId]);
    const accepting = api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', host)
      .send({ token, password: 'a long enough new password' }).then((res) => res);
    await waitingOn(/membership_invitations/, 'the acceptance to wait on the held invitation row');
    await kill(worker);
    await holder.query('ROLLBACK');
    worker = startWorkerProcess(stack);
    // The request answers the result if the new worker finished in time, or that it is pending.
    const answer = await accepting;
    expect([200, 503]).toContain(answer.status);
    if (answer.status === 503) expect(answer.body.type).toBe('/problems/operation-pending');
    const login = await until(async () => {
      const res = await api(stack).post('/api/v1/auth/login').set('Host', host).send({ email, password: 'a long enough new password' });
      return res.status === 200 ? res : null;
    }, 60_000, 'the acceptance to finish on the new worker', 500);
    const me = await api(stack).get('/api/v1/me').set(...bearer(login.body.accessToken)).expect(200);
    expect(me.body.roles).toEqual(['ACCOUNTANT']);
    const [members] = await stack.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id JOIN identities i ON i.id = u.identity_id
        WHERE m.tenant_id = :t AND i.email = :email`,
      { replacements: { t: admin.me.tenantId, email }, type: QueryTypes.SELECT },
    );
    expect(members!.n).toBe(1);
    expect(await auditCount(admin.me.tenantId, 'users.invitation.accepted')).toBe(1);
    const [acceptance] = await stack.admin.query<{ password_hash: string | null }>(
      'SELECT password_hash FROM invitation_acceptances WHERE tenant_id = :t AND invitation_id = :id',
      { replacements: { t: admin.me.tenantId, id: invited.body.invitationId }, type: QueryTypes.SELECT },
    );
    expect(acceptance!.password_hash).toBeNull();
  } finally {
    await holder.end();
  }
}, 150_000);

test('bank statement import: SIGKILL while its lines are being stored; another worker finishes: each line once, the counts of an undisturbed import, one audit event', async () => {
  worker = startWorkerProcess(stack);
  const user = await registerWorkspace(stack);
  const account = (await createBankAccount(stack, user, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Killed import' }).expect(201)).body;
  const statements = bankStatementsApi(stack, user, account.id);
  // No worker while the import is sent: its run cannot start before the test holds the import's row.
  worker.kill('SIGTERM');
  await new Promise((resolve) => worker!.once('exit', resolve));
  const sent = await statements.import(renderOneC(statement)).expect(202);
  const holder = await lockHolder();
  try {
    await holder.query('BEGIN');
    // FOR NO KEY UPDATE: the step's plain reads pass; its FOR UPDATE of the import, before it stores, waits.
    await holder.query('SELECT 1 FROM bank_statement_imports WHERE id = $1 FOR NO KEY UPDATE', [sent.body.id]);
    worker = startWorkerProcess(stack);
    await waitingOn(/bank_statement_imports/, 'the import to wait on the held import row');
    await kill(worker);
    await holder.query('ROLLBACK');
    worker = startWorkerProcess(stack);
    const done = await waitForImport(statements, sent.body.id, 90_000);
    expect(done).toMatchObject({ status: 'COMPLETED', counts: { read: 4, new: 4, duplicate: 0, matched: 0, proposed: 0, unmatched: 4 } });
    expect(await storedLineCount(stack, user)).toBe(4);
    expect(await auditCount(user.me.tenantId, 'bank-statement.imported')).toBe(1);
  } finally {
    await holder.end();
  }
}, 150_000);

test('bank statement import: SIGKILL while a rule confirms its proposals; another worker finishes: one entry per line, no line posted twice', async () => {
  worker = startWorkerProcess(stack);
  const user = await registerWorkspace(stack);
  const account = (await createBankAccount(stack, user, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Killed confirmation' }).expect(201)).body;
  const statements = bankStatementsApi(stack, user, account.id);
  await api(stack)
    .post(`/api/v1/bank-matching-rules/${user.me.company.id}`)
    .set(...bearer(user.accessToken))
    .send({ name: 'Bank fees', priority: 1, conditions: { direction: 'OUT', purposeContains: 'Комиссия' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9430' }, autoConfirm: true })
    .expect(201);
  // An entry first, so the company's ledger row is there for the test to hold.
  await ledgerApi(stack, user).post(simpleEntry('2026-10-31', statement.openingBalance, '5110', '8710')).expect(201);
  worker.kill('SIGTERM');
  await new Promise((resolve) => worker!.once('exit', resolve));
  const sent = await statements.import(renderOneC(statement)).expect(202);
  const holder = await lockHolder();
  try {
    await holder.query('BEGIN');
    // Storing and proposing post nothing and pass; the first confirmation's posting waits on the ledger row.
    await holder.query('SELECT 1 FROM ledger_states WHERE tenant_id = $1 FOR UPDATE', [user.me.tenantId]);
    worker = startWorkerProcess(stack);
    await waitingOn(/ledger_states/, 'a confirmation to wait on the held ledger row');
    await kill(worker);
    await holder.query('ROLLBACK');
    worker = startWorkerProcess(stack);
    const done = await waitForImport(statements, sent.body.id, 90_000);
    expect(done).toMatchObject({ status: 'COMPLETED', counts: { read: 4, new: 4, matched: 2, proposed: 0, unmatched: 2 } });
    const entries = await stack.admin.query<{ source_id: string; n: string }>(
      "SELECT source_id, count(*) AS n FROM journal_entries WHERE tenant_id = :t AND source_type = 'BANK_LINE' GROUP BY source_id",
      { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(entries.map((e) => Number(e.n))).toEqual([1, 1]);
    expect(await auditCount(user.me.tenantId, 'bank-line.matched')).toBe(2);
    expect(await auditCount(user.me.tenantId, 'bank-statement.imported')).toBe(1);
  } finally {
    await holder.end();
  }
}, 150_000);

test('depreciation at the close: SIGKILL while the step waits on the assets; another worker finishes: each month charged once', async () => {
  worker = startWorkerProcess(stack);
  const user = await registerWorkspace(stack);
  const base = `/api/v1/fixed-assets/${user.me.company.id}`;
  const auth = bearer(user.accessToken);
  const asset = (await api(stack).post(base).set(...auth).send({ inventoryNumber: 'K-1', name: 'Press', assetAccount: '0130', cost: '3600.00', usefulLifeMonths: 36 }).expect(201)).body;
  await api(stack).post(`${base}/${asset.id}/commissioning`).set(...auth).send({ date: '2025-01-20', expectedVersion: 1 }).expect(200);
  const holder = await lockHolder();
  try {
    await holder.query('BEGIN');
    // The step takes the assets FOR UPDATE before it charges them: it waits here, and its worker dies waiting.
    await holder.query('SELECT 1 FROM fixed_assets WHERE id = $1 FOR UPDATE', [asset.id]);
    const ledger = ledgerApi(stack, user);
    const close = await ledger.close('2025-03-31').expect(202);
    await waitingOn(/fixed_assets/, 'the depreciation to wait on the held asset');
    await kill(worker);
    await holder.query('ROLLBACK');
    worker = startWorkerProcess(stack);
    expect((await waitForClose(ledger, close.body.id, 90_000)).status).toBe('COMPLETED');
    const entries = await stack.admin.query<{ entry_date: string; total: string }>(
      "SELECT to_char(entry_date, 'YYYY-MM-DD') AS entry_date, total_debit::text AS total FROM journal_entries WHERE tenant_id = :t AND kind = 'DEPRECIATION' ORDER BY entry_date",
      { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(entries).toEqual([
      { entry_date: '2025-02-28', total: '100.00' },
      { entry_date: '2025-03-31', total: '100.00' },
    ]);
    expect((await api(stack).get(`${base}/${asset.id}`).set(...auth).expect(200)).body).toMatchObject({ depreciatedThrough: '2025-03', accumulatedDepreciation: '200.00' });
    expect(await auditCount(user.me.tenantId, 'fixed-asset.depreciated')).toBe(2);
  } finally {
    await holder.end();
  }
}, 150_000);
