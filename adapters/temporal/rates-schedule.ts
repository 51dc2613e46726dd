import type { Client } from '@temporalio/client';
import { REFRESH_RATES_WORKFLOW } from '../../contracts/rates';
import { ensureIntervalSchedule, triggerIntervalSchedule, type EnsureOutcome, type IntervalSchedule } from './interval-schedule';

// The `rates-refresh` Temporal Schedule: the rate refresh every refreshIntervalSeconds, never two at once
// (runs `rates-refresh-<time>`); POST /rates/refresh asks the same Schedule for a run now.

export type { EnsureOutcome };

export interface RatesScheduleSettings {
  scheduleId: string;
  refreshIntervalSeconds: number;
  taskQueue: string;
}

function scheduleOf(settings: RatesScheduleSettings): IntervalSchedule {
  return {
    scheduleId: settings.scheduleId,
    intervalSeconds: settings.refreshIntervalSeconds,
    taskQueue: settings.taskQueue,
    workflowType: REFRESH_RATES_WORKFLOW,
    args: [],
    workflowRunTimeout: '10 minutes',
    summary: 'Refresh exchange rates (Central Bank of Uzbekistan and commercial bank)',
  };
}

export function ensureRatesSchedule(client: Client, settings: RatesScheduleSettings): Promise<EnsureOutcome> {
  return ensureIntervalSchedule(client, scheduleOf(settings));
}

export function triggerRatesRefresh(client: Client, settings: RatesScheduleSettings): Promise<void> {
  return triggerIntervalSchedule(client, scheduleOf(settings));
}
