import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { activityProfiles } from '../../../contracts/activity-profiles';
import { FailureType } from '../../../contracts/failures';
import {
  CLOSE_PERIOD_WORKFLOW,
  POST_REVALUATION_WORKFLOW,
  type ClosePeriodActivities,
  type ClosePeriodInput,
  type ClosePeriodWorkflow,
  type PostRevaluationActivities,
  type PostRevaluationInput,
  type PostRevaluationWorkflow,
} from '../../../contracts/ledger';
import { closePeriodWorkflowId, postDepreciationWorkflowId, postRevaluationWorkflowId } from '../../../contracts/workflow-ids';
import type { PostDepreciationActivities } from '../../../contracts/fixed-assets';
import { TENANT_ID } from '../../../contracts/search-attributes';
import { expectProfiles, outage, SETUP_TIMEOUT_MS, startWorkflowEnvironment, type WorkflowTestEnvironment } from './environment';

let t: WorkflowTestEnvironment;
beforeAll(async () => {
  t = await startWorkflowEnvironment();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t?.teardown();
});

describe('closePeriodWorkflow', () => {
  const summary = { entryCount: 12, accounts: 4, total: '1500000.00' };
  const closeInput = (): ClosePeriodInput => ({
    tenantId: randomUUID(),
    legalEntityId: randomUUID(),
    closeId: randomUUID(),
    closeDate: '2025-01-31',
    correlationId: randomUUID(),
  });
  const start = (taskQueue: string, input: ClosePeriodInput) =>
    t.client.workflow.start<ClosePeriodWorkflow>(CLOSE_PERIOD_WORKFLOW, { taskQueue, workflowId: closePeriodWorkflowId(input.legalEntityId, input.closeDate), args: [input] });

  /** Stand-in steps that record what ran, in order; `compute` replaces the closing balances when given. */
  function steps(options: { running?: boolean; compute?: ClosePeriodActivities['computeClosingBalances']; depreciate?: PostDepreciationActivities['postDepreciationEntries'] } = {}) {
    const calls: string[] = [];
    const activities: ClosePeriodActivities & PostDepreciationActivities = {
      lockClosedPeriod: async () => {
        calls.push('lock');
        return { running: options.running ?? true };
      },
      // The child workflow depreciation-<company>-<date>: nothing in service, nothing charged.
      postDepreciationEntries: async (input) => {
        calls.push(`depreciation ${input.closeDate}`);
        return options.depreciate ? options.depreciate(input) : [];
      },
      // The date was revalued before: the close runs no revaluation of its own.
      openCloseRevaluation: async () => {
        calls.push('revaluation');
        return { revaluationId: randomUUID(), status: 'COMPLETED' };
      },
      postYearEndClosing: async (input) => {
        calls.push(`year-end ${input.closeDate}`);
        return { entries: 2 };
      },
      computeClosingBalances: async (input) => {
        calls.push(`compute#${activityInfo().attempt}`);
        return options.compute ? options.compute(input) : summary;
      },
      completePeriodClose: async ({ entryCount, total }) => {
        calls.push(`complete ${entryCount} ${total}`);
      },
      failPeriodClose: async ({ reason }) => {
        calls.push(`fail: ${reason}`);
      },
    };
    return { calls, activities };
  }

  test('when the snapshot balances, then the period is completed with its counts, each step on its profile', async () => {
    const { calls, activities } = steps();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, closeInput());
      expect(await handle.result()).toEqual({ status: 'COMPLETED', ...summary });
      await expectProfiles(handle, {
        lockClosedPeriod: activityProfiles.databaseStep,
        openCloseRevaluation: activityProfiles.databaseStep,
        computeClosingBalances: activityProfiles.closingBalances,
        completePeriodClose: activityProfiles.databaseStep,
      });
    });
    expect(calls).toEqual(['lock', 'depreciation 2025-01-31', 'revaluation', 'compute#1', 'complete 12 1500000.00']);
  });

  test('when an earlier run already settled the close, then this run changes nothing and answers ALREADY_SETTLED', async () => {
    const { calls, activities } = steps({ running: false });
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, closeInput())).result()).toEqual({ status: 'ALREADY_SETTLED' });
    });
    expect(calls).toEqual(['lock']);
  });

  test('when the closing balances fail twice, then the third attempt stores them and the period is completed', async () => {
    const { calls, activities } = steps({
      compute: async () => {
        if (activityInfo().attempt <= 2) throw outage('DatabaseUnavailable');
        return summary;
      },
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, closeInput())).result()).toEqual({ status: 'COMPLETED', ...summary });
    });
    expect(calls).toEqual(['lock', 'depreciation 2025-01-31', 'revaluation', 'compute#1', 'compute#2', 'compute#3', 'complete 12 1500000.00']);
  });

  test.each([
    [FailureType.LedgerUnbalanced, 'debits 100.00 do not equal credits 99.00'],
    [FailureType.BalancesOverflow, "an account's closing balance exceeds what a snapshot can hold (NUMERIC(22,2))"],
  ])('when the snapshot is refused with %s, then the close is failed with its reason after one attempt (which releases the cut-off)', async (type, reason) => {
    const { calls, activities } = steps({
      compute: async () => {
        throw ApplicationFailure.nonRetryable(reason, type);
      },
    });
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, closeInput());
      expect(await handle.result()).toEqual({ status: 'FAILED', reason });
      await expectProfiles(handle, { failPeriodClose: activityProfiles.databaseStep });
    });
    expect(calls).toEqual(['lock', 'depreciation 2025-01-31', 'revaluation', 'compute#1', `fail: ${reason}`]);
  });
});

