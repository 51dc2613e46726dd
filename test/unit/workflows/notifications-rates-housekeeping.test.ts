import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { activityProfiles } from '../../../contracts/activity-profiles';
import { FailureType, PUSH_UNAVAILABLE, RATES_SOURCE_UNAVAILABLE } from '../../../contracts/failures';
import { HOUSEKEEPING_WORKFLOW, PRUNE_KINDS, type HousekeepingActivities, type HousekeepingResult, type PruneKind } from '../../../contracts/housekeeping';
import {
  FANOUT_PARALLELISM,
  SEND_NOTIFICATION_WORKFLOW,
  type SendNotificationActivities,
  type SendNotificationResult,
  type SendNotificationWorkflow,
} from '../../../contracts/notifications';
import { REFRESH_RATES_WORKFLOW, type FetchedRates, type RefreshRatesActivities, type RefreshRatesResult, type SourceOutcome } from '../../../contracts/rates';
import { sendNotificationWorkflowId } from '../../../contracts/workflow-ids';
import type { RateSourceCode } from '../../../core/rates/rates';
import { expectProfiles, failureOf, gate, outage, SETUP_TIMEOUT_MS, startWorkflowEnvironment, type WorkflowTestEnvironment } from './environment';

let t: WorkflowTestEnvironment;
beforeAll(async () => {
  t = await startWorkflowEnvironment();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t?.teardown();
});

describe('sendNotificationWorkflow', () => {
  const settled: SendNotificationResult = { status: 'DELIVERED', counts: { SENT: 3 } };
  const devices = (n: number) => Array.from({ length: n }, (_, i) => `device-${i}`);

  /** Stand-in steps that record what ran; `deliver` replaces one device's push when given. */
  function steps(deliver?: SendNotificationActivities['deliverPush']) {
    const calls: string[] = [];
    const attempts = new Map<string, number>();
    const activities: SendNotificationActivities = {
      startPushMessage: async () => {
        calls.push('start');
      },
      deliverPush: async (input) => {
        attempts.set(input.deviceId, activityInfo().attempt);
        return deliver ? deliver(input) : 'SENT';
      },
      failPushDelivery: async ({ deviceId, reason }) => {
        calls.push(`fail ${deviceId}: ${reason}`);
      },
      completePushMessage: async () => {
        calls.push('complete');
        return settled;
      },
    };
    return { calls, attempts, activities };
  }

  const start = (taskQueue: string, deviceIds: string[]) => {
    const tenantId = randomUUID();
    return t.client.workflow.start<SendNotificationWorkflow>(SEND_NOTIFICATION_WORKFLOW, {
      taskQueue,
      workflowId: sendNotificationWorkflowId(tenantId, randomUUID()),
      args: [{ tenantId, messageId: randomUUID(), deviceIds }],
    });
  };

  test('when every device takes its push, then each is sent once and the message is settled, each step on its profile', async () => {
    const { calls, attempts, activities } = steps();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, devices(3));
      expect(await handle.result()).toEqual(settled);
      await expectProfiles(handle, {
        startPushMessage: activityProfiles.pushMessageStep,
        deliverPush: activityProfiles.pushDelivery,
        completePushMessage: activityProfiles.pushMessageStep,
      });
    });
    expect(calls).toEqual(['start', 'complete']);
    expect(Object.fromEntries(attempts)).toEqual({ 'device-0': 1, 'device-1': 1, 'device-2': 1 });
  });

  test(`when a message goes to many devices, then ${FANOUT_PARALLELISM} are sent to at once, never more`, async () => {
    // Each push waits until FANOUT_PARALLELISM are in flight together (fewer lanes never get there, and
    // give up waiting after ten seconds).
    const full = gate();
    const tooLong = setTimeout(full.open, 10_000);
    let inFlight = 0;
    let most = 0;
    const { calls, attempts, activities } = steps(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (inFlight === FANOUT_PARALLELISM) full.open();
      await full.opened;
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return 'SENT';
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, devices(2 * FANOUT_PARALLELISM + 5))).result()).toEqual(settled);
    });
    clearTimeout(tooLong);
    expect(most).toBe(FANOUT_PARALLELISM);
    expect(attempts.size).toBe(2 * FANOUT_PARALLELISM + 5);
    expect(calls).toEqual(['start', 'complete']);
  });

  test('when the provider is down twice for a device, then its third attempt sends it and nothing fails', async () => {
    const { calls, attempts, activities } = steps(async ({ deviceId }) => {
      if (deviceId === 'device-1' && activityInfo().attempt <= 2) throw outage(PUSH_UNAVAILABLE);
      return 'SENT';
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, devices(3))).result()).toEqual(settled);
    });
    expect(Object.fromEntries(attempts)).toEqual({ 'device-0': 1, 'device-1': 3, 'device-2': 1 });
    expect(calls).toEqual(['start', 'complete']);
  });

  test('when the provider refuses a device for good, then that delivery settles FAILED with the reason after one attempt and the others are sent', async () => {
    const { calls, attempts, activities } = steps(async ({ deviceId }) => {
      if (deviceId === 'device-0') throw ApplicationFailure.nonRetryable('sender mismatch', FailureType.PushRejected);
      return 'SENT';
    });
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, devices(3));
      expect(await handle.result()).toEqual(settled);
      await expectProfiles(handle, { failPushDelivery: activityProfiles.pushMessageStep });
    });
    expect(Object.fromEntries(attempts)).toEqual({ 'device-0': 1, 'device-1': 1, 'device-2': 1 });
    expect(calls).toEqual(['start', 'fail device-0: sender mismatch', 'complete']);
  });

  test('when the provider stays down for a device, then its retries run out and the delivery settles FAILED with the last reason', async () => {
    const { calls, attempts, activities } = steps(async ({ deviceId }) => {
      if (deviceId === 'device-2') throw outage(PUSH_UNAVAILABLE, `unavailable on attempt ${activityInfo().attempt}`);
      return 'SENT';
    });
    const maximumAttempts = activityProfiles.pushDelivery.retry.maximumAttempts;
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, devices(3))).result()).toEqual(settled);
    });
    expect(attempts.get('device-2')).toBe(maximumAttempts);
    expect(calls).toEqual(['start', `fail device-2: unavailable on attempt ${maximumAttempts}`, 'complete']);
  });
});

