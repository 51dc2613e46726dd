// Throughput and latency of the authentication paths over HTTP against a running API (`npm start`).
//   npm run bench                 (BENCH_URL=http://localhost:3000, BENCH_SECONDS=10, BENCH_CONCURRENCY=32)
// Prints one table row per scenario: requests/s, p50, p99, errors.
import { OWASP_ARGON2ID, createPasswordHasher } from '../core/identity/passwords';
import { BASE, CONCURRENCY, PASSWORD, SECONDS, load, post, registerWorkspace, requireRunningApi, type Row } from './harness';

async function main(): Promise<void> {
  await requireRunningApi();
  const rows: Row[] = [];

  const { email, accessToken } = await registerWorkspace();
  rows.push(
    await load('GET /api/v1/me (token verify + permission query + read)', CONCURRENCY, SECONDS, async () => async () => {
      const res = await fetch(`${BASE}/api/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      await res.arrayBuffer();
      return res.status === 200;
    }),
  );

  rows.push(
    await load('POST /api/v1/auth/refresh (rotate one-time token)', CONCURRENCY, SECONDS, async () => {
      const login = await post('/api/v1/auth/login', { email, password: PASSWORD });
      let { refreshToken } = (await login.json()) as { refreshToken: string };
      return async () => {
        const res = await post('/api/v1/auth/refresh', { refreshToken });
        if (res.status !== 200) return false;
        ({ refreshToken } = (await res.json()) as { refreshToken: string });
        return true;
      };
    }),
  );

  rows.push(
    await load('POST /api/v1/auth/login (one Argon2id verify each)', 8, SECONDS, async () => async () => {
      const res = await post('/api/v1/auth/login', { email, password: PASSWORD });
      await res.arrayBuffer();
      return res.status === 200;
    }),
  );

  // The password hash alone, in this process, at the production cost.
  const hasher = createPasswordHasher(OWASP_ARGON2ID);
  const stored = await hasher.hash(PASSWORD);
  rows.push(
    await load(`Argon2id verify, m=${OWASP_ARGON2ID.memoryKib} KiB t=${OWASP_ARGON2ID.timeCost} p=1 (in-process, libuv pool)`, 4, Math.min(SECONDS, 5), async () => async () => hasher.verify(PASSWORD, stored)),
  );

  console.log(`\nAuthentication benchmark against ${BASE}, ${SECONDS}s per scenario, Node ${process.version}\n`);
  console.table(rows.map((r) => ({ scenario: r.scenario, clients: r.concurrency, requests: r.requests, 'req/s': r.perSecond, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors })));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
