// Reads against a running service (`npm start`) with a C load generator (wrk from Debian, installed when
// missing), all in one run, each as a ratio of GET /healthz (Express and logging, no database) measured in
// the same run. This machine is shared and noisy: compare ratios, not absolute numbers.
//   npm run bench:http   (BENCH_SECONDS=8, BENCH_CONCURRENCY=32)
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { BASE, CONCURRENCY, registerWorkspace, requireRunningApi } from './harness';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

export function ensureWrk(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
  } catch {
    const sudo = process.getuid?.() === 0 ? '' : 'sudo -n ';
    execFileSync('sh', ['-c', `${sudo}apt-get install -y -q wrk || (${sudo}apt-get update -q && ${sudo}apt-get install -y -q wrk)`], { stdio: 'ignore' });
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
  }
}

export interface WrkResult {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** ms from wrk's "12.34ms", "1.2s", "900us". */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

/**
 * Runs wrk without blocking this process's event loop (other load from this process keeps going); with
 * `script`, a Lua file that builds each request (wrk's `request()`), e.g. a POST with a fresh body.
 */
export async function wrk(bin: string, path: string, headers: Record<string, string> = {}, seconds = SECONDS, script?: string): Promise<WrkResult> {
  const args = ['-t2', `-c${CONCURRENCY}`, `-d${seconds}s`, '--latency', ...(script ? ['-s', script] : [])];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const { stdout: out } = await promisify(execFile)(bin, [...args, `${BASE}${path}`], { encoding: 'utf8' });
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p50 = ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? '');
  const p99 = ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { perSecond, p50, p99, errors };
}

async function main(): Promise<void> {
  await requireRunningApi();
  const bin = ensureWrk();
  const { accessToken } = await registerWorkspace();
  const auth = { Authorization: `Bearer ${accessToken}` };
  const me = (await (await fetch(`${BASE}/api/v1/me`, { headers: auth })).json()) as { company: { id: string } };

  const rows: Array<{ request: string } & WrkResult> = [];
  const run = async (request: string, path: string, headers: Record<string, string> = {}) => rows.push({ request, ...(await wrk(bin, path, headers)) });
  await run('GET /healthz (floor)', '/healthz');
  await run('GET /api/v1/me', '/api/v1/me', auth);
  await run('GET /accounting-settings/{id}/accounts?size=50', `/api/v1/accounting-settings/${me.company.id}/accounts?size=50`, auth);

  const floor = rows[0]!.perSecond;
  console.log(`\nReads against ${BASE}: wrk -t2 -c${CONCURRENCY} -d${SECONDS}s, Node ${process.version}\n`);
  console.table(
    rows.map((r) => ({
      request: r.request,
      'req/s': Math.round(r.perSecond),
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      errors: r.errors,
      'of /healthz': `${Math.round((r.perSecond / floor) * 100)}%`,
    })),
  );
}

if (require.main === module) main().catch((err) => {
  console.error(err);
  process.exit(1);
});
