// Workflow throughput at fixed offered rates, against a running service and the Temporal server it uses:
// requests are sent on a clock (request i at i/rate seconds, whatever the earlier answers), for
//   - magic links: POST /auth/magic-link/request, each starting one requestMagicLinkWorkflow
//     (one activity: store the link's hash, mail the link);
//   - email-code challenges: POST /me/security/step-up starts an emailChallengeWorkflow (its activity mails
//     the code); the client reads the code from the development outbox and sends it back, a Temporal update
//     whose VERIFIED answer lets the workflow finish (one more activity forgets the code).
// Per rate it prints completions per second, start → completed latency p50/p99 (Temporal's own start and
// close times), the backlog left when the offering window ends and how long it took to drain. Then the
// workflow-backed step beside the same step without Temporal (step-up with an authenticator code).
// Run it once per Temporal mode, with the request-rate limits raised (they would stop the load):
//   RATE_LIMIT_MAGIC_LINK_PER_IP=1000000/3600 RATE_LIMIT_REGISTER_PER_IP=1000000/600 \
//   RATE_LIMIT_EMAIL_CHALLENGE_PER_IP=1000000/600 RATE_LIMIT_EMAIL_CHALLENGE_PER_EMAIL=1000000/600 \
//   [TEMPORAL_MODE=postgres] npm start
//   [TEMPORAL_MODE=postgres] npm run bench:workflows   (BENCH_RATES=5,10,20,40, BENCH_WINDOW_SECONDS=20,
//   BENCH_SECTIONS=magic-links,challenges,steps)
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../runtime/config';
import { timeStep, totpAt } from '../core/identity/totp';
import { temporalConnectionOptions } from '../adapters/temporal/connection';
import { EMAIL_CHALLENGE_WORKFLOW, REQUEST_MAGIC_LINK_WORKFLOW } from '../contracts/identity';
import { BASE, PASSWORD, adminClient, percentile, post, registerWorkspace, requireRunningApi } from './harness';

const RATES = (process.env.BENCH_RATES ?? '5,10,20,40').split(',').map(Number).filter((n) => n > 0);
const WINDOW_SECONDS = Number(process.env.BENCH_WINDOW_SECONDS ?? 20);
const USERS = Number(process.env.BENCH_CHALLENGE_USERS ?? 32);
const STEPS = Number(process.env.BENCH_STEPS ?? 10);
const DRAIN_LIMIT_MS = 180_000;
/** magic-links, challenges, steps: the tables to print (all by default). */
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? 'magic-links,challenges,steps').split(','));

