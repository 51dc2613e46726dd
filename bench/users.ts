// Listing members of a large workspace over HTTP against a running API (`npm start`), beside GET /me in the
// same run as the floor, and invitation acceptance end to end (request → workflow → tokens):
//   npm run bench:users   (BENCH_MEMBERS=1000, BENCH_SECONDS=10, BENCH_CONCURRENCY=32, BENCH_ACCEPTS=40)
// Acceptances are limited to 20 per client IP in ten minutes: run the API for it with
// RATE_LIMIT_INVITATION_ACCEPT_PER_IP=1000/600 npm start.
// The members are arranged directly in PostgreSQL (as the superuser of DATABASE_ADMIN_URL): invitations
// would spend a password hash per member, which is not what this measures.
import { request } from 'node:http';
import { BASE, CONCURRENCY, SECONDS, adminClient, load, percentile, post, registerWorkspace, requireRunningApi, type Row } from './harness';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const ACCEPTS = Number(process.env.BENCH_ACCEPTS ?? 40);

/** A POST with a Host header (fetch ignores it): the workspace host decides the workspace. */
function postOnHost(path: string, body: unknown, host: string): Promise<number> {
  const url = new URL(path, BASE);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The token of the invitation mail to `email` (`invitation=<token>`), read from the development outbox. */
async function mailedInvitationToken(email: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = (await (await fetch(`${BASE}/dev/mail?to=${encodeURIComponent(email)}`)).json()) as Array<{ text: string }>;
    const token = /invitation=([A-Za-z0-9_-]{43})/.exec(mail[0]?.text ?? '')?.[1];
    if (token) return token;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no invitation mail: is the API running with the development outbox?');
}

/**
 * Invites (EMAIL) and accepts one new person at a time with the mailed token (a new identity is created
 * only from it): the latency a person waits for their tokens. The mail is waited for outside the timing.
 */
async function acceptLatencies(accessToken: string, slug: string): Promise<Row> {
  const host = `${slug}.${new URL(BASE).hostname}`;
  const times: number[] = [];
  let errors = 0;
  let waited = 0;
  const started = Date.now();
  for (let i = 0; i < ACCEPTS; i++) {
    const email = `invitee-${i}-${Date.now()}@bench.example.com`;
    const invited = await post('/api/v1/membership-invitations?delivery=EMAIL', { email, roles: ['EMPLOYEE'] }, { authorization: `Bearer ${accessToken}` });
    if (invited.status !== 201) throw new Error(`createInvitation answered ${invited.status}`);
    const mailWait = Date.now();
    const token = await mailedInvitationToken(email);
    waited += Date.now() - mailWait;
    const t0 = performance.now();
    const status = await postOnHost('/api/v1/auth/membership-invitations/accept', { token, password: 'benchmark invitee password' }, host);
    times.push(performance.now() - t0);
    if (status !== 200) errors += 1;
  }
  times.sort((a, b) => a - b);
  // The rate counts the invitation and the acceptance, not the wait for the mail.
  const seconds = (Date.now() - started - waited) / 1000;
  return {
    scenario: 'POST /auth/membership-invitations/accept, new identity (Argon2id + workflow accept-invitation-<id> + tokens), one at a time',
    concurrency: 1,
    requests: ACCEPTS,
    perSecond: Math.round(ACCEPTS / seconds),
    p50: Math.round(percentile(times, 50) * 10) / 10,
    p99: Math.round(percentile(times, 99) * 10) / 10,
    errors,
  };
}

async function seedMembers(tenantId: string, count: number): Promise<void> {
  const admin = await adminClient();
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
  const me = (await (await fetch(`${BASE}/api/v1/me`, { headers: auth })).json()) as { tenantId: string; company: { slug: string } };
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
  rows.push(await acceptLatencies(accessToken, me.company.slug));

  console.log(`\nMembers benchmark against ${BASE}, ${MEMBERS} members in one workspace, ${SECONDS}s per scenario, Node ${process.version}\n`);
  console.table(rows.map((r) => ({ scenario: r.scenario, clients: r.concurrency, requests: r.requests, 'req/s': r.perSecond, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors })));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