describe('closePeriodWorkflow and its depreciation', () => {
  const input = (): ClosePeriodInput => ({ tenantId: randomUUID(), legalEntityId: randomUUID(), closeId: randomUUID(), closeDate: '2025-03-31', correlationId: randomUUID() });
  const start = (taskQueue: string, close: ClosePeriodInput) =>
    t.client.workflow.start<ClosePeriodWorkflow>(CLOSE_PERIOD_WORKFLOW, { taskQueue, workflowId: closePeriodWorkflowId(close.legalEntityId, close.closeDate), args: [close] });
  const stubs = (calls: string[], depreciate: PostDepreciationActivities['postDepreciationEntries']): ClosePeriodActivities & PostDepreciationActivities => ({
    lockClosedPeriod: async () => {
      calls.push('lock');
      return { running: true };
    },
    postDepreciationEntries: async (close) => {
      calls.push(`depreciation#${activityInfo().attempt}`);
      return depreciate(close);
    },
    openCloseRevaluation: async () => {
      calls.push('revaluation');
      return { revaluationId: randomUUID(), status: 'COMPLETED' };
    },
    postYearEndClosing: async () => ({ entries: 0 }),
    computeClosingBalances: async () => {
      calls.push('compute');
      return { entryCount: 3, accounts: 2, total: '10.00' };
    },
    completePeriodClose: async () => {
      calls.push('complete');
    },
    failPeriodClose: async ({ reason }) => {
      calls.push(`fail: ${reason}`);
    },
  });

  test('when the depreciation posts, then it runs as the child workflow depreciation-<company>-<date>, before the revaluation and the snapshot, retried through an outage', async () => {
    const calls: string[] = [];
    const close = input();
    const activities = stubs(calls, async () => {
      if (activityInfo().attempt === 1) throw outage('DatabaseUnavailable');
      return [{ month: '2025-03', entryId: randomUUID(), assets: 2, total: '400000.00' }];
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect((await (await start(taskQueue, close)).result()).status).toBe('COMPLETED');
      const child = t.client.workflow.getHandle(postDepreciationWorkflowId(close.legalEntityId, close.closeDate));
      expect((await child.describe()).typedSearchAttributes.get(TENANT_ID)).toBe(close.tenantId);
      expect((await child.result()).status).toBe('COMPLETED');
      await expectProfiles(child, { postDepreciationEntries: activityProfiles.closingBalances });
    });
    expect(calls).toEqual(['lock', 'depreciation#1', 'depreciation#2', 'revaluation', 'compute', 'complete']);
  });

  test('when the depreciation is refused for good, then the close fails with the reason and stores no snapshot', async () => {
    const calls: string[] = [];
    const activities = stubs(calls, async () => {
      throw ApplicationFailure.nonRetryable('the ledger is closed through 2025-03-31: 2025-03 cannot be charged', FailureType.PeriodClosed);
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, input())).result()).toEqual({
        status: 'FAILED',
        reason: 'the depreciation through 2025-03-31 failed: the ledger is closed through 2025-03-31: 2025-03 cannot be charged',
      });
    });
    expect(calls).toEqual(['lock', 'depreciation#1', 'fail: the depreciation through 2025-03-31 failed: the ledger is closed through 2025-03-31: 2025-03 cannot be charged']);
  });
});

