// Listing members of a large workspace over HTTP against a running API (`npm start`), beside GET /me in the
// same run as the floor:   npm run bench:users   (BENCH_MEMBERS=1000, BENCH_SECONDS=10, BENCH_CONCURRENCY=32)
// The members are arranged directly in PostgreSQL (as the superuser of DATABASE_ADMIN_URL): invitations
// would spend a password hash per member, which is not what this measures.
import { Client } from 'pg';
import { loadConfig, databaseName } from '../core/config';
import { BASE, CONCURRENCY, SECONDS, load, registerWorkspace, requireRunningApi, type Row } from './harness';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);

async function seedMembers(tenantId: string, count: number): Promise<void> {
  const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
  if (!config.database.adminUrl) throw new Error('seeding members needs DATABASE_ADMIN_URL (a superuser)');
  const url = new URL(config.database.adminUrl);
  url.pathname = `/${databaseName(config.database.url)}`;
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query('BEGIN');
    await admin.query(
      `CREATE TEMP TABLE seeded ON COMMIT DROP AS
         SELECT gen_random_uuid() AS identity_id, gen_random_uuid() AS user_id, gen_random_uuid() AS membership_id, n
           FROM generate_series(1, $1::int) n`,
      [count],
    );
    await admin.query(
      `INSERT INTO identities (id, email, password_hash)
         SELECT identity_id, 'member-' || n || '-' || left($1::text, 8) || '@bench.example.com', 'not-a-usable-hash' FROM seeded`,
      [tenantId],
    );
    await admin.query(
      `INSERT INTO users (tenant_id, id, identity_id, display_name) SELECT $1::uuid, user_id, identity_id, 'Member ' || lpad(n::text, 5, '0') FROM seeded`,
      [tenantId],
    );
    await admin.query(`INSERT INTO memberships (tenant_id, id, user_id, status) SELECT $1::uuid, membership_id, user_id, 'ACTIVE' FROM seeded`, [tenantId]);
    await admin.query(
      `INSERT INTO membership_roles (tenant_id, membership_id, role_id)
         SELECT $1::uuid, s.membership_id, r.id FROM seeded s JOIN roles r ON r.tenant_id = $1::uuid AND r.code = 'EMPLOYEE'`,
      [tenantId],
    );
    await admin.query('COMMIT');
    await admin.query('ANALYZE identities, users, memberships, membership_roles');
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  await requireRunningApi();
  const { accessToken } = await registerWorkspace();
  const auth = { authorization: `Bearer ${accessToken}` };
  const me = (await (await fetch(`${BASE}/api/v1/me`, { headers: auth })).json()) as { tenantId: string };
  await seedMembers(me.tenantId, MEMBERS - 1);

  const get = (path: string) => async () => async () => {
    const res = await fetch(`${BASE}${path}`, { headers: auth });
    await res.arrayBuffer();
    return res.status === 200;
  };
  const rows: Row[] = [];
  rows.push(await load('GET /api/v1/me (floor)', CONCURRENCY, SECONDS, get('/api/v1/me')));
  rows.push(await load(`GET /api/v1/users?size=50 (${MEMBERS} members)`, CONCURRENCY, SECONDS, get('/api/v1/users?size=50')));
  rows.push(await load(`GET /api/v1/users?size=50&page=19 (last page)`, CONCURRENCY, SECONDS, get(`/api/v1/users?size=50&page=${Math.max(0, Math.ceil(MEMBERS / 50) - 1)}`)));
  rows.push(await load('GET /api/v1/users?q=member%2042 (search)', CONCURRENCY, SECONDS, get('/api/v1/users?q=member%2042')));

  console.log(`\nMembers benchmark against ${BASE}, ${MEMBERS} members in one workspace, ${SECONDS}s per scenario, Node ${process.version}\n`);
  console.table(rows.map((r) => ({ scenario: r.scenario, clients: r.concurrency, requests: r.requests, 'req/s': r.perSecond, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors })));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