describe('refreshRatesWorkflow', () => {
  const read = (source: RateSourceCode): FetchedRates => ({
    source,
    rates: [{ currency: 'USD', name: 'US dollar', effectiveDate: '2026-11-20', sourceUpdatedAt: null, rate: '12725.43', buyRate: null, sellRate: null }],
    skippedRows: 0,
    fetchedAt: '2026-11-20T06:00:00.000Z',
  });

  /** Stand-in sources (each replaceable) and a store that answers one summary per outcome. */
  function sources(options: { cbu?: () => Promise<FetchedRates>; bank?: () => Promise<FetchedRates> } = {}) {
    const stored: SourceOutcome[][] = [];
    const attempts: Record<string, number> = {};
    const activities: RefreshRatesActivities = {
      fetchCentralBankRates: async () => {
        attempts.CBU = activityInfo().attempt;
        return options.cbu ? options.cbu() : read('CBU');
      },
      fetchCommercialBankRates: async () => {
        attempts.BANK = activityInfo().attempt;
        return options.bank ? options.bank() : read('BANK');
      },
      storeRates: async (outcomes) => {
        stored.push(outcomes);
        return outcomes.map((o) => (o.ok ? { source: o.source, status: 'STORED', rates: o.fetched.rates.length, skippedRows: 0, changed: 1 } : { source: o.source, status: 'FAILED', reason: o.reason }));
      },
    };
    return { stored, attempts, activities };
  }

  const run = (taskQueue: string) =>
    t.client.workflow.start<() => Promise<RefreshRatesResult>>(REFRESH_RATES_WORKFLOW, { taskQueue, workflowId: `rates-refresh-${randomUUID()}` });

  test('when both sources answer, then both are stored in one step, each source on its own profile', async () => {
    const { stored, activities } = sources();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await run(taskQueue);
      expect(await handle.result()).toEqual({
        sources: [
          { source: 'CBU', status: 'STORED', rates: 1, skippedRows: 0, changed: 1 },
          { source: 'BANK', status: 'STORED', rates: 1, skippedRows: 0, changed: 1 },
        ],
      });
      await expectProfiles(handle, {
        fetchCentralBankRates: activityProfiles.centralBankSource,
        fetchCommercialBankRates: activityProfiles.commercialBankSource,
        storeRates: activityProfiles.databaseStep,
      });
    });
    expect(stored).toEqual([
      [
        { source: 'CBU', ok: true, fetched: read('CBU') },
        { source: 'BANK', ok: true, fetched: read('BANK') },
      ],
    ]);
  });

  test('when the central bank is down twice, then its third attempt reads the rates and both are stored', async () => {
    const { stored, attempts, activities } = sources({
      cbu: async () => {
        if (activityInfo().attempt <= 2) throw outage(RATES_SOURCE_UNAVAILABLE, 'HTTP 503');
        return read('CBU');
      },
    });
    await t.withWorker(activities, async (taskQueue) => {
      await (await run(taskQueue)).result();
    });
    expect(attempts).toEqual({ CBU: 3, BANK: 1 });
    expect(stored[0]!.map((o) => o.ok)).toEqual([true, true]);
  });

  test('when the commercial bank answers a malformed document, then it is not retried and its reason is stored beside the central bank\'s rates', async () => {
    const { stored, attempts, activities } = sources({
      bank: async () => {
        throw ApplicationFailure.nonRetryable('the document is not a list', FailureType.RatesDocumentMalformed);
      },
    });
    await t.withWorker(activities, async (taskQueue) => {
      const result = await (await run(taskQueue)).result();
      expect(result.sources).toEqual([
        { source: 'CBU', status: 'STORED', rates: 1, skippedRows: 0, changed: 1 },
        { source: 'BANK', status: 'FAILED', reason: 'the document is not a list' },
      ]);
    });
    expect(attempts).toEqual({ CBU: 1, BANK: 1 });
    expect(stored[0]![1]).toEqual({ source: 'BANK', ok: false, reason: 'the document is not a list' });
  });

  test('when the commercial bank stays down, then it gives up after its profile\'s attempts with the last reason', async () => {
    const { stored, attempts, activities } = sources({
      bank: async () => {
        throw outage(RATES_SOURCE_UNAVAILABLE, `HTTP 503 on attempt ${activityInfo().attempt}`);
      },
    });
    const maximumAttempts = activityProfiles.commercialBankSource.retry.maximumAttempts;
    await t.withWorker(activities, async (taskQueue) => {
      await (await run(taskQueue)).result();
    });
    expect(attempts).toEqual({ CBU: 1, BANK: maximumAttempts });
    expect(stored[0]![1]).toEqual({ source: 'BANK', ok: false, reason: `HTTP 503 on attempt ${maximumAttempts}` });
  });
});

