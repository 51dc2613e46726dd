import { randomBytes, randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { addMember, type Member } from '../../helpers/members';
import { sendNotificationWorkflowId } from '../../../contracts/workflow-ids';
import { pushOutboxCount } from '../../../db/repositories/notifications/outbox';

// Push: devices per membership, messages fanned out by send-notification-<tenantId>-<requestId> through
// the development adapter (which records each delivery once and serves GET /dev/push).

let stack: TestStack;
let owner: Registered;
let manager: Member;
let recipient: Member;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  manager = await addMember(stack, owner.me.tenantId, ['MANAGER']);
  recipient = await addMember(stack, owner.me.tenantId, ['EMPLOYEE']);
});
afterAll(async () => {
  await stack.stop();
});

const deviceToken = () => `fcm:${randomBytes(48).toString('base64url')}`;
const register = (token: string, accessToken: string, userAgent = 'okhttp/4.12.0 (Android 14; Pixel 8)') =>
  api(stack).post('/api/v1/notifications/devices').set(...bearer(accessToken)).set('User-Agent', userAgent).send({ token });
const send = (body: Record<string, unknown>, accessToken = manager.accessToken) =>
  api(stack).post('/api/v1/notifications/messages').set(...bearer(accessToken)).send(body);
const status = (id: string) => api(stack).get(`/api/v1/notifications/messages/${id}`).set(...bearer(manager.accessToken)).expect(200).then((r) => r.body);

