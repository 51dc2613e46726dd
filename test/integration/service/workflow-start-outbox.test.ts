import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createApp } from '../../../api/app';
import { acceptInvitationWorkflowId, closePeriodWorkflowId, registerWorkflowId, sendNotificationWorkflowId } from '../../../contracts/workflow-ids';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, mailedInvitationToken, PASSWORD, magicLinkTokenFrom, readMail, registerWorkspace, requestMagicLink, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { enableEmailFactor, mailCount, nextCode } from '../../helpers/second-factors';

// "Temporal stopped between the commit and the start": the same app and database, with a Temporal client
// pointed where nothing listens. The stack's relay runs only when a test ticks it, so each test decides
// when Temporal is "back" and whether a new request or the relay re-drives the work.
let stack: TestStack;
let down: ReturnType<typeof createApp>;
let unreachable: Connection;
beforeAll(async () => {
  stack = await startTestStack({}, { relayIntervalMs: 3_600_000 });
  unreachable = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1s' });
  down = anotherApp(stack, { temporal: new Client({ connection: unreachable, namespace: stack.config.temporal.namespace }) });
});
afterAll(async () => {
  await unreachable.close().catch(() => undefined);
  await stack.stop();
});

interface OutboxRow {
  attempts: number;
  outcome: string | null;
  started_at: Date | null;
}
async function outbox(workflowId: string): Promise<OutboxRow[]> {
  return stack.admin.query<OutboxRow>('SELECT attempts, outcome, started_at FROM workflow_starts WHERE workflow_id = :workflowId ORDER BY created_at', {
    replacements: { workflowId },
    type: QueryTypes.SELECT,
  });
}
/** Temporal is back: what the relay would do at its next tick (the recorded backoff skipped). */
async function relayTick(): Promise<number> {
  // Only this file's task queue: other files' relays must not be handed rows their requests are still dispatching.
  await stack.admin.query('UPDATE workflow_starts SET next_attempt_at = now() WHERE started_at IS NULL AND task_queue = :taskQueue', {
    replacements: { taskQueue: stack.taskQueue },
  });
  return stack.relay.tick();
}
async function runsOf(workflowId: string): Promise<number> {
  let n = 0;
  for await (const _ of stack.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) n += 1;
  return n;
}
async function expectNoWorkflow(workflowId: string): Promise<void> {
  await expect(stack.temporal.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}
function closeVia(app: ReturnType<typeof createApp>, user: Registered, closeDate: string, requestId: string) {
  return request(app).post(`/api/v1/ledger/${user.me.company.id}/periods/close`).set(...bearer(user.accessToken)).send({ requestId, closeDate });
}

describe('no request leaves work that nothing will finish (workflow-start outbox)', () => {
  test('period close, Temporal down: 202 RUNNING and the start is recorded; a retried request starts it once Temporal is back, and it completes', async () => {
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2025-01-10', '40.00')).expect(201);
    const requestId = randomUUID();
    const accepted = await closeVia(down, user, '2025-01-31', requestId).expect(202);
    expect(accepted.body.status).toBe('RUNNING');
    const workflowId = closePeriodWorkflowId(user.me.company.id, '2025-01-31');
    expect(await outbox(workflowId)).toEqual([{ attempts: 1, outcome: null, started_at: null }]);
    await expectNoWorkflow(workflowId);
    // The state is consistent meanwhile: the cut-off holds back postings in the period being closed.
    await ledger.post(simpleEntry('2025-01-20', '5.00')).expect(409);

    const retried = await closeVia(stack.app, user, '2025-01-31', requestId).expect(202);
    expect(retried.body.id).toBe(accepted.body.id);
    expect((await waitForClose(ledger, accepted.body.id)).status).toBe('COMPLETED');
    expect(await outbox(workflowId)).toEqual([{ attempts: 1, outcome: 'STARTED', started_at: expect.any(Date) }]);
    expect(await runsOf(workflowId)).toBe(1);
    await ledger.post(simpleEntry('2025-02-01', '5.00')).expect(201);
  });

  test('period close, Temporal down: with no new request the relay starts it when Temporal is back', async () => {
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2025-03-03', '12.00')).expect(201);
    const accepted = await closeVia(down, user, '2025-03-31', randomUUID()).expect(202);
    await expectNoWorkflow(closePeriodWorkflowId(user.me.company.id, '2025-03-31'));
    expect(await relayTick()).toBeGreaterThanOrEqual(1);
    const settled = await waitForClose(ledger, accepted.body.id);
    expect(settled).toMatchObject({ status: 'COMPLETED' });
  });

  test('a start recorded again for a close that already ran (its mark lost) starts a run that changes nothing', async () => {
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2025-04-04', '7.00')).expect(201);
    const close = await ledger.close('2025-04-30').expect(202);
    const first = await waitForClose(ledger, close.body.id);
    const workflowId = closePeriodWorkflowId(user.me.company.id, '2025-04-30');
    // The close is COMPLETED once its last activity commits; its run ends a moment later. Only an ended
    // run lets the recorded start begin a second one (while it runs, the start is ALREADY_STARTED).
    expect(await stack.temporal.workflow.getHandle(workflowId).result()).toMatchObject({ status: 'COMPLETED' });
    await stack.admin.query(
      `INSERT INTO workflow_starts (id, workflow_id, workflow_type, task_queue, args, tenant_attribute, id_reuse_policy)
       SELECT gen_random_uuid(), workflow_id, workflow_type, task_queue, args, tenant_attribute, id_reuse_policy FROM workflow_starts WHERE workflow_id = :workflowId`,
      { replacements: { workflowId } },
    );
    await relayTick();
    expect(await stack.temporal.workflow.getHandle(workflowId).result()).toEqual({ status: 'ALREADY_SETTLED' });
    expect(await ledger.getClose(close.body.id).expect(200).then((r) => r.body)).toEqual(first);
  });

  test('email code at login, Temporal down: 202 with the challenge; the code is mailed once the relay runs, and it logs in', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    const before = await mailCount(stack, user.email);
    const challenge = await request(down).post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(202);
    expect(challenge.body).toEqual({ channel: 'EMAIL', challengeId: expect.any(String), expiresAt: expect.any(String) });
    await relayTick();
    const code = await nextCode(stack, user.email, before);
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password, challengeId: challenge.body.challengeId, code }).expect(200);
  });

  test('magic link, Temporal down: the same 202, and the magic link is mailed once the relay runs', async () => {
    const email = uniqueEmail();
    await request(down).post('/api/v1/auth/magic-link/request').send({ email }).expect(202);
    expect(await readMail(stack, email)).toEqual([]);
    await relayTick();
    const [mail] = await waitForMail(stack, email);
    await api(stack).post('/api/v1/auth/register').send({ token: magicLinkTokenFrom(mail!), email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
  });

  test('registration, Temporal down: 503 operation-pending; the relay creates the workspace and the chosen password logs in', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    const res = await request(down).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD }).expect(503);
    expect(res.body.type).toBe('/problems/operation-pending');
    await api(stack).post('/api/v1/auth/login').send({ email, password: PASSWORD }).expect(401);
    await relayTick();
    const magicLinkId = (await stack.admin.query<{ proof_id: string }>('SELECT proof_id FROM registration_attempts a JOIN magic_links p ON p.id = a.proof_id WHERE p.email = :email', {
      replacements: { email },
      type: QueryTypes.SELECT,
    }))[0]!.proof_id;
    await stack.temporal.workflow.getHandle(registerWorkflowId(magicLinkId)).result();
    await api(stack).post('/api/v1/auth/login').send({ email, password: PASSWORD }).expect(200);
    const [attempt] = await stack.admin.query<{ password_hash: string | null }>('SELECT password_hash FROM registration_attempts WHERE proof_id = :magicLinkId', {
      replacements: { magicLinkId },
      type: QueryTypes.SELECT,
    });
    expect(attempt!.password_hash).toBeNull();
  });

  test('emailed invitation, Temporal down: 201 and no mail yet; the relay mails it, and the mailed token accepts', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('invited-while-down');
    const created = await request(down).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(admin.accessToken))
      .send({ email, roles: ['VIEWER'] }).expect(201);
    expect(created.body.token).toBeNull();
    expect(await readMail(stack, email)).toEqual([]);
    await relayTick();
    const [mail] = await waitForMail(stack, email);
    const token = /invitation=([A-Za-z0-9_-]{43})/.exec(mail!.text)![1]!;
    await api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', `${admin.me.company.slug}.${stack.config.baseDomain}`)
      .send({ token, password: 'a long enough new password' }).expect(200);
  });

  test('invitation accept, Temporal down: 503 operation-pending; the relay completes it and the chosen password logs in on the host', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('accepted-while-down');
    const host = `${admin.me.company.slug}.${stack.config.baseDomain}`;
    const created = await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(admin.accessToken))
      .send({ email, roles: ['ACCOUNTANT'] }).expect(201);
    const token = await mailedInvitationToken(stack, email);
    const res = await request(down).post('/api/v1/auth/membership-invitations/accept').set('Host', host)
      .send({ token, password: 'a long enough new password' }).expect(503);
    expect(res.body.type).toBe('/problems/operation-pending');
    await api(stack).post('/api/v1/auth/login').set('Host', host).send({ email, password: 'a long enough new password' }).expect(401);
    await relayTick();
    const result = await stack.temporal.workflow.getHandle(acceptInvitationWorkflowId(created.body.invitationId)).result();
    expect(result).toMatchObject({ tenantId: admin.me.tenantId });
    const login = await api(stack).post('/api/v1/auth/login').set('Host', host).send({ email, password: 'a long enough new password' }).expect(200);
    const me = await api(stack).get('/api/v1/me').set(...bearer(login.body.accessToken)).expect(200);
    expect(me.body.roles).toEqual(['ACCOUNTANT']);
  });

  test('push message, Temporal down: 202 and QUEUED; the relay starts the fan-out and the device gets it once', async () => {
    const admin = await registerWorkspace(stack);
    const token = `outbox-device-${randomUUID()}`;
    await api(stack).post('/api/v1/notifications/devices').set(...bearer(admin.accessToken)).send({ token }).expect(201);
    const requestId = randomUUID();
    const sent = await request(down).post('/api/v1/notifications/messages').set(...bearer(admin.accessToken))
      .send({ recipientMembershipId: admin.me.membershipId, requestId, title: 'While down', body: 'Sent while Temporal was down' }).expect(202);
    expect(sent.body).toEqual({ id: expect.any(String), devices: 1 });
    const status = () => api(stack).get(`/api/v1/notifications/messages/${sent.body.id}`).set(...bearer(admin.accessToken)).expect(200);
    expect((await status()).body.status).toBe('QUEUED');
    await expectNoWorkflow(sendNotificationWorkflowId(admin.me.tenantId, requestId));
    await relayTick();
    await stack.temporal.workflow.getHandle(sendNotificationWorkflowId(admin.me.tenantId, requestId)).result();
    expect((await status()).body).toMatchObject({ status: 'DELIVERED', counts: { SENT: 1 } });
    const pushes = await api(stack).get('/dev/push').query({ token }).expect(200);
    expect(pushes.body).toHaveLength(1);
  });

  test('rate refresh, Temporal down: 503 dependency-unavailable and nothing recorded (the Schedule itself runs when Temporal is back)', async () => {
    const admin = await registerWorkspace(stack);
    const audited = async () =>
      (await stack.admin.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'rates.refresh.requested'", {
        replacements: { t: admin.me.tenantId },
        type: QueryTypes.SELECT,
      }))[0]!.n;
    const res = await request(down).post('/api/v1/rates/refresh').set(...bearer(admin.accessToken)).expect(503);
    expect(res.body.type).toBe('/problems/dependency-unavailable');
    expect(await audited()).toBe(0);
  });
});