const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const ms = (n: number) => Math.round(n);
/** A difference in milliseconds with its sign: +12.3 ms, -0.4 ms. */
export const signedMs = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)} ms`;

export interface RateRow {
  workflow: string;
  'offered/s': number;
  'started/s': number;
  'completions/s': number;
  'p50 ms': number;
  'p99 ms': number;
  'backlog at window end': number;
  'drained s': number;
  errors: number;
}

/** Fires `fire(i)` at i/rate seconds from now for `seconds`; returns when the last has been sent. */
async function offer(rate: number, seconds: number, fire: (i: number) => Promise<void>): Promise<{ sent: Array<Promise<void>> }> {
  const n = Math.round(rate * seconds);
  const t0 = performance.now();
  const sent: Array<Promise<void>> = [];
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(fire(i));
  }
  return { sent };
}

async function countCompleted(client: Client, query: string): Promise<number> {
  return Number((await client.workflow.count(`${query} AND ExecutionStatus = 'Completed'`)).count);
}

/** Offers one workflow type at `rate` and measures it from Temporal's own start and close times. */
async function measureRate(
  client: Client,
  workflowType: string,
  rate: number,
  fire: (i: number) => Promise<void>,
): Promise<RateRow> {
  const since = new Date().toISOString();
  const query = `WorkflowType = '${workflowType}' AND StartTime >= '${since}'`;
  let errors = 0;
  const { sent } = await offer(rate, WINDOW_SECONDS, (i) => fire(i).catch(() => void errors++));
  const offered = sent.length;
  const backlog = offered - (await countCompleted(client, query));
  const windowEnd = performance.now();
  await Promise.all(sent);
  const expected = offered - errors;
  while ((await countCompleted(client, query)) < expected) {
    if (performance.now() - windowEnd > DRAIN_LIMIT_MS) throw new Error(`${workflowType} at ${rate}/s did not drain within ${DRAIN_LIMIT_MS / 1000} s`);
    await sleep(200);
  }
  const drained = (performance.now() - windowEnd) / 1000;
  const latencies: number[] = [];
  let first = Infinity;
  let lastStart = 0;
  let last = 0;
  for await (const info of client.workflow.list({ query: `${query} AND ExecutionStatus = 'Completed'` })) {
    const started = info.startTime.getTime();
    const closed = info.closeTime!.getTime();
    latencies.push(closed - started);
    first = Math.min(first, started);
    lastStart = Math.max(lastStart, started);
    last = Math.max(last, closed);
  }
  latencies.sort((a, b) => a - b);
  return {
    workflow: workflowType,
    'offered/s': rate,
    // Temporal's start times: a request that waited (for a free user) shows here, not in the offering.
    'started/s': Math.round(((latencies.length - 1) / ((lastStart - first) / 1000)) * 10) / 10,
    'completions/s': Math.round((latencies.length / ((last - first) / 1000)) * 10) / 10,
    'p50 ms': ms(percentile(latencies, 50)),
    'p99 ms': ms(percentile(latencies, 99)),
    'backlog at window end': backlog,
    'drained s': Math.round(drained * 10) / 10,
    errors,
  };
}

/** A magic link: one magic-link request, which starts one requestMagicLinkWorkflow. */
function magicLinkRequest(run: string) {
  return async (i: number) => {
    const res = await post('/api/v1/auth/magic-link/request', { email: `wf-${run}-${i}@example.com` });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`magic link answered ${res.status}`);
  };
}

interface ChallengeUser {
  email: string;
  accessToken: string;
}

/**
 * Codes from the development outbox, read straight from its table by one query every 20 ms for all
 * users (polling GET /dev/mail per waiting user would itself load the API under test).
 */
class CodeWatcher {
  private lastId = '0';
  private readonly waiting = new Map<string, (code: string) => void>();
  private readonly unclaimed = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;
  private constructor(private readonly admin: Awaited<ReturnType<typeof adminClient>>) {}

  static async start(): Promise<CodeWatcher> {
    const watcher = new CodeWatcher(await adminClient());
    const { rows } = await watcher.admin.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM mail_outbox');
    watcher.lastId = rows[0]!.id;
    const tick = async () => {
      await watcher.poll().catch((err: unknown) => console.error(err));
      watcher.timer = setTimeout(tick, 20);
    };
    void tick();
    return watcher;
  }

  private async poll(): Promise<void> {
    const { rows } = await this.admin.query<{ id: string; to_address: string; text: string }>(
      'SELECT id::text, to_address, text FROM mail_outbox WHERE id > $1 ORDER BY id',
      [this.lastId],
    );
    for (const row of rows) {
      this.lastId = row.id;
      // Link mails (registration, invitation) carry tokens in which eight digits can stand between hyphens.
      const code = /[?&](token|invitation)=/.test(row.text) ? undefined : /\b([0-9]{8})\b/.exec(row.text)?.[1];
      if (!code) continue;
      const waiter = this.waiting.get(row.to_address);
      if (waiter) {
        this.waiting.delete(row.to_address);
        waiter(code);
      } else this.unclaimed.set(row.to_address, [...(this.unclaimed.get(row.to_address) ?? []), code]);
    }
  }

  /** The next code mailed to `email` (one waiter per address at a time). */
  next(email: string): Promise<string> {
    const address = email.toLowerCase();
    const ready = this.unclaimed.get(address)?.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`no code mail to ${email} within 60 s`)), 60_000);
      this.waiting.set(address, (code) => {
        clearTimeout(timeout);
        resolve(code);
      });
    });
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.admin.end();
  }
}

/** A user whose second factor is the email code (registration and enabling each hash a password once). */
async function emailFactorUser(codes: CodeWatcher): Promise<ChallengeUser> {
  const { email, accessToken } = await registerWorkspace();
  const challenge = await post('/api/v1/me/security/email-factor/challenge', { currentPassword: PASSWORD, purpose: 'ENABLE' }, auth(accessToken));
  if (challenge.status !== 202) throw new Error(`email factor challenge answered ${challenge.status}`);
  const { challengeId } = (await challenge.json()) as { challengeId: string };
  const code = await codes.next(email);
  const res = await post('/api/v1/me/security/email-factor/confirm', { currentPassword: PASSWORD, challengeId, code }, auth(accessToken));
  if (res.status !== 200) throw new Error(`email factor confirm answered ${res.status}`);
  return { email, accessToken };
}

/** One step-up by email code: the challenge (workflow start), the mailed code, the verification (update). */
async function emailStepUp(user: ChallengeUser, codes: CodeWatcher): Promise<number> {
  const challenge = await post('/api/v1/me/security/step-up', {}, auth(user.accessToken));
  if (challenge.status !== 202) throw new Error(`step-up challenge answered ${challenge.status}`);
  const { challengeId } = (await challenge.json()) as { challengeId: string };
  const code = await codes.next(user.email);
  const t0 = performance.now();
  const res = await post('/api/v1/me/security/step-up', { challengeId, code }, auth(user.accessToken));
  const elapsed = performance.now() - t0;
  if (res.status !== 200) throw new Error(`email step-up answered ${res.status}: ${await res.text()}`);
  return elapsed;
}

/**
 * Email-code challenges from a pool of users, each user one challenge at a time (its code is then the
 * newest mail); a request that finds every user busy waits for one, which shows as started/s < offered/s.
 */
function emailChallenges(users: ChallengeUser[], codes: CodeWatcher, verifications: number[]) {
  const free = [...users];
  const waiting: Array<(u: ChallengeUser) => void> = [];
  const acquire = () => (free.length ? Promise.resolve(free.pop()!) : new Promise<ChallengeUser>((r) => waiting.push(r)));
  const release = (u: ChallengeUser) => (waiting.length ? waiting.shift()!(u) : free.push(u));
  return async () => {
    const user = await acquire();
    try {
      verifications.push(await emailStepUp(user, codes));
    } finally {
      release(user);
    }
  };
}

/** Step-up checked in the API (authenticator code) beside step-up through the workflow (email code), sequential. */
export async function stepComparison(steps = STEPS): Promise<{ totpP50: number; emailP50: number; samples: number }> {
  const authenticators = [];
  for (let i = 0; i < steps; i++) {
    const user = await registerWorkspace();
    const setup = await post('/api/v1/me/security/totp/setup', { currentPassword: PASSWORD }, auth(user.accessToken));
    const { secret, enrollmentId } = (await setup.json()) as { secret: string; enrollmentId: string };
    const confirm = await post('/api/v1/me/security/totp/confirm', { currentPassword: PASSWORD, enrollmentId, code: totpAt(secret, timeStep(Date.now())) }, auth(user.accessToken));
    if (confirm.status !== 200) throw new Error(`TOTP confirm answered ${confirm.status}`);
    authenticators.push({ token: user.accessToken, secret });
  }
  const codes = await CodeWatcher.start();
  const emailUsers: ChallengeUser[] = [];
  for (let i = 0; i < steps; i++) emailUsers.push(await emailFactorUser(codes));
  // A code is good once: wait for the next 30-second step, whose codes none of the confirmations used.
  await sleep(30_000 - (Date.now() % 30_000) + 100);
  const totp: number[] = [];
  for (const { token, secret } of authenticators) {
    const t0 = performance.now();
    const res = await post('/api/v1/me/security/step-up', { totpCode: totpAt(secret, timeStep(Date.now())) }, auth(token));
    totp.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`TOTP step-up answered ${res.status}: ${await res.text()}`);
  }
  const email: number[] = [];
  for (const user of emailUsers) email.push(await emailStepUp(user, codes));
  await codes.stop();
  totp.sort((a, b) => a - b);
  email.sort((a, b) => a - b);
  return { totpP50: percentile(totp, 50), emailP50: percentile(email, 50), samples: steps };
}

async function main(): Promise<void> {
  await requireRunningApi();
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const mode = process.env.TEMPORAL_MODE === 'postgres' ? 'Temporal server on PostgreSQL' : 'Temporal dev server (SQLite)';
  console.log(`\nWorkflow throughput against ${BASE}; ${mode} at ${config.temporal.address}; ${WINDOW_SECONDS} s per rate; Node ${process.version}`);

  if (SECTIONS.has('magic-links')) {
    const run = randomUUID().slice(0, 8);
    const rows: RateRow[] = [];
    for (const rate of RATES) rows.push(await measureRate(client, REQUEST_MAGIC_LINK_WORKFLOW, rate, magicLinkRequest(run)));
    console.log('\n1. Magic links, requestMagicLinkWorkflow (one activity each)');
    console.table(rows);
  }
  if (SECTIONS.has('challenges') && USERS > 0) await challengeTable(client);
  if (SECTIONS.has('steps') && STEPS > 0) await stepTable();
  await connection.close();
}

async function challengeTable(client: Client): Promise<void> {
  const rows: RateRow[] = [];
  const codes = await CodeWatcher.start();
  const users: ChallengeUser[] = [];
  while (users.length < USERS) users.push(...(await Promise.all([emailFactorUser(codes), emailFactorUser(codes)])));
  const verifications: Array<{ rate: number; p50: number; p99: number }> = [];
  for (const rate of RATES) {
    const samples: number[] = [];
    rows.push(await measureRate(client, EMAIL_CHALLENGE_WORKFLOW, rate, emailChallenges(users, codes, samples)));
    samples.sort((a, b) => a - b);
    verifications.push({ rate, p50: ms(percentile(samples, 50)), p99: ms(percentile(samples, 99)) });
  }
  console.log(`\n2. Email-code challenges (start, code mailed, verified by update, code forgotten; ${users.length} users, one challenge each at a time)`);
  console.table(rows.map((r, i) => ({ ...r, 'verify p50 ms': verifications[i]!.p50, 'verify p99 ms': verifications[i]!.p99 })));
  await codes.stop();
}

async function stepTable(): Promise<void> {
  const step = await stepComparison();
  console.log(`\n3. A workflow-backed step beside the same step without Temporal (${step.samples} sequential step-ups each)`);
  console.table([
    { step: 'step-up, authenticator code (checked in the API)', 'p50 ms': Math.round(step.totpP50 * 10) / 10, difference: '', target: '' },
    {
      step: 'step-up, email code (Temporal update to the challenge workflow)',
      'p50 ms': Math.round(step.emailP50 * 10) / 10,
      difference: signedMs(step.emailP50 - step.totpP50),
      target: '≤ +25 ms',
    },
  ]);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
