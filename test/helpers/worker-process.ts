import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestStack } from './stack';

// A real worker (worker/main.ts) as a child process on the stack's task queue, for tests that kill it or
// check what it does at start. Its Schedules and rate sources are the stack's unless `env` says otherwise.

const ROOT = path.join(__dirname, '..', '..');

export function startWorkerProcess(stack: TestStack, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['-r', path.join(ROOT, 'test/helpers/swc-register.js'), path.join(ROOT, 'worker/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      WORKFLOW_BUNDLE_PATH: stack.workflowBundlePath,
      RATES_SCHEDULE_ID: stack.config.rates.scheduleId,
      HOUSEKEEPING_SCHEDULE_ID: stack.config.housekeeping.scheduleId,
      // Several test workers run at once: none binds the SDK's metrics port unless a test asks.
      WORKER_METRICS_ADDRESS: '',
      RATES_REFRESH_INTERVAL_SECONDS: String(stack.config.rates.refreshIntervalSeconds),
      RATES_CBU_URL: stack.config.rates.centralBankUrl,
      RATES_BANK_URL: stack.config.rates.commercialBankUrl,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Polls `probe` until it answers something other than null. */
export async function until<T>(probe: () => Promise<T | null>, timeoutMs: number, what: string, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
