// Throughput and latency of the authentication paths over HTTP against a running API (`npm start`).
//   npm run bench                 (BENCH_URL=http://localhost:3000, BENCH_SECONDS=10, BENCH_CONCURRENCY=32)
// Prints one table row per scenario: requests/s, p50, p99, errors.
import { randomUUID } from 'node:crypto';
import { createPasswordHasher } from '../core/passwords';

const BASE = process.env.BENCH_URL ?? 'http://localhost:3000';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PASSWORD = 'benchmark password long enough';

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function registerWorkspace(): Promise<{ email: string; accessToken: string }> {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  await post('/api/v1/auth/magic-link/request', { email });
  let token: string | undefined;
  for (let i = 0; i < 100 && !token; i++) {
    const mail = (await (await fetch(`${BASE}/dev/mail?to=${encodeURIComponent(email)}`)).json()) as Array<{ text: string }>;
    token = /token=([A-Za-z0-9_-]{43})/.exec(mail[0]?.text ?? '')?.[1];
    if (!token) await new Promise((r) => setTimeout(r, 100));
  }
  if (!token) throw new Error('no registration mail: is the API running with the development outbox?');
  const res = await post('/api/v1/auth/register', { token, email, password: PASSWORD, confirmPassword: PASSWORD });
  if (res.status !== 201) throw new Error(`register answered ${res.status}`);
  return { email, ...((await res.json()) as { accessToken: string }) };
}

interface Row {
  scenario: string;
  concurrency: number;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function load(scenario: string, concurrency: number, seconds: number, client: (i: number) => Promise<() => Promise<boolean>>): Promise<Row> {
  const steps = await Promise.all(Array.from({ length: concurrency }, (_, i) => client(i)));
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    steps.map(async (step) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await step().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    scenario,
    concurrency,
    requests: latencies.length,
    perSecond: Math.round(latencies.length / elapsed),
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p99: Math.round(percentile(latencies, 99) * 10) / 10,
    errors,
  };
}

async function main(): Promise<void> {
  const health = await fetch(`${BASE}/readyz`).catch(() => null);
  if (!health?.ok) throw new Error(`no ready API at ${BASE}: start it with npm start`);
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
    await load('POST /api/v1/auth/login (one scrypt verify each)', 8, SECONDS, async () => async () => {
      const res = await post('/api/v1/auth/login', { email, password: PASSWORD });
      await res.arrayBuffer();
      return res.status === 200;
    }),
  );

  // The password hash alone, in this process, at the production cost.
  const logN = Number(process.env.PASSWORD_SCRYPT_LOG_N ?? 17);
  const hasher = createPasswordHasher(logN);
  const stored = await hasher.hash(PASSWORD);
  rows.push(
    await load(`scrypt verify, N=2^${logN} r=8 p=1 (in-process, libuv pool)`, 4, Math.min(SECONDS, 5), async () => async () => hasher.verify(PASSWORD, stored)),
  );

  console.log(`\nAuthentication benchmark against ${BASE}, ${SECONDS}s per scenario, Node ${process.version}\n`);
  console.table(rows.map((r) => ({ scenario: r.scenario, clients: r.concurrency, requests: r.requests, 'req/s': r.perSecond, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors })));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