describe('postRevaluationWorkflow', () => {
  const revaluationInput = (): PostRevaluationInput => ({
    tenantId: randomUUID(),
    legalEntityId: randomUUID(),
    revaluationId: randomUUID(),
    revaluationDate: '2025-01-31',
    correlationId: randomUUID(),
  });
  const posted = { settled: false, entryId: randomUUID(), gainTotal: '10000.00', lossTotal: '250.00' };

  function revaluationSteps(post: PostRevaluationActivities['postRevaluationEntry'] = async () => posted) {
    const calls: string[] = [];
    const activities: PostRevaluationActivities = {
      postRevaluationEntry: async (input) => {
        calls.push(`post#${activityInfo().attempt}`);
        return post(input);
      },
      failRevaluation: async ({ reason }) => {
        calls.push(`fail: ${reason}`);
      },
    };
    return { calls, activities };
  }
  const start = (taskQueue: string, input: PostRevaluationInput) =>
    t.client.workflow.start<PostRevaluationWorkflow>(POST_REVALUATION_WORKFLOW, {
      taskQueue,
      workflowId: postRevaluationWorkflowId(input.legalEntityId, input.revaluationDate),
      args: [input],
    });

  test('when the entry posts, then the revaluation completes with it, the step on the long-step profile', async () => {
    const { calls, activities } = revaluationSteps();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, revaluationInput());
      expect(await handle.result()).toEqual({ status: 'COMPLETED', entryId: posted.entryId, gainTotal: '10000.00', lossTotal: '250.00' });
      await expectProfiles(handle, { postRevaluationEntry: activityProfiles.closingBalances });
    });
    expect(calls).toEqual(['post#1']);
  });

  test('when the database is out twice, then the third attempt posts (one transaction each: nothing half-written)', async () => {
    const { calls, activities } = revaluationSteps(async () => {
      if (activityInfo().attempt <= 2) throw outage('DatabaseUnavailable');
      return posted;
    });
    await t.withWorker(activities, async (taskQueue) => {
      expect((await (await start(taskQueue, revaluationInput())).result()).status).toBe('COMPLETED');
    });
    expect(calls).toEqual(['post#1', 'post#2', 'post#3']);
  });

  test('when a rate is missing, then the revaluation fails with the reason after one attempt', async () => {
    const reason = 'rate-unavailable: no CBU rate is stored for USD on or before 2025-01-31';
    const { calls, activities } = revaluationSteps(async () => {
      throw ApplicationFailure.nonRetryable(reason, FailureType.RateUnavailable);
    });
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, revaluationInput());
      expect(await handle.result()).toEqual({ status: 'FAILED', reason });
      await expectProfiles(handle, { failRevaluation: activityProfiles.databaseStep });
    });
    expect(calls).toEqual(['post#1', `fail: ${reason}`]);
  });

  test('when an earlier run settled the revaluation, then this run answers ALREADY_SETTLED', async () => {
    const { activities } = revaluationSteps(async () => ({ ...posted, settled: true }));
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, revaluationInput())).result()).toEqual({ status: 'ALREADY_SETTLED' });
    });
  });
});

