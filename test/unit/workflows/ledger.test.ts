import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { activityProfiles } from '../../../contracts/activity-profiles';
import { FailureType } from '../../../contracts/failures';
import { CLOSE_PERIOD_WORKFLOW, type ClosePeriodActivities, type ClosePeriodInput, type ClosePeriodWorkflow } from '../../../contracts/ledger';
import { closePeriodWorkflowId } from '../../../contracts/workflow-ids';
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
  function steps(options: { running?: boolean; compute?: ClosePeriodActivities['computeClosingBalances'] } = {}) {
    const calls: string[] = [];
    const activities: ClosePeriodActivities = {
      lockClosedPeriod: async () => {
        calls.push('lock');
        return { running: options.running ?? true };
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
        computeClosingBalances: activityProfiles.closingBalances,
        completePeriodClose: activityProfiles.databaseStep,
      });
    });
    expect(calls).toEqual(['lock', 'compute#1', 'complete 12 1500000.00']);
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
    expect(calls).toEqual(['lock', 'compute#1', 'compute#2', 'compute#3', 'complete 12 1500000.00']);
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
    expect(calls).toEqual(['lock', 'compute#1', `fail: ${reason}`]);
  });
});
