import { randomBytes, randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { startFakeFcm, type FakeFcm } from '../../helpers/fake-fcm';

// sendNotificationWorkflow's fan-out with the FCM adapter against a local fake FCM: an unregistered token settles INVALID_TOKEN
// and its device is removed, an outage is retried with backoff, a refusal fails that device only.

let stack: TestStack;
let fcm: FakeFcm;
let owner: Registered;

beforeAll(async () => {
  fcm = await startFakeFcm();
  stack = await startTestStack({ PUSH_FCM_SERVICE_ACCOUNT_FILE: fcm.serviceAccountFile, PUSH_FCM_ENDPOINT: fcm.endpoint });
  owner = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
  await fcm.close();
});

async function settled(id: string): Promise<{ status: string; counts: Record<string, number> }> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const s = (await api(stack).get(`/api/v1/notifications/messages/${id}`).set(...bearer(owner.accessToken)).expect(200)).body;
    if (!['QUEUED', 'SENDING'].includes(s.status)) return s;
    if (Date.now() > deadline) throw new Error(`message ${id} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('PARTIAL: two devices get it (one after a 503), an unregistered one is removed, a refused one fails', async () => {
  const member = await addMember(stack, owner.me.tenantId, ['EMPLOYEE']);
  const suffix = randomBytes(12).toString('hex');
  const tokens = [`ok-${suffix}-device-a`, `flaky-${suffix}-device-b`, `unregistered-${suffix}-c`, `invalid-${suffix}-device-d`];
  const ids: string[] = [];
  for (const token of tokens) {
    ids.push((await api(stack).post('/api/v1/notifications/devices').set(...bearer(member.accessToken)).send({ token }).expect(201)).body.id);
  }
  const res = await api(stack)
    .post('/api/v1/notifications/messages')
    .set(...bearer(owner.accessToken))
    .send({ recipientMembershipId: member.membershipId, requestId: randomUUID(), title: 'Payroll', body: 'November payroll is posted.', clickPath: '/payroll' })
    .expect(202);
  expect(res.body.devices).toBe(4);
  expect(await settled(res.body.id)).toEqual({ id: res.body.id, status: 'PARTIAL', counts: { SENT: 2, INVALID_TOKEN: 1, FAILED: 1 } });
  expect(fcm.accepted.filter((m) => m.data.messageId === res.body.id).map((m) => m.token).sort()).toEqual([tokens[0], tokens[1]].sort());
  const remaining = await stack.admin.query<{ id: string }>('SELECT id FROM push_devices WHERE membership_id = :membershipId ORDER BY id', {
    replacements: { membershipId: member.membershipId },
    type: QueryTypes.SELECT,
  });
  expect(remaining.map((r) => r.id).sort()).toEqual([ids[0], ids[1], ids[3]].sort());
  const failed = await stack.admin.query<{ error: string }>("SELECT error FROM push_deliveries WHERE message_id = :id AND state = 'FAILED'", {
    replacements: { id: res.body.id },
    type: QueryTypes.SELECT,
  });
  expect(failed[0]!.error).toBe('FCM answered HTTP 400 INVALID_ARGUMENT');
  // Development push is not served while FCM sends.
  await api(stack).get('/dev/push').query({ token: tokens[0] }).expect(404);
}, 40_000);
