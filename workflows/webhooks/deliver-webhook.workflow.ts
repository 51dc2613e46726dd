import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import {
  BUSY_RETRY_MAX_MS,
  BUSY_RETRY_MS,
  type DeliverWebhookActivities,
  type DeliverWebhookInput,
  type DeliverWebhookProgress,
  type DeliverWebhookResult,
  type DeliverWebhookWorkflow,
} from '../../contracts/webhooks';

const { attemptWebhookDelivery } = proxyActivities<DeliverWebhookActivities>(activityProfiles.webhookAttempt);
const { failWebhookDelivery } = proxyActivities<DeliverWebhookActivities>(activityProfiles.databaseStep);
const { mailWebhookEndpointDisabled } = proxyActivities<DeliverWebhookActivities>(activityProfiles.mailDelivery);

/**
 * One event to one endpoint (workflow id `webhook-<endpointId>-<eventId>`), started through the start
 * outbox by every change that produces an event, by sendWebhookTestEvent and, for a FAILED delivery, by
 * retryWebhookDelivery. The workflow keeps the schedule: each attempt is an activity that answers its
 * outcome (every attempt is recorded, a failed one included), and between failed attempts the workflow
 * sleeps the wait the attempt answered (10 s, 30 s, 2 min, … then every 4 h by default) until the retry
 * window (24 h from the run's first attempt) has ended; then the delivery is FAILED, and an endpoint that
 * has failed for WEBHOOK_DISABLE_AFTER_DAYS is disabled and its ADMINs mailed. An endpoint at its limit of
 * attempts in flight answers BUSY: the workflow waits a jittered moment (growing while BUSY goes on) and
 * tries again, which is not counted as an attempt. A settled delivery, or one whose endpoint was deleted
 * or disabled, ends SKIPPED without sending. Long runs continue as new with their progress.
 */
export async function deliverWebhookWorkflow(input: DeliverWebhookInput, progress?: DeliverWebhookProgress): Promise<DeliverWebhookResult> {
  let { attempts, firstAttemptAt, busyStreak } = progress ?? { attempts: 0, firstAttemptAt: null, busyStreak: 0 };
  for (;;) {
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<DeliverWebhookWorkflow>(input, { attempts, firstAttemptAt, busyStreak });
    }
    const now = new Date(Date.now()).toISOString();
    const result = await attemptWebhookDelivery({ ...input, attempt: attempts + 1, firstAttemptAt: firstAttemptAt ?? now });
    if (result.outcome === 'BUSY') {
      // Math.random is the workflow's seeded one: the same jitter on replay.
      const wait = Math.min(BUSY_RETRY_MAX_MS, BUSY_RETRY_MS * 2 ** busyStreak) * (0.5 + Math.random());
      busyStreak += 1;
      await sleep(Math.round(wait));
      continue;
    }
    if (result.outcome === 'SKIPPED') return { state: 'SKIPPED', reason: result.reason };
    attempts += 1;
    busyStreak = 0;
    if (result.outcome === 'DELIVERED') return { state: 'DELIVERED', attempts };
    firstAttemptAt ??= now;
    if (result.retryInMs === null) {
      const reason = `${attempts} attempt(s) failed; the last: ${result.errorClass}${result.statusCode === null ? '' : ` (HTTP ${result.statusCode})`}`;
      const { endpointDisabled } = await failWebhookDelivery({ ...input, reason });
      if (endpointDisabled) await mailWebhookEndpointDisabled(input);
      return { state: 'FAILED', attempts, reason };
    }
    await sleep(result.retryInMs);
  }
}
