// Push fan-out of one message to many devices of one member, through the development adapter, against a
// running API and worker (`npm start`): the time from 202 to DELIVERED, deliveries (activities) per second,
// and GET /me in the same run (before, as the floor, and while the fan-out runs: reads must not starve).
//   npm run bench:push   (BENCH_DEVICES=1000, BENCH_SECONDS=10, BENCH_CONCURRENCY=32)
// The devices are arranged directly in PostgreSQL (as the superuser of DATABASE_ADMIN_URL).
import { randomUUID } from 'node:crypto';
import { BASE, CONCURRENCY, SECONDS, adminClient, load, post, registerWorkspace, requireRunningApi, type Row } from './harness';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);

async function seedDevices(tenantId: string, membershipId: string, count: number): Promise<void> {
  const admin = await adminClient();
  try {
    await admin.query(
      `INSERT INTO push_devices (id, tenant_id, membership_id, token, token_hash, platform)
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, t, sha256(convert_to(t, 'UTF8')), 'ANDROID'
         FROM (SELECT 'bench-device-' || $3::text || '-' || n AS t FROM generate_series(1, $4::int) n) tokens`,
      [tenantId, membershipId, randomUUID(), count],
    );
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  await requireRunningApi();
  const { accessToken } = await registerWorkspace();
  const auth = { authorization: `Bearer ${accessToken}` };
  const me = (await (await fetch(`${BASE}/api/v1/me`, { headers: auth })).json()) as { tenantId: string; membershipId: string };
  await seedDevices(me.tenantId, me.membershipId, DEVICES);
  const getMe = async () => async () => {
    const res = await fetch(`${BASE}/api/v1/me`, { headers: auth });
    await res.arrayBuffer();
    return res.status === 200;
  };

  const rows: Row[] = [await load('GET /api/v1/me, nothing else running (floor)', CONCURRENCY, SECONDS, getMe)];

  const t0 = performance.now();
  const sent = await post('/api/v1/notifications/messages', { recipientMembershipId: me.membershipId, requestId: randomUUID(), title: 'Benchmark', body: 'One message to every device.' }, auth);
  const { id, devices } = (await sent.json()) as { id: string; devices: number };
  if (sent.status !== 202 || devices !== DEVICES) throw new Error(`send answered ${sent.status} with ${devices} devices`);
  const delivered = (async () => {
    for (;;) {
      const status = (await (await fetch(`${BASE}/api/v1/notifications/messages/${id}`, { headers: auth })).json()) as { status: string; counts: Record<string, number> };
      if (!['QUEUED', 'SENDING'].includes(status.status)) return { ...status, ms: performance.now() - t0 };
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  rows.push(await load(`GET /api/v1/me while ${DEVICES} deliveries run`, CONCURRENCY, SECONDS, getMe));
  const outcome = await delivered;

  console.log(`\nPush benchmark against ${BASE}, ${DEVICES} devices of one member, development adapter, Node ${process.version}\n`);
  console.table([
    {
      message: id,
      status: outcome.status,
      counts: JSON.stringify(outcome.counts),
      'ms to settled': Math.round(outcome.ms),
      'deliveries/s': Math.round((DEVICES / outcome.ms) * 1000),
    },
  ]);
  console.table(rows.map((r) => ({ scenario: r.scenario, clients: r.concurrency, requests: r.requests, 'req/s': r.perSecond, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors })));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
