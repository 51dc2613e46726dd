import type { Client } from '@temporalio/client';
import { HOUSEKEEPING_WORKFLOW, type HousekeepingInput } from '../../contracts/housekeeping';
import { ensureIntervalSchedule, type EnsureOutcome } from './interval-schedule';

// The `housekeeping` Temporal Schedule: deletes expired rows every intervalSeconds, never two runs at once
// (runs `housekeeping-<time>`, each reporting its counts per kind as its result).

export interface HousekeepingScheduleSettings extends HousekeepingInput {
  scheduleId: string;
  intervalSeconds: number;
  taskQueue: string;
}

export function ensureHousekeepingSchedule(client: Client, settings: HousekeepingScheduleSettings): Promise<EnsureOutcome> {
  return ensureIntervalSchedule(client, {
    scheduleId: settings.scheduleId,
    intervalSeconds: settings.intervalSeconds,
    taskQueue: settings.taskQueue,
    workflowType: HOUSEKEEPING_WORKFLOW,
    args: [{ batchSize: settings.batchSize, maxBatches: settings.maxBatches } satisfies HousekeepingInput],
    workflowRunTimeout: '1 hour',
    summary: 'Delete expired magic links, enrolments, attempts, invitations, stale devices and old provider events',
  });
}
