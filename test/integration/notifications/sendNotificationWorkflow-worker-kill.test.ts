import { randomBytes, randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { pushOutboxCount } from '../../../db/repositories/notifications/outbox';
import { startWorkerProcess, until } from '../../helpers/worker-process';

// sendNotificationWorkflow's worker is a real child process here, so it can be killed with SIGKILL mid fan-out.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
});
afterAll(async () => {
  await stack.stop();
});

const sentCount = async (messageId: string) => {
  const [row] = await stack.admin.query<{ n: string }>("SELECT count(*) AS n FROM push_deliveries WHERE message_id = :messageId AND state = 'SENT'", {
    replacements: { messageId },
    type: QueryTypes.SELECT,
  });
  return Number(row!.n);
};

test('"a worker killed mid fan-out and restarted sends each device exactly one message"', async () => {
  let worker = startWorkerProcess(stack); // also runs the registration's workflows below
  try {
    const owner = await registerWorkspace(stack);
    const member = await addMember(stack, owner.me.tenantId, ['EMPLOYEE']);
    // Enough devices that the fan-out is still going when the test looks: with 150, on a quiet machine, it had
    // sometimes sent them all before the first count above ten was read.
    const DEVICES = 600;
    await stack.admin.query(
      `INSERT INTO push_devices (id, tenant_id, membership_id, token, token_hash, platform)
       SELECT gen_random_uuid(), :tenantId, :membershipId, t, sha256(convert_to(t, 'UTF8')), 'ANDROID'
         FROM (SELECT :prefix || i AS t FROM generate_series(1, :n) i) tokens`,
      { replacements: { tenantId: owner.me.tenantId, membershipId: member.membershipId, prefix: `kill-test-${randomBytes(8).toString('hex')}-`, n: DEVICES } },
    );
    const res = await api(stack)
      .post('/api/v1/notifications/messages')
      .set(...bearer(owner.accessToken))
      .send({ recipientMembershipId: member.membershipId, requestId: randomUUID(), title: 'Once each', body: 'Exactly one per device.' })
      .expect(202);
    expect(res.body.devices).toBe(DEVICES);
    // Kill the worker once some devices have their message and others do not.
    const sentAtKill = await until(async () => {
      const n = await sentCount(res.body.id);
      return n >= 10 ? n : null;
    }, 30_000, 'the fan-out to start', 20);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    expect(sentAtKill).toBeLessThan(DEVICES);

    worker = startWorkerProcess(stack);
    const final = await until(async () => {
      const s = (await api(stack).get(`/api/v1/notifications/messages/${res.body.id}`).set(...bearer(owner.accessToken)).expect(200)).body;
      return s.status === 'DELIVERED' ? s : null;
    }, 90_000, 'the fan-out to finish after the restart');
    expect(final.counts).toEqual({ SENT: DEVICES });
    // Each device has exactly one recorded push: none lost, none twice.
    expect(await pushOutboxCount(stack.db, res.body.id)).toBe(DEVICES);
    const perDevice = await stack.admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM push_outbox o JOIN push_devices d ON d.token_hash = o.token_hash WHERE o.message_id = :id GROUP BY d.id HAVING count(*) <> 1`,
      { replacements: { id: res.body.id }, type: QueryTypes.SELECT },
    );
    expect(perDevice).toEqual([]);
  } finally {
    worker.kill('SIGTERM');
  }
}, 150_000);
