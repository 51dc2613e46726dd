import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { startCluster, type Cluster } from '../../tools/cluster';

// The service as several processes (scripts/start-cluster.sh): nginx in front of two API processes, two
// workers, PgBouncer in transaction mode in front of PostgreSQL, the Temporal server on PostgreSQL.
// Registrations, postings and a period close go through nginx to both API processes; mid-load one API
// process and one worker are killed with SIGKILL. Every posting the service acknowledged must exist exactly
// once, and the close must complete.

const ROOT = path.resolve(__dirname, '..', '..');
const PORT = 18080;
const RUN_DIR = path.join(ROOT, '.data', 'cluster-test');
const DATABASE = 'accounting_cluster_test';
const TEMPORAL_DATABASE = 'temporal_cluster_test';
const ADMIN_URL = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BASE_DOMAIN = 'localhost';
const PASSWORD = 'correct horse battery staple';

const missing = ['nginx', 'pgbouncer'].filter(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool} || test -x /usr/sbin/${tool}`]).status !== 0,
);
if (missing.length > 0) {
  // scripts/test.sh installs both from Debian's packages; only a machine where that failed gets here.
  console.warn(`cluster test skipped: ${missing.join(' and ')} could not be installed (apt-get install nginx pgbouncer)`);
}
const describeCluster = missing.length > 0 ? describe.skip : describe;

interface Answer {
  status: number;
  body: Record<string, unknown> & { items?: unknown[] };
  headers: http.IncomingHttpHeaders;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** One request to nginx (or, with `port`, to one API process directly) with the given Host. */
function send(method: string, host: string, url: string, options: { body?: unknown; token?: string; port?: number } = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port: options.port ?? PORT,
        method,
        path: url,
        headers: {
          Host: host,
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Answer['body'] = {};
          try {
            body = text ? (JSON.parse(text) as Answer['body']) : {};
          } catch {
            body = { text };
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: Cluster | null = null;

function running(): Cluster {
  if (!cluster) throw new Error('the cluster did not start');
  return cluster;
}

interface Workspace {
  host: string;
  token: string;
  companyId: string;
  tenantId: string;
}

/** Registers a workspace on the central host: magic link, the mailed token, registration. */
async function register(): Promise<Workspace> {
  const email = `cluster-${randomUUID().slice(0, 8)}@example.com`;
  const asked = await send('POST', BASE_DOMAIN, '/api/v1/auth/magic-link/request', { body: { email } });
  expect(asked.status).toBe(202);
  let token: string | undefined;
  for (let i = 0; i < 200 && !token; i++) {
    const mail = await send('GET', BASE_DOMAIN, `/dev/mail?to=${encodeURIComponent(email)}`);
    const text = ((mail.body as unknown as Array<{ text: string }>)[0]?.text ?? '') as string;
    token = /token=([A-Za-z0-9_-]{43})/.exec(text)?.[1];
    if (!token) await sleep(100);
  }
  expect(token).toBeDefined();
  const company = { name: `Cluster firm ${randomUUID().slice(0, 6)}`, taxId: '123456789' };
  const registered = await send('POST', BASE_DOMAIN, '/api/v1/auth/register', {
    body: { token, email, password: PASSWORD, confirmPassword: PASSWORD, company },
  });
  expect(registered.status).toBe(201);
  const accessToken = registered.body.accessToken as string;
  const me = await send('GET', BASE_DOMAIN, '/api/v1/me', { token: accessToken });
  expect(me.status).toBe(200);
  const meCompany = me.body.company as { id: string; slug: string };
  return { host: `${meCompany.slug}.${BASE_DOMAIN}`, token: accessToken, companyId: meCompany.id, tenantId: me.body.tenantId as string };
}

/**
 * Posts one entry until the service acknowledges it, as a client should: a refused connection, a cut
 * response or nginx's 503 (no process answered) is retried with the same requestId, which the service
 * answers idempotently. Returns the acknowledged entry's id.
 */
async function postUntilAcknowledged(ws: Workspace, entryDate: string, amount: string): Promise<{ requestId: string; entryId: string; tries: number }> {
  const requestId = randomUUID();
  const body = {
    requestId,
    entryDate,
    description: `Cluster load ${requestId.slice(0, 8)}`,
    lines: [
      { accountCode: '5110', debit: amount, credit: '0' },
      { accountCode: '9010', debit: '0', credit: amount },
    ],
  };
  for (let tries = 1; ; tries++) {
    const answer = await send('POST', ws.host, `/api/v1/ledger/${ws.companyId}/entries`, { body, token: ws.token }).catch(() => null);
    if (answer?.status === 201) return { requestId, entryId: answer.body.id as string, tries };
    if (answer && answer.status !== 503 && answer.status !== 502) {
      throw new Error(`posting answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    if (tries >= 60) throw new Error(`posting ${requestId} not acknowledged after ${tries} tries`);
    await sleep(200);
  }
}

