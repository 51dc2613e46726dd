import { ActivityFailure, ApplicationFailure, executeChild, proxyActivities, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import { isFiscalYearEnd, type ClosePeriodActivities, type ClosePeriodInput, type ClosePeriodResult } from '../../contracts/ledger';
import { postDepreciationWorkflowId, postRevaluationWorkflowId } from '../../contracts/workflow-ids';
import { TENANT_ID } from '../../contracts/search-attributes';
import { postRevaluationWorkflow } from './post-revaluation.workflow';
import { postDepreciationWorkflow } from '../fixed-assets/post-depreciation.workflow';

const steps = proxyActivities<ClosePeriodActivities>(activityProfiles.databaseStep);
const { computeClosingBalances, postYearEndClosing } = proxyActivities<ClosePeriodActivities>(activityProfiles.closingBalances);

/**
 * Closes the period through closeDate: holds back postings dated at or before it, charges the fixed assets'
 * depreciation for the period's months (the child workflow `depreciation-<legalEntityId>-<closeDate>`), revalues the foreign-currency
 * balances at closeDate (the child workflow `revaluation-<legalEntityId>-<closeDate>`, unless that date was
 * revalued already), at a fiscal year's end posts the closing entries (income and expenses into 9910, 9910
 * into 8710), stores the closing balances (previous snapshot plus the period's lines), checks they balance and
 * marks the period closed. A revaluation that fails fails the close.
 * Started by closePeriod (workflow id `close-period-<legalEntityId>-<closeDate>`); every activity is idempotent.
 */
export async function closePeriodWorkflow(input: ClosePeriodInput): Promise<ClosePeriodResult> {
  try {
    // A start retried after it had taken may run again once the first run ended: it changes nothing.
    const { running } = await steps.lockClosedPeriod(input);
    if (!running) return { status: 'ALREADY_SETTLED' };
    // The period's depreciation first: its expenses are the period's, before the snapshot and the year's closing.
    const depreciation = await executeChild(postDepreciationWorkflow, {
      workflowId: postDepreciationWorkflowId(input.legalEntityId, input.closeDate),
      args: [{ tenantId: input.tenantId, legalEntityId: input.legalEntityId, closeId: input.closeId, closeDate: input.closeDate, correlationId: input.correlationId }],
      // A close of this date that failed before may run again, and its depreciation with it.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [{ key: TENANT_ID, value: input.tenantId }],
    });
    if (depreciation.status === 'FAILED') throw ApplicationFailure.nonRetryable(`the depreciation through ${input.closeDate} failed: ${depreciation.reason}`);
    const revaluation = await steps.openCloseRevaluation(input);
    if (revaluation.status === 'RUNNING') {
      const outcome = await executeChild(postRevaluationWorkflow, {
        workflowId: postRevaluationWorkflowId(input.legalEntityId, input.closeDate),
        args: [
          { tenantId: input.tenantId, legalEntityId: input.legalEntityId, revaluationId: revaluation.revaluationId, revaluationDate: input.closeDate, correlationId: input.correlationId },
        ],
        // A revaluation of this date that failed before may run again under the same id.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        typedSearchAttributes: [{ key: TENANT_ID, value: input.tenantId }],
      });
      if (outcome.status === 'FAILED') throw ApplicationFailure.nonRetryable(`the revaluation at ${input.closeDate} failed: ${outcome.reason}`);
    }
    // The revaluation's gains and losses are income and expenses of the year: closed after it.
    if (isFiscalYearEnd(input.closeDate)) await postYearEndClosing(input);
    const summary = await computeClosingBalances(input);
    await steps.completePeriodClose({ ...input, entryCount: summary.entryCount, total: summary.total });
    return { status: 'COMPLETED', ...summary };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const reason = cause instanceof ApplicationFailure ? cause.message : 'the close could not finish';
    await steps.failPeriodClose({ ...input, reason });
    return { status: 'FAILED', reason };
  }
}
