import { randomBytes, randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { ScheduleDescription } from '@temporalio/client';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, uniqueEmail, type Registered } from '../../helpers/clients';
import { startWorkerProcess, until } from '../../helpers/worker-process';
import { ensureHousekeepingSchedule } from '../../../adapters/temporal/housekeeping-schedule';
import { HOUSEKEEPING_WORKFLOW, PRUNE_KINDS, type HousekeepingResult, type PruneKind } from '../../../contracts/housekeeping';
import { pruneBatch } from '../../../db/repositories/housekeeping/prune';

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const sql = (text: string, replacements: Record<string, unknown> = {}) => stack.admin.query(text, { replacements });
const exists = async (table: string, where: string, replacements: Record<string, unknown>) => {
  const [row] = await stack.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, { replacements, type: QueryTypes.SELECT });
  return row!.n > 0;
};

/** One row of each kind past its retention (`old`) and one within it (`fresh`), named by what finds it again. */
interface Planted {
  kind: PruneKind;
  table: string;
  where: string;
  old: Record<string, unknown>;
  fresh: Record<string, unknown>;
}

async function plant(): Promise<Planted[]> {
  const identityId = user.me.globalUserId;
  const tenantId = user.me.tenantId;
  const planted: Planted[] = [];

  const magicLink = async (expiresAgo: string) => {
    const id = randomUUID();
    await sql(`INSERT INTO magic_links (id, email, token_hash, expires_at) VALUES (:id, :email, :hash, now() - CAST(:ago AS interval))`, {
      id, email: uniqueEmail('magic-link'), hash: randomBytes(32), ago: expiresAgo,
    });
    await sql(`INSERT INTO registration_attempts (id, proof_id, password_hash, correlation_id) VALUES (gen_random_uuid(), :id, 'scrypt$placeholder', gen_random_uuid())`, { id });
    return { id };
  };
  planted.push({ kind: 'magic-links', table: 'magic_links', where: 'id = :id', old: await magicLink('25 hours'), fresh: await magicLink('23 hours') });

  const enrolment = async (confirmedAgo: string | null, expiresAgo: string) => {
    const id = randomUUID();
    await sql(`INSERT INTO totp_enrollments (id, identity_id, secret_encrypted, expires_at, confirmed_at)
               VALUES (:id, :identityId, 'sealed', now() - CAST(:expiresAgo AS interval), now() - CAST(:confirmedAgo AS interval))`, {
      id, identityId, expiresAgo, confirmedAgo,
    });
    return { id };
  };
  planted.push({ kind: 'totp-enrollments', table: 'totp_enrollments', where: 'id = :id', old: await enrolment('2 hours', '-1 hour'), fresh: await enrolment(null, '-5 minutes') });
  planted.push({ kind: 'totp-enrollments', table: 'totp_enrollments', where: 'id = :id', old: await enrolment(null, '61 minutes'), fresh: await enrolment(null, '59 minutes') });

  const attempt = async (ago: string) => {
    const id = randomUUID();
    await sql(`INSERT INTO factor_attempts (id, identity_id, kind, attempted_at) VALUES (:id, :identityId, 'TOTP', now() - CAST(:ago AS interval))`, { id, identityId, ago });
    return { id };
  };
  planted.push({ kind: 'factor-attempts', table: 'factor_attempts', where: 'id = :id', old: await attempt('25 hours'), fresh: await attempt('23 hours') });

  const code = async (ago: string) => {
    const id = randomUUID();
    await sql(`INSERT INTO email_challenge_codes (challenge_id, identity_id, code_encrypted, created_at) VALUES (:id, :identityId, 'sealed', now() - CAST(:ago AS interval))`, {
      id, identityId, ago,
    });
    return { id };
  };
  planted.push({ kind: 'email-challenge-codes', table: 'email_challenge_codes', where: 'challenge_id = :id', old: await code('25 hours'), fresh: await code('1 minute') });

  const limit = async (expireInMs: number) => {
    const key = `housekeeping-test:${randomUUID()}`;
    await sql(`INSERT INTO request_limits (key, points, expire) VALUES (:key, 1, (extract(epoch FROM now()) * 1000)::bigint + :expireInMs)`, { key, expireInMs });
    return { key };
  };
  planted.push({ kind: 'request-limits', table: 'request_limits', where: 'key = :key', old: await limit(-1000), fresh: await limit(60_000) });

  const invitation = async (endedAgo: string, how: 'expired' | 'revoked') => {
    const created = await api(stack).post('/api/v1/membership-invitations?delivery=MANUAL').set(...bearer(user.accessToken))
      .send({ email: uniqueEmail('stale'), roles: ['VIEWER'] }).expect(201);
    const id = created.body.invitationId as string;
    await sql(
      how === 'expired'
        ? `UPDATE membership_invitations SET expires_at = now() - CAST(:ago AS interval) WHERE id = :id`
        : `UPDATE membership_invitations SET revoked_at = now() - CAST(:ago AS interval) WHERE id = :id`,
      { id, ago: endedAgo },
    );
    await sql(`INSERT INTO invitation_acceptances (tenant_id, id, invitation_id, correlation_id) VALUES (:tenantId, gen_random_uuid(), :id, gen_random_uuid())`, { tenantId, id });
    return { id };
  };
  planted.push({ kind: 'invitations', table: 'membership_invitations', where: 'id = :id', old: await invitation('31 days', 'expired'), fresh: await invitation('29 days', 'expired') });
  planted.push({ kind: 'invitations', table: 'membership_invitations', where: 'id = :id', old: await invitation('31 days', 'revoked'), fresh: await invitation('1 day', 'revoked') });

  const device = async (seenAgo: string) => {
    const res = await api(stack).post('/api/v1/notifications/devices').set(...bearer(user.accessToken)).send({ token: `housekeeping-${randomUUID()}` }).expect(201);
    await sql(`UPDATE push_devices SET last_seen_at = now() - CAST(:ago AS interval) WHERE id = :id`, { id: res.body.id, ago: seenAgo });
    return { id: res.body.id as string };
  };
  planted.push({ kind: 'push-devices', table: 'push_devices', where: 'id = :id', old: await device('271 days'), fresh: await device('269 days') });

  const mailEvent = async (ago: string) => {
    const id = `housekeeping-${randomUUID()}`;
    await sql(`INSERT INTO mail_events (provider, event_id, event, state, occurred_at, received_at)
               VALUES ('sendgrid', :id, 'delivered', 'DELIVERED', now() - CAST(:ago AS interval), now() - CAST(:ago AS interval))`, { id, ago });
    return { id };
  };
  planted.push({ kind: 'mail-events', table: 'mail_events', where: 'event_id = :id', old: await mailEvent('31 days'), fresh: await mailEvent('29 days') });

  const start = async (startedAgo: string | null) => {
    const id = randomUUID();
    await sql(`INSERT INTO workflow_starts (id, workflow_id, workflow_type, task_queue, args, id_reuse_policy, started_at, outcome, next_attempt_at)
               VALUES (:id, :wid, 'housekeepingTestWorkflow', 'nowhere', '[]', 'REJECT_DUPLICATE', now() - CAST(:ago AS interval),
                       CASE WHEN :ago IS NULL THEN NULL ELSE 'STARTED' END, now() + interval '1 day')`, { id, wid: `housekeeping-test-${id}`, ago: startedAgo });
    return { id };
  };
  planted.push({ kind: 'workflow-starts', table: 'workflow_starts', where: 'id = :id', old: await start('8 days'), fresh: await start('6 days') });
  planted.push({ kind: 'workflow-starts', table: 'workflow_starts', where: 'id = :id', old: await start('9 days'), fresh: await start(null) });
  return planted;
}