describe('closePeriodWorkflow with a revaluation of its own', () => {
  const input = (): ClosePeriodInput => ({ tenantId: randomUUID(), legalEntityId: randomUUID(), closeId: randomUUID(), closeDate: '2025-02-28', correlationId: randomUUID() });

  function closeWithRevaluation(post: PostRevaluationActivities['postRevaluationEntry']) {
    const calls: string[] = [];
    const revaluationId = randomUUID();
    const activities: ClosePeriodActivities & PostRevaluationActivities & PostDepreciationActivities = {
      lockClosedPeriod: async () => {
        calls.push('lock');
        return { running: true };
      },
      postDepreciationEntries: async () => {
        calls.push('depreciation');
        return [];
      },
      openCloseRevaluation: async () => {
        calls.push('open revaluation');
        return { revaluationId, status: 'RUNNING' };
      },
      postRevaluationEntry: async (revaluation) => {
        calls.push(`revalue ${revaluation.revaluationId === revaluationId ? 'its own' : 'another'} at ${revaluation.revaluationDate}`);
        return post(revaluation);
      },
      failRevaluation: async () => {
        calls.push('revaluation failed');
      },
      postYearEndClosing: async () => {
        calls.push('year-end');
        return { entries: 0 };
      },
      computeClosingBalances: async () => {
        calls.push('compute');
        return { entryCount: 3, accounts: 2, total: '10.00' };
      },
      completePeriodClose: async () => {
        calls.push('complete');
      },
      failPeriodClose: async ({ reason }) => {
        calls.push(`fail: ${reason}`);
      },
    };
    return { calls, activities };
  }

  test('when the close opens a revaluation, then the child workflow revaluation-<company>-<date> posts it before the snapshot', async () => {
    const { calls, activities } = closeWithRevaluation(async () => ({ settled: false, entryId: randomUUID(), gainTotal: '1.00', lossTotal: '0.00' }));
    const close = input();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await t.client.workflow.start<ClosePeriodWorkflow>(CLOSE_PERIOD_WORKFLOW, { taskQueue, workflowId: closePeriodWorkflowId(close.legalEntityId, close.closeDate), args: [close] });
      expect((await handle.result()).status).toBe('COMPLETED');
      const child = await t.client.workflow.getHandle(postRevaluationWorkflowId(close.legalEntityId, close.closeDate)).describe();
      expect(child.type).toBe(POST_REVALUATION_WORKFLOW);
      expect(child.typedSearchAttributes.get(TENANT_ID)).toBe(close.tenantId);
    });
    expect(calls).toEqual(['lock', 'depreciation', 'open revaluation', 'revalue its own at 2025-02-28', 'compute', 'complete']);
  });

  test('when its revaluation fails, then the close fails with the reason and stores no snapshot', async () => {
    const { calls, activities } = closeWithRevaluation(async () => {
      throw ApplicationFailure.nonRetryable('rate-unavailable: no CBU rate is stored for EUR on or before 2025-02-28', FailureType.RateUnavailable);
    });
    const close = input();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await t.client.workflow.start<ClosePeriodWorkflow>(CLOSE_PERIOD_WORKFLOW, { taskQueue, workflowId: closePeriodWorkflowId(close.legalEntityId, close.closeDate), args: [close] });
      expect(await handle.result()).toEqual({
        status: 'FAILED',
        reason: 'the revaluation at 2025-02-28 failed: rate-unavailable: no CBU rate is stored for EUR on or before 2025-02-28',
      });
    });
    expect(calls).toEqual([
      'lock',
      'depreciation',
      'open revaluation',
      'revalue its own at 2025-02-28',
      'revaluation failed',
      'fail: the revaluation at 2025-02-28 failed: rate-unavailable: no CBU rate is stored for EUR on or before 2025-02-28',
    ]);
  });
});