describe('housekeepingWorkflow', () => {
  const input = { batchSize: 500, maxBatches: 4 };
  const run = (taskQueue: string) =>
    t.client.workflow.start<(i: typeof input) => Promise<HousekeepingResult>>(HOUSEKEEPING_WORKFLOW, { taskQueue, workflowId: `housekeeping-${randomUUID()}`, args: [input] });

  /** A stand-in prune: 3 rows deleted per kind, complete unless the kind is in `leftOver`; `fail` may throw first. */
  function prune(options: { leftOver?: PruneKind[]; fail?: (kind: PruneKind) => void } = {}) {
    const calls: string[] = [];
    const budgets = new Set<string>();
    const activities: HousekeepingActivities = {
      pruneExpired: async ({ kind, batchSize, maxBatches }) => {
        calls.push(`${kind}#${activityInfo().attempt}`);
        budgets.add(JSON.stringify({ batchSize, maxBatches }));
        options.fail?.(kind);
        return { kind, deleted: 3, batches: 1, complete: !options.leftOver?.includes(kind) };
      },
    };
    return { calls, budgets, activities };
  }

  test('when it runs, then it prunes every kind once in order and reports the counts and what is left over, on the pruneBatches profile', async () => {
    const { calls, budgets, activities } = prune({ leftOver: ['request-limits', 'mail-events'] });
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await run(taskQueue);
      expect(await handle.result()).toEqual({
        pruned: Object.fromEntries(PRUNE_KINDS.map((kind) => [kind, 3])),
        leftOver: ['request-limits', 'mail-events'],
      });
      await expectProfiles(handle, { pruneExpired: activityProfiles.pruneBatches });
    });
    expect(calls).toEqual(PRUNE_KINDS.map((kind) => `${kind}#1`));
    expect([...budgets]).toEqual([JSON.stringify(input)]);
  });

  test('when a kind fails twice, then its third attempt prunes it and the run goes on to the next kinds', async () => {
    const { calls, activities } = prune({
      fail: (kind) => {
        if (kind === 'invitations' && activityInfo().attempt <= 2) throw outage('DatabaseUnavailable');
      },
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect((await (await run(taskQueue)).result()).leftOver).toEqual([]);
    });
    expect(calls.filter((c) => c.startsWith('invitations'))).toEqual(['invitations#1', 'invitations#2', 'invitations#3']);
    expect(calls).toHaveLength(PRUNE_KINDS.length + 2);
  });

  test('when a kind keeps failing, then the run fails once its attempts run out and later kinds wait for the next run', async () => {
    const { calls, activities } = prune({
      fail: (kind) => {
        if (kind === 'invitations') throw outage('DatabaseUnavailable', 'the database is gone');
      },
    });
    const maximumAttempts = activityProfiles.pruneBatches.retry.maximumAttempts;
    await t.withWorker(activities, async (taskQueue) => {
      expect(await failureOf((await run(taskQueue)).result())).toMatchObject({ type: 'DatabaseUnavailable', message: 'the database is gone' });
    });
    const invitations = PRUNE_KINDS.indexOf('invitations');
    expect(calls).toEqual([
      ...PRUNE_KINDS.slice(0, invitations).map((kind) => `${kind}#1`),
      ...Array.from({ length: maximumAttempts }, (_, i) => `invitations#${i + 1}`),
    ]);
  });
});
