import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction } from '@temporalio/client';
import { RATES_REFRESH_WORKFLOW } from '../../contracts/rates';

// The `rates-refresh` Temporal Schedule: the rate refresh every refreshIntervalSeconds, never two at once.
// Operators find it under Schedules in the Temporal UI, with every run it started (workflow id
// `rates-refresh-<time>`); POST /rates/refresh asks the same Schedule for a run now.

export interface RatesScheduleSettings {
  scheduleId: string;
  refreshIntervalSeconds: number;
  taskQueue: string;
}

/** A schedule RPC is one round trip; past this Temporal counts as unavailable. */
const SCHEDULE_DEADLINE_MS = 5000;

function actionOf(settings: RatesScheduleSettings): ScheduleOptionsAction {
  return {
    type: 'startWorkflow',
    workflowType: RATES_REFRESH_WORKFLOW,
    // The Schedule appends each run's time: rates-refresh-2026-11-23T10:00:00Z.
    workflowId: settings.scheduleId,
    taskQueue: settings.taskQueue,
    args: [],
    workflowRunTimeout: '10 minutes',
    staticSummary: 'Refresh exchange rates (Central Bank of Uzbekistan and commercial bank)',
  };
}

function policiesOf(settings: RatesScheduleSettings) {
  return {
    // A refresh still running when the next is due (or when one is asked for) is enough: skip the new one.
    overlap: ScheduleOverlapPolicy.SKIP,
    // After an outage of the Temporal service, one missed run within the last interval is made up, no more.
    catchupWindow: Math.max(settings.refreshIntervalSeconds, 10) * 1000,
    pauseOnFailure: false,
  };
}

export type EnsureOutcome = 'CREATED' | 'UPDATED' | 'UNCHANGED';

/**
 * Creates the Schedule, or brings an existing one to these settings (interval, task queue, policies).
 * Safe for every worker to call at start: "already exists" is success. A new Schedule runs at once, so a
 * fresh installation has rates without waiting an interval.
 */
export async function ensureRatesSchedule(client: Client, settings: RatesScheduleSettings): Promise<EnsureOutcome> {
  const every = settings.refreshIntervalSeconds * 1000;
  try {
    await client.withDeadline(Date.now() + SCHEDULE_DEADLINE_MS, () =>
      client.schedule.create({
        scheduleId: settings.scheduleId,
        spec: { intervals: [{ every }] },
        action: actionOf(settings),
        policies: policiesOf(settings),
        state: { triggerImmediately: true, note: 'Created by the worker at start' },
      }),
    );
    return 'CREATED';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(settings.scheduleId);
  const current = await handle.describe();
  const intervals = current.spec.intervals ?? [];
  const action = current.action;
  const same =
    intervals.length === 1 &&
    intervals[0]!.every === every &&
    (intervals[0]!.offset ?? 0) === 0 &&
    (current.spec.calendars ?? []).length === 0 &&
    action.type === 'startWorkflow' &&
    action.workflowType === RATES_REFRESH_WORKFLOW &&
    action.taskQueue === settings.taskQueue &&
    current.policies.overlap === ScheduleOverlapPolicy.SKIP;
  if (same) return 'UNCHANGED';
  await handle.update((previous) => ({
    ...previous,
    spec: { intervals: [{ every }] },
    action: actionOf(settings),
    policies: policiesOf(settings),
  }));
  return 'UPDATED';
}

/**
 * Asks the Schedule for a run now. Under its SKIP overlap policy a request made while a refresh is running
 * joins that refresh instead of starting another, so concurrent requests coalesce into one run. A missing
 * Schedule (no worker has started yet) is created, which runs it.
 */
export async function triggerRatesRefresh(client: Client, settings: RatesScheduleSettings): Promise<void> {
  try {
    await client.withDeadline(Date.now() + SCHEDULE_DEADLINE_MS, () =>
      client.schedule.getHandle(settings.scheduleId).trigger(ScheduleOverlapPolicy.SKIP),
    );
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
    await ensureRatesSchedule(client, settings);
  }
}
