import type { Duration } from '@temporalio/common';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction } from '@temporalio/client';

// A Temporal Schedule that runs one workflow every N seconds, never two at once, created idempotently by
// every worker at start. Operators find it under Schedules in the Temporal UI with every run it started
// (workflow id `<scheduleId>-<time>`).

export interface IntervalSchedule {
  scheduleId: string;
  intervalSeconds: number;
  taskQueue: string;
  workflowType: string;
  args: unknown[];
  workflowRunTimeout: Duration;
  /** What the Temporal UI shows for each run. */
  summary: string;
}

/** A schedule RPC is one round trip; past this Temporal counts as unavailable. */
const SCHEDULE_DEADLINE_MS = 5000;

function actionOf(s: IntervalSchedule): ScheduleOptionsAction {
  return {
    type: 'startWorkflow',
    workflowType: s.workflowType,
    // The Schedule appends each run's time: <scheduleId>-2026-11-23T10:00:00Z.
    workflowId: s.scheduleId,
    taskQueue: s.taskQueue,
    args: s.args,
    workflowRunTimeout: s.workflowRunTimeout,
    staticSummary: s.summary,
  };
}

function policiesOf(s: IntervalSchedule) {
  return {
    // A run still going when the next is due (or when one is asked for) is enough: skip the new one.
    overlap: ScheduleOverlapPolicy.SKIP,
    // After an outage of the Temporal service, one missed run within the last interval is made up, no more.
    catchupWindow: Math.max(s.intervalSeconds, 10) * 1000,
    pauseOnFailure: false,
  };
}

export type EnsureOutcome = 'CREATED' | 'UPDATED' | 'UNCHANGED';

/**
 * Creates the Schedule, or brings an existing one to these settings (interval, workflow, arguments, task
 * queue, policies). Safe for every worker to call at start: "already exists" is success. A new Schedule
 * runs at once, so a fresh installation does not wait an interval.
 */
export async function ensureIntervalSchedule(client: Client, s: IntervalSchedule): Promise<EnsureOutcome> {
  const every = s.intervalSeconds * 1000;
  try {
    await client.withDeadline(Date.now() + SCHEDULE_DEADLINE_MS, () =>
      client.schedule.create({
        scheduleId: s.scheduleId,
        spec: { intervals: [{ every }] },
        action: actionOf(s),
        policies: policiesOf(s),
        state: { triggerImmediately: true, note: 'Created by the worker at start' },
      }),
    );
    return 'CREATED';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(s.scheduleId);
  const current = await handle.describe();
  const intervals = current.spec.intervals ?? [];
  const action = current.action;
  const same =
    intervals.length === 1 &&
    intervals[0]!.every === every &&
    (intervals[0]!.offset ?? 0) === 0 &&
    (current.spec.calendars ?? []).length === 0 &&
    action.type === 'startWorkflow' &&
    action.workflowType === s.workflowType &&
    action.taskQueue === s.taskQueue &&
    JSON.stringify(action.args ?? []) === JSON.stringify(s.args) &&
    current.policies.overlap === ScheduleOverlapPolicy.SKIP;
  if (same) return 'UNCHANGED';
  await handle.update((previous) => ({
    ...previous,
    spec: { intervals: [{ every }] },
    action: actionOf(s),
    policies: policiesOf(s),
  }));
  return 'UPDATED';
}

/**
 * Asks the Schedule for a run now. Under its SKIP overlap policy a request made while a run is going joins
 * that run instead of starting another, so concurrent requests coalesce into one. A missing Schedule (no
 * worker has started yet) is created, which runs it.
 */
export async function triggerIntervalSchedule(client: Client, s: IntervalSchedule): Promise<void> {
  try {
    await client.withDeadline(Date.now() + SCHEDULE_DEADLINE_MS, () => client.schedule.getHandle(s.scheduleId).trigger(ScheduleOverlapPolicy.SKIP));
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
    await ensureIntervalSchedule(client, s);
  }
}
