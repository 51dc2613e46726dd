import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type ActivityOptions } from '@temporalio/common';
import { msOptionalToNumber, optionalTsToMs } from '@temporalio/common/lib/time';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { TENANT_ID } from '../../../contracts/search-attributes';

// Workflows on their own: a Temporal dev server of this test file's own (the pinned CLI, started by the
// SDK's TestWorkflowEnvironment), one workflow bundle per file, and per test a worker with stand-in
// activities on a task queue of its own. No PostgreSQL, no shared Temporal server.

const root = path.resolve(__dirname, '../../..');

/** Starting a server and bundling the workflows take a few seconds on two busy cores. */
export const SETUP_TIMEOUT_MS = 120_000;

/** The pinned Temporal CLI (`npm test` builds it once into a cache; nothing is downloaded here). */
function temporalCli(): string {
  return execFileSync('bash', [path.join(root, 'scripts/temporal-cli.sh')], { encoding: 'utf8' }).trim();
}

const quiet = { info: () => undefined, warn: () => undefined, error: console.error, debug: () => undefined, trace: () => undefined, log: () => undefined };

export interface WorkflowTestEnvironment {
  client: Client;
  /** Runs `body` while a worker with these stand-in activities polls a task queue of its own. */
  withWorker<T>(activities: object, body: (taskQueue: string) => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

/** `dynamicConfig`: more of the server's dynamic configuration, as `key=value` (e.g. a lower history limit). */
export async function startWorkflowEnvironment(options: { dynamicConfig?: string[] } = {}): Promise<WorkflowTestEnvironment> {
  // The failures the tests provoke would log a warning each; anything else still reaches the console.
  const provoked = new Set(['Activity failed', 'Workflow failed']);
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (!provoked.has(entry.message)) console.warn(entry.message, entry.meta);
    }),
  });
  const [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: temporalCli() },
        ip: '127.0.0.1',
        searchAttributes: [TENANT_ID],
        // The dev server may fire a timer up to a second late by default; a retry 10 ms after an outage
        // (see `outage`) would wait that second every time.
        extraArgs: ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="10ms"', ...(options.dynamicConfig ?? []).flatMap((value) => ['--dynamic-config-value', value])],
      },
    }),
    bundleWorkflowCode({ workflowsPath: require.resolve('../../../workflows'), logger: quiet }),
  ]);
  return {
    client: env.client,
    async withWorker<T>(activities: object, body: (taskQueue: string) => Promise<T>): Promise<T> {
      const taskQueue = `unit-${randomUUID()}`;
      // debugMode runs the workflow sandbox in this thread instead of a worker thread of its own: the same
      // sandbox and replay, but a worker starts in milliseconds rather than half a second. It also lifts the
      // deadlock detector's time limit, which jest's test timeout stands in for.
      const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, activities, workflowBundle: bundle, debugMode: true });
      return worker.runUntil(() => body(taskQueue));
    },
    teardown: () => env.teardown(),
  };
}

/**
 * A retryable failure, as an outage raises it, that names its next retry delay: the test need not wait out
 * the profile's backoff (whose values `expectProfiles` reads from the history instead).
 */
export function outage(type: string, message = 'the service could not be reached'): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nextRetryDelay: '10 milliseconds' });
}

/** The application failure that ended a workflow or update, found down its cause chain (as the API finds it). */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => {
      throw new Error('expected the workflow to fail');
    },
    (e: unknown) => e,
  );
  let current: unknown = err;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure) return current;
    current = (current as Error & { cause?: unknown }).cause;
  }
  throw err;
}

interface ScheduledOptions {
  startToCloseTimeout?: number;
  scheduleToCloseTimeout?: number;
  heartbeatTimeout?: number;
  retry: { initialInterval?: number; backoffCoefficient?: number; maximumInterval?: number; maximumAttempts?: number };
}

/** Each activity type the run scheduled, with the timeouts and retry policy the server recorded for it. */
async function scheduledActivities(handle: WorkflowHandle): Promise<Map<string, ScheduledOptions>> {
  const history = await handle.fetchHistory();
  const scheduled = new Map<string, ScheduledOptions>();
  for (const event of history.events ?? []) {
    const a = event.activityTaskScheduledEventAttributes;
    if (!a?.activityType?.name) continue;
    scheduled.set(a.activityType.name, {
      startToCloseTimeout: optionalTsToMs(a.startToCloseTimeout),
      scheduleToCloseTimeout: optionalTsToMs(a.scheduleToCloseTimeout),
      heartbeatTimeout: optionalTsToMs(a.heartbeatTimeout),
      retry: {
        initialInterval: optionalTsToMs(a.retryPolicy?.initialInterval),
        backoffCoefficient: a.retryPolicy?.backoffCoefficient ?? undefined,
        maximumInterval: optionalTsToMs(a.retryPolicy?.maximumInterval),
        maximumAttempts: a.retryPolicy?.maximumAttempts ?? undefined,
      },
    });
  }
  return scheduled;
}

/** A profile as the server records it: durations in ms, and 0 for what it leaves unset (no limit). */
function recorded(profile: ActivityOptions): ScheduledOptions {
  return {
    startToCloseTimeout: msOptionalToNumber(profile.startToCloseTimeout) ?? 0,
    scheduleToCloseTimeout: msOptionalToNumber(profile.scheduleToCloseTimeout) ?? 0,
    heartbeatTimeout: msOptionalToNumber(profile.heartbeatTimeout) ?? 0,
    retry: {
      initialInterval: msOptionalToNumber(profile.retry?.initialInterval),
      backoffCoefficient: profile.retry?.backoffCoefficient,
      maximumInterval: msOptionalToNumber(profile.retry?.maximumInterval),
      maximumAttempts: profile.retry?.maximumAttempts ?? 0,
    },
  };
}

/** Each named activity was scheduled with exactly the timeouts and retry policy of its profile, nothing more. */
export async function expectProfiles(handle: WorkflowHandle, expected: Record<string, ActivityOptions>): Promise<void> {
  const scheduled = await scheduledActivities(handle);
  for (const [activity, profile] of Object.entries(expected)) {
    expect({ activity, ...scheduled.get(activity) }).toEqual({ activity, ...recorded(profile) });
  }
}

/** A promise and the function that resolves it: a stand-in activity waits on it until the test lets it go. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
