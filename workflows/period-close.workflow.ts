import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createPeriodCloseActivities } from '../activities/period-close';

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' } as const;
const steps = proxyActivities<ReturnType<typeof createPeriodCloseActivities>>({ startToCloseTimeout: '1 minute', retry });
const { computeClosingBalances } = proxyActivities<ReturnType<typeof createPeriodCloseActivities>>({
  // One statement over the period's lines: minutes for millions of lines; heartbeats show it is alive.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry,
});

export interface PeriodCloseInput {
  tenantId: string;
  legalEntityId: string;
  closeId: string;
  closeDate: string;
  correlationId: string;
}

export type PeriodCloseResult = { status: 'COMPLETED'; entryCount: number; accounts: number; total: string } | { status: 'FAILED'; reason: string };

/**
 * Closes the period through closeDate: holds back postings dated at or before it, stores the closing
 * balances (previous snapshot plus the period's lines), checks they balance and marks the period closed.
 * Workflow id `period-close-<legalEntityId>-<closeDate>`; every activity is idempotent.
 */
export async function periodCloseWorkflow(input: PeriodCloseInput): Promise<PeriodCloseResult> {
  try {
    await steps.lockClosedPeriod(input);
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