describeCluster('several processes behind nginx and PgBouncer (scripts/start-cluster.sh)', () => {
  beforeAll(async () => {
    cluster = await startCluster({
      port: PORT,
      runDir: RUN_DIR,
      databases: { app: DATABASE, temporal: TEMPORAL_DATABASE },
      env: {
        NODE_ENV: 'development',
        PGBOUNCER_PORT: '16432',
        PGBOUNCER_POOL_SIZE: '8',
        TEMPORAL_PORT: '17233',
        TEMPORAL_DB_MAX_CONNS: '8',
        TEMPORAL_VISIBILITY_DB_MAX_CONNS: '2',
        DATABASE_POOL_MAX: '6',
        BASE_DOMAIN,
        // A cheap password hash and no request limits: the test is about processes, not login cost.
        PASSWORD_ARGON2_MEMORY_KIB: '4096',
        PASSWORD_ARGON2_TIME_COST: '1',
        RATE_LIMIT_MAGIC_LINK_PER_IP: '1000000/1',
        RATE_LIMIT_REGISTER_PER_IP: '1000000/1',
        RATE_LIMIT_LOGIN_PER_IP: '1000000/1',
        // No outside rate feed is reachable from the test machine.
        RATES_CBU_URL: 'http://127.0.0.1:9/cbu',
        RATES_BANK_URL: 'http://127.0.0.1:9/bank',
      },
    });
  }, 600_000);

  afterAll(async () => {
    await cluster?.stop();
    agent.destroy();
  }, 60_000);

  it('routes the central, workspace and callback hosts, and answers its own refusals as problem documents', async () => {
    const unknown = await send('GET', 'elsewhere.example', '/api/v1/me');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    // The callback host serves the provider's webhook only, and the API itself refuses a missing token.
    const callbackOther = await send('GET', `callbacks.${BASE_DOMAIN}`, '/api/v1/me');
    expect(callbackOther.status).toBe(404);
    expect(callbackOther.body.type).toBe('/problems/not-found');
    const callback = await send('POST', `callbacks.${BASE_DOMAIN}`, '/api/v1/callbacks/email-events', { body: [] });
    expect(callback.status).toBe(401);
    expect(callback.headers['www-authenticate']).toMatch(/^X-Auth/);
    const ready = await send('GET', `api.${BASE_DOMAIN}`, '/readyz');
    expect(ready.status).toBe(200);
  });

  it('keeps every acknowledged posting exactly once and completes a close while an API process and a worker are killed', async () => {
    const workspaces = [await register(), await register()];
    // Both API processes took part in the registrations (nginx balances round robin).
    for (const n of [1, 2]) {
      const metrics = await send('GET', '127.0.0.1', '/metrics', { port: PORT + 100 + n });
      expect(Number(/^http_request_duration_seconds_count\{[^}]*\} (\d+)/m.exec(String(metrics.body.text))?.[1] ?? 0)).toBeGreaterThan(0);
    }

    // The period to close has entries of its own, posted before the load.
    const closeDate = '2026-01-31';
    for (const ws of workspaces) {
      for (let i = 0; i < 5; i++) await postUntilAcknowledged(ws, '2026-01-15', '100.00');
    }

    const acknowledged = new Map<string, { requestId: string; entryId: string; tenantId: string }>();
    let retried = 0;
    let loading = true;
    const clients = Array.from({ length: 8 }, async (_, c) => {
      const ws = workspaces[c % workspaces.length];
      while (loading) {
        const posted = await postUntilAcknowledged(ws, '2026-02-10', `${c + 1}.25`);
        if (posted.tries > 1) retried++;
        acknowledged.set(posted.requestId, { ...posted, tenantId: ws.tenantId });
      }
    });

    await sleep(1500);
    const closes = await Promise.all(
      workspaces.map((ws) => send('POST', ws.host, `/api/v1/ledger/${ws.companyId}/periods/close`, { body: { requestId: randomUUID(), closeDate }, token: ws.token })),
    );
    for (const close of closes) expect(close.status).toBe(202);
    const killedApi = running().pidOf('api-1');
    const killedWorker = running().pidOf('worker-1');
    process.kill(killedApi, 'SIGKILL');
    process.kill(killedWorker, 'SIGKILL');
    await sleep(4000);
    loading = false;
    await Promise.all(clients);

    // Each close completes (a worker was lost mid-load; the other, or the restarted one, finishes it).
    for (const [i, ws] of workspaces.entries()) {
      const closeId = closes[i].body.id as string;
      const deadline = Date.now() + 180_000;
      let status = 'RUNNING';
      while (status === 'RUNNING') {
        const res = await send('GET', ws.host, `/api/v1/ledger/${ws.companyId}/periods/${closeId}`, { token: ws.token });
        expect(res.status).toBe(200);
        status = res.body.status as string;
        if (status === 'RUNNING') {
          if (Date.now() > deadline) throw new Error(`close ${closeId} still RUNNING\n${running().logTail('worker-2.log')}`);
          await sleep(250);
        }
      }
      expect(status).toBe('COMPLETED');
    }

    // Every acknowledged posting exists exactly once, with the id the client was given; nothing else was
    // posted in the loaded period.
    expect(acknowledged.size).toBeGreaterThan(20);
    const rows = new PgClient({ connectionString: ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE}`) });
    await rows.connect();
    try {
      const stored = await rows.query<{ request_id: string; ids: string[] }>(
        `SELECT request_id::text, array_agg(id::text) AS ids FROM journal_entries
          WHERE tenant_id = ANY($1::uuid[]) AND entry_date = '2026-02-10' GROUP BY request_id`,
        [workspaces.map((ws) => ws.tenantId)],
      );
      const byRequest = new Map(stored.rows.map((r) => [r.request_id, r.ids]));
      expect(byRequest.size).toBe(acknowledged.size);
      for (const posted of acknowledged.values()) expect(byRequest.get(posted.requestId)).toEqual([posted.entryId]);
    } finally {
      await rows.end();
    }

    // The supervisor started the killed processes again, and the restarted API serves requests.
    expect(running().pidOf('api-1')).not.toBe(killedApi);
    expect(running().pidOf('worker-1')).not.toBe(killedWorker);
    let restarted = 0;
    for (let i = 0; i < 120 && restarted !== 200; i++) {
      restarted = (await send('GET', BASE_DOMAIN, '/readyz', { port: PORT + 1 }).catch(() => ({ status: 0 }))).status;
      if (restarted !== 200) await sleep(250);
    }
    expect(restarted).toBe(200);
    console.info(`cluster test: ${acknowledged.size} postings acknowledged, ${retried} of them after a retry`);
  }, 400_000);
});
