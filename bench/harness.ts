// Shared by the benchmarks: a load generator, percentiles and a workspace to run against.
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig, databaseName } from '../runtime/config';

// Every benchmark sends its requests to BASE; the cluster benchmark points it at each process in turn.
export let BASE = process.env.BENCH_URL ?? 'http://localhost:3000';
export function useBase(url: string): void {
  BASE = url;
}
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
export const PASSWORD = 'benchmark password long enough';

export async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const send = () => fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  // A kept-alive socket the server closed while idle fails before the request is sent: send it once more.
  return send().catch((err: unknown) => (err instanceof TypeError && err.message === 'fetch failed' ? send() : Promise.reject(err)));
}

export async function registerWorkspace(): Promise<{ email: string; accessToken: string }> {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  await post('/api/v1/auth/magic-link/request', { email });
  let token: string | undefined;
  for (let i = 0; i < 100 && !token; i++) {
    const mail = (await (await fetch(`${BASE}/dev/mail?to=${encodeURIComponent(email)}`)).json()) as Array<{ text: string }>;
    token = /token=([A-Za-z0-9_-]{43})/.exec(mail[0]?.text ?? '')?.[1];
    if (!token) await new Promise((r) => setTimeout(r, 100));
  }
  if (!token) throw new Error('no registration mail: is the API running with the development outbox?');
  let res = await post('/api/v1/auth/register', { token, email, password: PASSWORD, confirmPassword: PASSWORD });
  // Password hashes queue behind a gate; a registration refused as busy is sent again after Retry-After.
  for (let i = 0; i < 20 && res.status === 503 && res.headers.get('retry-after'); i++) {
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after'))));
    res = await post('/api/v1/auth/register', { token, email, password: PASSWORD, confirmPassword: PASSWORD });
  }
  if (res.status !== 201) throw new Error(`register answered ${res.status}`);
  return { email, ...((await res.json()) as { accessToken: string }) };
}

export interface Row {
  scenario: string;
  concurrency: number;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

export async function load(scenario: string, concurrency: number, seconds: number, client: (i: number) => Promise<() => Promise<boolean>>): Promise<Row> {
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


/**
 * Refuses to run without a ready API, and prints the settings it runs with (api_configuration_info of its
 * metrics, BENCH_METRICS_URL, default the METRICS_PORT's): a benchmark's numbers hold for that configuration.
 */
export async function requireRunningApi(): Promise<void> {
  const health = await fetch(`${BASE}/readyz`).catch(() => null);
  if (!health?.ok) throw new Error(`no ready API at ${BASE}: start it with npm start`);
  console.log(`API configuration: ${await apiConfiguration()}`);
}

async function apiConfiguration(): Promise<string> {
  const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
  const url = process.env.BENCH_METRICS_URL ?? `http://127.0.0.1:${config.metricsPort}/metrics`;
  const text = await (await fetch(url).catch(() => null))?.text().catch(() => '');
  const labels = /^api_configuration_info\{([^}]*)\} 1$/m.exec(text ?? '')?.[1];
  if (!labels) return `unknown (no api_configuration_info at ${url})`;
  const of = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1] ?? '?';
  const production = of('validate_responses') === 'false' && of('log_level') === 'info' && of('log_format') === 'json';
  return `NODE_ENV=${of('node_env')}, response validation ${of('validate_responses') === 'true' ? 'on' : 'off'}, logs ${of('log_format')} at ${of('log_level')}` +
    (production ? ' (as in production)' : ' (not as in production: VALIDATE_RESPONSES=false LOG_LEVEL=info LOG_FORMAT=json are)');
}

/** A connected superuser client on the service's database (DATABASE_ADMIN_URL), for arranging large data sets. */
export async function adminClient(): Promise<Client> {
  const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
  if (!config.database.adminUrl) throw new Error('arranging benchmark data needs DATABASE_ADMIN_URL (a superuser)');
  const url = new URL(config.database.adminUrl);
  url.pathname = `/${databaseName(config.database.url)}`;
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  return admin;
}