describe('housekeeping', () => {
  test('the workflow deletes every kind past its retention, keeps what is within it, and reports counts per kind', async () => {
    const planted = await plant();
    for (const p of planted) expect({ kind: p.kind, old: await exists(p.table, p.where, p.old) }).toEqual({ kind: p.kind, old: true });
    const result = await stack.temporal.workflow.execute<() => Promise<HousekeepingResult>>(HOUSEKEEPING_WORKFLOW, {
      taskQueue: stack.taskQueue,
      workflowId: `housekeeping-test-${randomUUID()}`,
      args: [{ batchSize: 500, maxBatches: 100 }] as never,
    });
    expect(Object.keys(result.pruned).sort()).toEqual([...PRUNE_KINDS].sort());
    expect(result.leftOver).toEqual([]);
    for (const p of planted) {
      expect({ kind: p.kind, oldGone: !(await exists(p.table, p.where, p.old)), freshKept: await exists(p.table, p.where, p.fresh) }).toEqual({
        kind: p.kind, oldGone: true, freshKept: true,
      });
      // Other test files' rows may be past retention too, so a count is at least what was planted here.
      expect({ kind: p.kind, atLeast: result.pruned[p.kind] >= planted.filter((q) => q.kind === p.kind).length }).toEqual({ kind: p.kind, atLeast: true });
    }
    // Children went with their parents: the old magic link's attempt and the old invitations' acceptances.
    const oldMagicLink = planted.find((p) => p.kind === 'magic-links')!.old.id;
    expect(await exists('registration_attempts', 'proof_id = :id', { id: oldMagicLink })).toBe(false);
    for (const p of planted.filter((q) => q.kind === 'invitations')) {
      expect(await exists('invitation_acceptances', 'invitation_id = :id', { id: p.old.id })).toBe(false);
      expect(await exists('invitation_acceptances', 'invitation_id = :id', { id: p.fresh.id })).toBe(true);
    }
  }, 60_000);

  test('batches are bounded: one row per batch and one batch per kind leaves the rest for the next run, and says so', async () => {
    await plant();
    await plant();
    const result = await stack.temporal.workflow.execute<() => Promise<HousekeepingResult>>(HOUSEKEEPING_WORKFLOW, {
      taskQueue: stack.taskQueue,
      workflowId: `housekeeping-test-${randomUUID()}`,
      args: [{ batchSize: 1, maxBatches: 1 }] as never,
    });
    for (const kind of PRUNE_KINDS) expect({ kind, pruned: result.pruned[kind] }).toEqual({ kind, pruned: 1 });
    expect([...result.leftOver].sort()).toEqual([...PRUNE_KINDS].sort());
  }, 60_000);

  test('only the definer\'s function deletes: the application role cannot, and the function refuses unknown kinds and unbounded batches', async () => {
    await expect(stack.db.query('DELETE FROM magic_links')).rejects.toThrow(/permission denied/);
    await expect(stack.db.query('DELETE FROM totp_enrollments')).rejects.toThrow(/permission denied/);
    await expect(pruneBatch(stack.db, 'identities' as PruneKind, 10)).rejects.toThrow(/unknown housekeeping kind identities/);
    await expect(pruneBatch(stack.db, 'factor-attempts', 0)).rejects.toThrow(/batch size 0 out of range/);
    await expect(pruneBatch(stack.db, 'factor-attempts', 10_001)).rejects.toThrow(/out of range/);
  });

  test('a started worker creates the Schedule (visible in the UI), which runs at once; starting again changes nothing, new settings update it', async () => {
    const schedule = () => stack.temporal.schedule.getHandle(stack.config.housekeeping.scheduleId);
    const child = startWorkerProcess(stack, { HOUSEKEEPING_INTERVAL_SECONDS: '3600' });
    try {
      const described = await until(() => schedule().describe().catch(() => null), 60_000, 'the worker to create the Schedule');
      expect(described.spec.intervals?.map((i) => i.every)).toEqual([3_600_000]);
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: HOUSEKEEPING_WORKFLOW, taskQueue: stack.taskQueue, args: [{ batchSize: 1000, maxBatches: 100 }] });
      const done: ScheduleDescription = await until(async () => {
        const d = await schedule().describe();
        return d.info.numActionsTaken >= 1 && d.info.runningActions.length === 0 ? d : null;
      }, 60_000, 'the first housekeeping run');
      const run = done.info.recentActions[0]!.action.workflow;
      expect(run.workflowId).toMatch(new RegExp(`^${stack.config.housekeeping.scheduleId}-`));
      const result = await stack.temporal.workflow.getHandle<() => Promise<HousekeepingResult>>(run.workflowId, run.firstExecutionRunId).result();
      expect(Object.keys(result.pruned).sort()).toEqual([...PRUNE_KINDS].sort());
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const settings = { ...stack.config.housekeeping, intervalSeconds: 3600, taskQueue: stack.taskQueue };
    expect(await ensureHousekeepingSchedule(stack.temporal, settings)).toBe('UNCHANGED');
    expect(await ensureHousekeepingSchedule(stack.temporal, { ...settings, batchSize: 200 })).toBe('UPDATED');
    expect((await schedule().describe()).action).toMatchObject({ args: [{ batchSize: 200, maxBatches: 100 }] });
  }, 90_000);
});