async function settled(id: string): Promise<{ status: string; counts: Record<string, number> }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const s = await status(id);
    if (!['QUEUED', 'SENDING'].includes(s.status)) return s;
    if (Date.now() > deadline) throw new Error(`message ${id} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('registerDevice and removeDevice: POST and DELETE /api/v1/notifications/devices', () => {
  test('201 with the platform from the User-Agent; the same token again is the same device', async () => {
    const token = deviceToken();
    const first = await register(token, recipient.accessToken).expect(201);
    expect(first.body).toEqual({ id: expect.any(String), platform: 'ANDROID' });
    const again = await register(token, recipient.accessToken, 'MyApp/2.1 CFNetwork/1490 Darwin/23.2.0').expect(201);
    expect(again.body).toEqual({ id: first.body.id, platform: 'IOS' });
    expect(JSON.stringify(again.body)).not.toContain(token);
    const [row] = await stack.admin.query<{ n: string }>('SELECT count(*) AS n FROM push_devices WHERE id = :id', {
      replacements: { id: first.body.id },
      type: QueryTypes.SELECT,
    });
    expect(Number(row!.n)).toBe(1);
  });

  test.each([
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0', 'WEB'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)', 'IOS'],
    ['curl/8.5.0', 'UNKNOWN'],
  ])('User-Agent %j registers platform %s', async (userAgent, platform) => {
    expect((await register(deviceToken(), recipient.accessToken, userAgent).expect(201)).body.platform).toBe(platform);
  });

  test('a token registered by another member, even in another workspace, moves to the caller and keeps its id', async () => {
    const token = deviceToken();
    const before = await register(token, recipient.accessToken).expect(201);
    const elsewhere = await registerWorkspace(stack);
    const moved = await register(token, elsewhere.accessToken).expect(201);
    expect(moved.body.id).toBe(before.body.id);
    // It is no longer the first member's: removing it there is 404; its new owner removes it.
    await api(stack).delete(`/api/v1/notifications/devices/${before.body.id}`).set(...bearer(recipient.accessToken)).expect(404);
    await api(stack).delete(`/api/v1/notifications/devices/${before.body.id}`).set(...bearer(elsewhere.accessToken)).expect(204);
  });

  test("removing another member's device is 404 and leaves it; one's own is 204, then 404", async () => {
    const { body } = await register(deviceToken(), recipient.accessToken).expect(201);
    await api(stack).delete(`/api/v1/notifications/devices/${body.id}`).set(...bearer(manager.accessToken)).expect(404);
    await api(stack).delete(`/api/v1/notifications/devices/${body.id}`).set(...bearer(recipient.accessToken)).expect(204);
    await api(stack).delete(`/api/v1/notifications/devices/${body.id}`).set(...bearer(recipient.accessToken)).expect(404);
  });

  test.each([
    ['19 characters', 'x'.repeat(19)],
    ['4097 characters', 'x'.repeat(4097)],
    ['spaces', 'has spaces in it but is long enough'],
    ['letters outside A-Z', 'ünïcödé-token-that-is-long-enough'],
  ])('a token with %s is a 400 problem', async (_label, token) => {
    const res = await register(token, recipient.accessToken).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  });
});

describe('sendNotification and getNotificationStatus: POST and GET /api/v1/notifications/messages (sendNotificationWorkflow)', () => {
  let member: Member;
  const tokens: string[] = [];

  beforeAll(async () => {
    member = await addMember(stack, owner.me.tenantId, ['VIEWER']);
    for (let i = 0; i < 3; i++) {
      tokens.push(deviceToken());
      await register(tokens[i]!, member.accessToken).expect(201);
    }
  });

  test('fans out to every device: 202 {id, devices}, then DELIVERED with counts; each device reads it from /dev/push', async () => {
    const requestId = randomUUID();
    const res = await send({ recipientMembershipId: member.membershipId, requestId, title: 'Invoice approved', body: 'INV-42 is approved.', clickPath: '/invoices/42' }).expect(202);
    expect(res.body).toEqual({ id: expect.any(String), devices: 3 });
    expect(await settled(res.body.id)).toEqual({ id: res.body.id, status: 'DELIVERED', counts: { SENT: 3 } });
    for (const token of tokens) {
      const pushes = await api(stack).get('/dev/push').query({ token }).expect(200);
      expect(pushes.body[0]).toEqual({ title: 'Invoice approved', body: 'INV-42 is approved.', clickPath: '/invoices/42', messageId: res.body.id, sentAt: expect.any(String) });
    }
    // The workflow is found by its business key, and its history carries ids only: no token, no text.
    const history = await stack.temporal.workflow.getHandle(sendNotificationWorkflowId(owner.me.tenantId, requestId)).fetchHistory();
    const text = JSON.stringify(history);
    for (const token of tokens) expect(text).not.toContain(token);
    expect(text).not.toContain(Buffer.from('INV-42').toString('base64'));
  });

  test('the same requestId ten times at once: one message, one fan-out, one push per device', async () => {
    const body = { recipientMembershipId: member.membershipId, requestId: randomUUID(), title: 'Once', body: 'Only once.' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(await settled(id!)).toMatchObject({ status: 'DELIVERED', counts: { SENT: 3 } });
    expect(await pushOutboxCount(stack.db, id!)).toBe(3);
    // The same requestId with other content is another request.
    const reused = await send({ ...body, title: 'Twice' }).expect(409);
    expect(reused.body.type).toMatch(/\/problems\/request-id-reused$/);
  });

  test('a member without devices: 202 with devices 0, then FAILED (nobody got it)', async () => {
    const res = await send({ recipientMembershipId: manager.membershipId, requestId: randomUUID(), title: 't', body: 'b' }).expect(202);
    expect(res.body.devices).toBe(0);
    expect(await settled(res.body.id)).toEqual({ id: res.body.id, status: 'FAILED', counts: {} });
  });

  test('a recipient outside the workspace is 404; a suspended one is 409 recipient-not-active; nothing is recorded', async () => {
    const outsider = await send({ recipientMembershipId: randomUUID(), requestId: randomUUID(), title: 't', body: 'b' }).expect(404);
    expect(outsider.headers['content-type']).toMatch(/application\/problem\+json/);
    const suspended = await addMember(stack, owner.me.tenantId, ['VIEWER']);
    await stack.admin.query("UPDATE memberships SET status = 'SUSPENDED' WHERE id = :id", { replacements: { id: suspended.membershipId } });
    const requestId = randomUUID();
    const refused = await send({ recipientMembershipId: suspended.membershipId, requestId, title: 't', body: 'b' }).expect(409);
    expect(refused.body.type).toMatch(/\/problems\/recipient-not-active$/);
    const rows = await stack.admin.query('SELECT 1 FROM push_messages WHERE request_id = :requestId', { replacements: { requestId }, type: QueryTypes.SELECT });
    expect(rows).toHaveLength(0);
  });

  test.each([
    ['a clickPath with two leading slashes', { clickPath: '//evil.example' }],
    ['a clickPath without a leading slash', { clickPath: 'invoices/42' }],
    ['a 121-character title', { title: 'x'.repeat(121) }],
    ['a 501-character body', { body: 'x'.repeat(501) }],
    ['a requestId that is no uuid', { requestId: 'not-a-uuid' }],
    ['an unknown member', { extra: true }],
  ])('%s is a 400 problem', async (_label, change) => {
    await send({ recipientMembershipId: member.membershipId, requestId: randomUUID(), title: 't', body: 'b', ...change }).expect(400);
  });

  test("another workspace's message is 404; GET /dev/push is not served on a workspace host", async () => {
    const elsewhere = await registerWorkspace(stack);
    const res = await send({ recipientMembershipId: member.membershipId, requestId: randomUUID(), title: 't', body: 'b' }).expect(202);
    await api(stack).get(`/api/v1/notifications/messages/${res.body.id}`).set(...bearer(elsewhere.accessToken)).expect(404);
    await api(stack).get('/dev/push').query({ token: tokens[0] }).set('Host', `${owner.me.company.slug}.localhost`).expect(404);
  });
});
