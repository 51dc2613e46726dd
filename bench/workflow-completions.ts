// Workflow completions per second against a running service (`npm start`, or `TEMPORAL_MODE=postgres npm
// start`): BENCH_WORKFLOWS magic-link requests from BENCH_CONCURRENCY clients, each starting one
// requestMagicLinkWorkflow (one activity that stores the magic link and mails it); the clock runs from the
// first request to the moment Temporal's visibility counts them all completed.
//   RATE_LIMIT_MAGIC_LINK_PER_IP=1000000/3600 npm start        (the per-IP limit would stop the benchmark)
//   npm run bench:workflow-completions   (BENCH_WORKFLOWS=300, BENCH_CONCURRENCY=16)
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../runtime/config';
import { temporalConnectionOptions } from '../adapters/temporal/connection';
import { REQUEST_MAGIC_LINK_WORKFLOW } from '../contracts/identity';
import { BASE, post, requireRunningApi } from './harness';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

/** Offers `workflows` magic-link requests from `concurrency` clients; times their answers and completions. */
export async function measureCompletions(workflows = WORKFLOWS, concurrency = CONCURRENCY) {
  const WORKFLOWS = workflows;
  const CONCURRENCY = concurrency;
  const config = loadConfig({ NODE_ENV: 'development', ...process.env });
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const since = new Date(Date.now() - 1000).toISOString();
  const run = randomUUID().slice(0, 8);

  const t0 = performance.now();
  let next = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < WORKFLOWS) {
        const i = next++;
        const res = await post('/api/v1/auth/magic-link/request', { email: `wf-${run}-${i}@example.com` });
        if (res.status !== 202) refused++;
        await res.arrayBuffer();
      }
    }),
  );
  const answered = performance.now() - t0;
  if (refused > 0) throw new Error(`${refused} requests were not accepted (raise RATE_LIMIT_MAGIC_LINK_PER_IP for the benchmark)`);

  const query = `WorkflowType = '${REQUEST_MAGIC_LINK_WORKFLOW}' AND StartTime >= '${since}'`;
  let completed = 0;
  for (;;) {
    completed = Number((await client.workflow.count(`${query} AND ExecutionStatus = 'Completed'`)).count);
    if (completed >= WORKFLOWS) break;
    if (performance.now() - t0 > 300_000) throw new Error(`only ${completed} of ${WORKFLOWS} completed within 5 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const done = performance.now() - t0;
  await connection.close();
  return { workflows: WORKFLOWS, clients: CONCURRENCY, answered, done, address: config.temporal.address };
}

async function main(): Promise<void> {
  await requireRunningApi();
  const { workflows: WORKFLOWS, clients: CONCURRENCY, answered, done, address } = await measureCompletions();
  console.log(`\nWorkflow completions against ${BASE} and Temporal at ${address}, Node ${process.version}\n`);
  console.table([
    {
      workflows: WORKFLOWS,
      clients: CONCURRENCY,
      's to answer all requests': (answered / 1000).toFixed(1),
      'requests/s': Math.round((WORKFLOWS / answered) * 1000),
      's to complete all': (done / 1000).toFixed(1),
      'completions/s': ((WORKFLOWS / done) * 1000).toFixed(1),
    },
  ]);
}

if (require.main === module) main().catch((err) => {
  console.error(err);
  process.exit(1);
});
