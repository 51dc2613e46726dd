import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { QueryTypes } from 'sequelize';
import { loadTestConfig, startTestStack, type TestStack } from '../../helpers/stack';
import { api, registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';
import { until } from '../../helpers/worker-process';
import { setupDatabase } from '../../../db/setup';

// PostgreSQL restarted under 32 clients posting. A private cluster (pg_createcluster, its own port) is
// restarted, so no other test file loses its database. Every 201 is in the ledger exactly once, every
// other answer is absent from it (and never a 5xx other than 503), /readyz reports the outage while it
// lasts, and the same API process posts again within 10 s of the database's return.

const VERSION = readdirSync('/etc/postgresql').sort().at(-1)!;
const CLUSTER = `faults_${process.pid}`;
const PORT = 5490 + (process.pid % 9);
const OUTAGE_MS = 3000;
const CLIENTS = 32;
const env = { PGHOST_ADDR: `127.0.0.1:${PORT}`, DATABASE_NAME: 'accounting_faults' };
const pg = (...args: string[]) => execFileSync(args[0]!, args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  pg('pg_createcluster', VERSION, CLUSTER, '-p', String(PORT), '--start', '--', '--auth-host=trust', '--auth-local=trust');
  await until(async () => {
    try {
      pg('pg_isready', '-q', '-h', '127.0.0.1', '-p', String(PORT));
      return true;
    } catch {
      return null;
    }
  }, 30_000, 'the private cluster', 200);
  await setupDatabase(loadTestConfig(env));
  stack = await startTestStack(env);
  user = await registerWorkspace(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop().catch(() => undefined);
  pg('pg_dropcluster', '--stop', VERSION, CLUSTER);
});

interface Answer {
  requestId: string;
  status: number;
  at: number;
}

test('32 clients post through a PostgreSQL restart: 201s are in the ledger once, the rest absent, no 500, ready again within 10 s', async () => {
  const ledger = ledgerApi(stack, user);
  const answers: Answer[] = [];
  const readiness: Array<{ at: number; status: number; postgres: string }> = [];
  let stop = false;

  const client = async () => {
    while (!stop) {
      const body = simpleEntry('2025-05-15', '10.00');
      const res = await ledger.post(body);
      answers.push({ requestId: body.requestId, status: res.status, at: Date.now() });
      if (res.status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const prober = async () => {
    while (!stop) {
      const res = await api(stack).get('/readyz');
      readiness.push({ at: Date.now(), status: res.status, postgres: res.body?.checks?.postgres });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const load = [...Array.from({ length: CLIENTS }, client), prober()];

  await new Promise((resolve) => setTimeout(resolve, 2000));
  const downAt = Date.now();
  pg('pg_ctlcluster', VERSION, CLUSTER, 'stop', '-m', 'fast');
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  pg('pg_ctlcluster', VERSION, CLUSTER, 'start');
  const upAt = Date.now();
  const recovered = await until(async () => answers.find((a) => a.at > upAt && a.status === 201) ?? null, 30_000, 'a 201 after the restart', 50);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  stop = true;
  await Promise.all(load);

  const recoveryMs = recovered.at - upAt;
  const byStatus = answers.reduce<Record<number, number>>((acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }), {});
  console.info(`PostgreSQL restart: ${answers.length} posts ${JSON.stringify(byStatus)}; outage ${upAt - downAt} ms; first 201 ${recoveryMs} ms after the database was back`);

  expect(recoveryMs).toBeLessThan(10_000);
  expect(Object.keys(byStatus).map(Number).filter((s) => s !== 201 && s !== 503)).toEqual([]);
  expect(byStatus[201]).toBeGreaterThan(CLIENTS);
  expect(byStatus[503]).toBeGreaterThan(0);
  // /readyz said so while it lasted, and is ready again.
  expect(readiness.some((r) => r.at > downAt && r.at < upAt && r.status === 503 && r.postgres === 'DOWN')).toBe(true);
  expect(readiness.filter((r) => r.at > recovered.at + 500).every((r) => r.status === 200)).toBe(true);

  const rows = await stack.admin.query<{ request_id: string; n: number }>(
    'SELECT request_id, count(*)::int AS n FROM journal_entries WHERE tenant_id = :t GROUP BY request_id',
    { replacements: { t: user.me.tenantId }, type: QueryTypes.SELECT },
  );
  const stored = new Map(rows.map((r) => [r.request_id, r.n]));
  const created = answers.filter((a) => a.status === 201);
  expect(created.filter((a) => stored.get(a.requestId) !== 1).map((a) => a.requestId)).toEqual([]);
  expect(answers.filter((a) => a.status !== 201 && stored.has(a.requestId)).map((a) => a.requestId)).toEqual([]);
  expect(rows.length).toBe(created.length);
}, 180_000);
