import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { adminUrlOf, startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { until } from '../../helpers/worker-process';
import { snapshotLockKey } from '../../../db/repositories/ledger/period-closes';

// The Temporal server restarted with workflows in flight: on a persistent store (the dev server's SQLite
// file here; the PostgreSQL-backed server keeps its state the same way) they complete afterwards, with
// the worker, the API and the relay left running. The server is this file's own, on its own port.

const ROOT = path.join(__dirname, '..', '..', '..');
const PORT = 7460 + (process.pid % 20);
const ADDRESS = `127.0.0.1:${PORT}`;
const temporalBin = execFileSync('bash', [path.join(ROOT, 'scripts/temporal-cli.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const dataDir = mkdtempSync(path.join(tmpdir(), 'temporal-restart-'));

let server: ChildProcess | null = null;
function startServer(): ChildProcess {
  return spawn(
    temporalBin,
    ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(PORT), '--ui-port', String(PORT + 1000), '--headless', '--namespace', 'default',
      '--search-attribute', 'TenantId=Keyword', '--db-filename', path.join(dataDir, 'temporal.db'), '--log-level', 'error'],
    { stdio: 'ignore' },
  );
}
function healthy(): boolean {
  try {
    execFileSync(temporalBin, ['operator', 'cluster', 'health', '--address', ADDRESS], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
async function stopServer(signal: NodeJS.Signals): Promise<void> {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server!.once('exit', resolve));
  server.kill(signal);
  await exited;
}

let stack: TestStack;
beforeAll(async () => {
  server = startServer();
  await until(async () => (healthy() ? true : null), 60_000, 'the private Temporal server', 250);
  stack = await startTestStack({ TEMPORAL_ADDRESS: ADDRESS });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await stopServer('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

test('closes in flight when the Temporal server dies (SIGKILL) complete after it restarts on the same store', async () => {
  const users: Registered[] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack), registerWorkspace(stack)]);
  for (const user of users) await ledgerApi(stack, user).post(simpleEntry('2025-03-10', '12.34')).expect(201);

  // Hold every close inside its snapshot, so all three are certainly in flight when the server dies.
  const holder = new PgClient({ connectionString: adminUrlOf(stack.config) });
  await holder.connect();
  try {
    for (const user of users) await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [snapshotLockKey(user.me.company.id, '2025-03-31')]);
    const closes = [];
    for (const user of users) closes.push((await ledgerApi(stack, user).close('2025-03-31').expect(202)).body.id as string);
    await until(async () => {
      const { rows } = await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'`);
      return rows[0].n >= users.length ? true : null;
    }, 30_000, 'every snapshot waiting on its lock');

    const killedAt = Date.now();
    await stopServer('SIGKILL');
    await holder.query('SELECT pg_advisory_unlock_all()');
    // Meanwhile the API still answers reads from the database.
    for (const [i, user] of users.entries()) expect((await ledgerApi(stack, user).getClose(closes[i]!).expect(200)).body.status).toBe('RUNNING');

    server = startServer();
    await until(async () => (healthy() ? true : null), 60_000, 'the restarted Temporal server', 250);
    for (const [i, user] of users.entries()) {
      const done = await waitForClose(ledgerApi(stack, user), closes[i]!, 120_000);
      expect(done.status).toBe('COMPLETED');
    }
    console.info(`Temporal restart: every close completed ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the server was killed`);
  } finally {
    await holder.end();
  }
}, 240_000);
