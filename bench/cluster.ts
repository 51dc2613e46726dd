// Two API processes behind nginx beside one process alone, in one run: scripts/start-cluster.sh starts nginx,
// two API processes, two workers, PgBouncer and the Temporal server on PostgreSQL (own ports and databases,
// beside whatever else runs), then the same wrk loads go to API process 1 directly and to nginx:
// GET /healthz, GET /api/v1/me, and posting two-line entries to one company and to eight.
// The factor is nginx → 2 processes over 1 process; on this 2-core machine the database, nginx, PgBouncer
// and wrk share the same cores, so it says what a second process adds here, not on a second machine.
//   npm run bench:cluster   (BENCH_SECONDS, BENCH_CONCURRENCY as for npm run bench)
import path from 'node:path';
import { startCluster } from '../tools/cluster';
import { CONCURRENCY, SECONDS, useBase } from './harness';
import { ensureWrk, wrk, type WrkResult } from './http';
import { workspace, wrkPosting, type Workspace } from './ledger';

const PORT = Number(process.env.BENCH_CLUSTER_PORT ?? 18180);

interface Measured {
  healthz: WrkResult;
  me: WrkResult;
  posting1: WrkResult;
  posting8: WrkResult;
}

async function measure(bin: string, one: Workspace, eight: Workspace[]): Promise<Measured> {
  const healthz = await wrk(bin, '/healthz');
  const me = await wrk(bin, '/api/v1/me', { authorization: `Bearer ${one.accessToken}` });
  const posting1 = await wrkPosting([one]);
  const posting8 = await wrkPosting(eight);
  return { healthz, me, posting1, posting8 };
}

const cell = (r: WrkResult) => `${Math.round(r.perSecond)}/s, p99 ${r.p99} ms${r.errors ? `, ${r.errors} errors` : ''}`;

export async function clusterScaling(bin: string): Promise<void> {
  const cluster = await startCluster({
    port: PORT,
    runDir: path.resolve(__dirname, '..', '..', '.data', 'cluster-bench'),
    databases: { app: 'accounting_cluster_bench', temporal: 'temporal_cluster_bench' },
    env: {
      NODE_ENV: 'development',
      PGBOUNCER_PORT: String(PORT - 1648),
      TEMPORAL_PORT: String(PORT - 847),
      RATE_LIMIT_MAGIC_LINK_PER_IP: '1000000/1',
      RATE_LIMIT_REGISTER_PER_IP: '1000000/1',
      RATE_LIMIT_LOGIN_PER_IP: '1000000/1',
      RATE_LIMIT_EMAIL_CHALLENGE_PER_IP: '1000000/1',
      PASSWORD_HASH_PER_CLIENT: '1000',
    },
  });
  try {
    useBase(`http://localhost:${PORT}`);
    const one = await workspace();
    const eight = await Promise.all(Array.from({ length: 8 }, () => workspace()));
    // One process alone first, then nginx over both: the same workspaces, the same loads.
    useBase(`http://localhost:${PORT + 1}`);
    const alone = await measure(bin, one, eight);
    useBase(`http://localhost:${PORT}`);
    const behindNginx = await measure(bin, one, eight);
    const row = (name: string, key: keyof Measured) => ({
      row: name,
      'one API process': cell(alone[key]),
      'nginx → two API processes': cell(behindNginx[key]),
      factor: `${(behindNginx[key].perSecond / alone[key].perSecond).toFixed(2)}×`,
    });
    console.log(`\n10. Two API processes behind nginx beside one process (wrk -t2 -c${CONCURRENCY} -d${SECONDS}s; PgBouncer, 2 workers)`);
    console.table([
      row('GET /healthz', 'healthz'),
      row('GET /api/v1/me', 'me'),
      row('POST /ledger/{id}/entries, one company', 'posting1'),
      row('the same over 8 companies', 'posting8'),
    ]);
  } finally {
    await cluster.stop();
  }
}

if (require.main === module) {
  clusterScaling(ensureWrk()).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
