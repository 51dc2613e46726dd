import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import { activityProfiles } from '../../../contracts/activity-profiles';
import {
  DELIVER_WEBHOOK_WORKFLOW,
  type DeliverWebhookActivities,
  type DeliverWebhookInput,
  type DeliverWebhookProgress,
  type DeliverWebhookWorkflow,
  type WebhookAttemptInput,
  type WebhookAttemptOutcome,
} from '../../../contracts/webhooks';
import { deliverWebhookWorkflowId } from '../../../contracts/workflow-ids';
import { expectProfiles, outage, SETUP_TIMEOUT_MS, startWorkflowEnvironment, type WorkflowTestEnvironment } from './environment';

// A history this long asks the run to continue as new (the server's default is thousands of events), so a
// long run's continuation is exercised here too.
const SUGGEST_CONTINUE_AS_NEW_AFTER_EVENTS = 60;

let t: WorkflowTestEnvironment;
beforeAll(async () => {
  t = await startWorkflowEnvironment({ dynamicConfig: [`limit.historyCount.suggestContinueAsNew=${SUGGEST_CONTINUE_AS_NEW_AFTER_EVENTS}`] });
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t?.teardown();
});

describe('deliverWebhookWorkflow', () => {
  const delivered = (): WebhookAttemptOutcome => ({ outcome: 'DELIVERED', attemptNumber: 1, statusCode: 204, durationMs: 12 });
  const failed = (retryInMs: number | null, statusCode: number | null = 503): WebhookAttemptOutcome => ({
    outcome: 'FAILED',
    attemptNumber: 1,
    statusCode,
    durationMs: 30,
    errorClass: statusCode === null ? 'TIMEOUT' : 'HTTP_STATUS',
    retryInMs,
  });

  /** Stand-in activities: `answer` gives each attempt's outcome; the others record what they were asked. */
  function stand(answer: (input: WebhookAttemptInput, call: number) => WebhookAttemptOutcome | Promise<WebhookAttemptOutcome>, options: { disables?: boolean } = {}) {
    const attempts: WebhookAttemptInput[] = [];
    const calls: string[] = [];
    const activities: DeliverWebhookActivities = {
      attemptWebhookDelivery: async (input) => {
        attempts.push(input);
        return answer(input, attempts.length);
      },
      failWebhookDelivery: async ({ reason }) => {
        calls.push(`fail: ${reason}`);
        return { endpointDisabled: options.disables ?? false };
      },
      mailWebhookEndpointDisabled: async ({ endpointId }) => {
        calls.push(`mail ${endpointId}`);
      },
    };
    return { attempts, calls, activities };
  }

  const newInput = (): DeliverWebhookInput => ({ tenantId: randomUUID(), endpointId: randomUUID(), eventId: randomUUID(), deliveryId: randomUUID() });
  const start = (taskQueue: string, input: DeliverWebhookInput, progress?: DeliverWebhookProgress) =>
    t.client.workflow.start<DeliverWebhookWorkflow>(DELIVER_WEBHOOK_WORKFLOW, {
      taskQueue,
      workflowId: deliverWebhookWorkflowId(input.endpointId, input.eventId),
      args: progress ? [input, progress] : [input],
    });

  test('when the receiver takes the first attempt, then the delivery is DELIVERED after one attempt, on its profile', async () => {
    const input = newInput();
    const { attempts, calls, activities } = stand(() => delivered());
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual({ state: 'DELIVERED', attempts: 1 });
      await expectProfiles(handle, { attemptWebhookDelivery: activityProfiles.webhookAttempt });
    });
    expect(attempts).toEqual([{ ...input, attempt: 1, firstAttemptAt: expect.any(String) }]);
    expect(calls).toEqual([]);
  });

  test('when the receiver fails twice, then the workflow waits as answered and the third attempt delivers: three attempts of one delivery, one window', async () => {
    const input = newInput();
    const { attempts, calls, activities } = stand((_, call) => (call <= 2 ? failed(50) : delivered()));
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, input)).result()).toEqual({ state: 'DELIVERED', attempts: 3 });
    });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(new Set(attempts.map((a) => a.deliveryId))).toEqual(new Set([input.deliveryId]));
    expect(new Set(attempts.map((a) => a.firstAttemptAt)).size).toBe(1);
    expect(calls).toEqual([]);
  });

  test('when the receiver fails until the retry window ends, then the delivery is FAILED with its last error, the settlement on its profile', async () => {
    // The attempt answers the wait before the next one, and none once the window is over: here four short
    // waits, then none (the schedule's rule itself, retryDelayMs, is tested in test/unit/webhooks). Counting
    // attempts rather than elapsed time keeps the test the same on a loaded machine.
    const input = newInput();
    const { attempts, calls, activities } = stand((a) => failed(a.attempt < 5 ? 20 : null));
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      const result = await handle.result();
      expect(result).toEqual({ state: 'FAILED', attempts: attempts.length, reason: `${attempts.length} attempt(s) failed; the last: HTTP_STATUS (HTTP 503)` });
      await expectProfiles(handle, { failWebhookDelivery: activityProfiles.databaseStep });
    });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(calls).toEqual([`fail: ${attempts.length} attempt(s) failed; the last: HTTP_STATUS (HTTP 503)`]);
  });

  test('when the failed delivery disables its endpoint, then the ADMINs are mailed once, on the mail profile', async () => {
    const input = newInput();
    const { calls, activities } = stand(() => failed(null, null), { disables: true });
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual({ state: 'FAILED', attempts: 1, reason: '1 attempt(s) failed; the last: TIMEOUT' });
      await expectProfiles(handle, { mailWebhookEndpointDisabled: activityProfiles.mailDelivery });
    });
    expect(calls).toEqual(['fail: 1 attempt(s) failed; the last: TIMEOUT', `mail ${input.endpointId}`]);
  });

  test('when the delivery is settled already or its endpoint is gone, then the run ends SKIPPED after that one answer', async () => {
    const { attempts, calls, activities } = stand(() => ({ outcome: 'SKIPPED', reason: 'the delivery is DELIVERED already' }));
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, newInput())).result()).toEqual({ state: 'SKIPPED', reason: 'the delivery is DELIVERED already' });
    });
    expect(attempts).toHaveLength(1);
    expect(calls).toEqual([]);
  });

  test('when the endpoint is BUSY, then the workflow waits a moment and tries again without counting an attempt', async () => {
    const input = newInput();
    const { attempts, activities } = stand((_, call) => (call === 1 ? { outcome: 'BUSY' } : call === 2 ? failed(20) : delivered()));
    const began = Date.now();
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, input)).result()).toEqual({ state: 'DELIVERED', attempts: 2 });
    });
    // BUSY_RETRY_MS (one second) jittered by ±50 %.
    expect(Date.now() - began).toBeGreaterThanOrEqual(450);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 1, 2]);
  });

  test('when the attempt itself fails (the database is down), then its activity is retried and no attempt is counted', async () => {
    const { attempts, activities } = stand(() => {
      if (activityInfo().attempt === 1) throw outage('DatabaseUnavailable');
      return delivered();
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, newInput())).result()).toEqual({ state: 'DELIVERED', attempts: 1 });
    });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 1]);
  });

  test('when a run grows long, then it continues as new with its attempts and its window, and ends as one delivery', async () => {
    const input = newInput();
    const { attempts, activities } = stand((_, call) => (call <= 8 ? failed(5) : delivered()));
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual({ state: 'DELIVERED', attempts: 9 });
      expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    });
    expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: 9 }, (_, i) => i + 1));
    expect(new Set(attempts.map((a) => a.firstAttemptAt)).size).toBe(1);
  });
});
