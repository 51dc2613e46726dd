// The ledger workflows' contracts: closePeriodWorkflow (started by closePeriod) and its activities. Imported by
// the API (which starts the close), the workflow and its activities.

export const CLOSE_PERIOD_WORKFLOW = 'closePeriodWorkflow';

export interface ClosePeriodInput {
  tenantId: string;
  legalEntityId: string;
  closeId: string;
  closeDate: string;
  correlationId: string;
}

export type ClosePeriodResult =
  | { status: 'COMPLETED'; entryCount: number; accounts: number; total: string }
  | { status: 'FAILED'; reason: string }
  /** A second run for a close an earlier run already settled (a start retried after it took): no effect. */
  | { status: 'ALREADY_SETTLED' };
export type ClosePeriodWorkflow = (input: ClosePeriodInput) => Promise<ClosePeriodResult>;

export interface ClosePeriodActivities {
  /**
   * The cut-off: waits for postings in flight, after which none dated at or before closeDate commits.
   * Answers whether the close is still RUNNING; a settled close is left as it is.
   */
  lockClosedPeriod(input: ClosePeriodInput): Promise<{ running: boolean }>;
  /** Stores the snapshot (previous close + the period's lines) once and checks that it balances. */
  computeClosingBalances(input: ClosePeriodInput): Promise<{ entryCount: number; accounts: number; total: string }>;
  completePeriodClose(input: ClosePeriodInput & { entryCount: number; total: string }): Promise<void>;
  failPeriodClose(input: ClosePeriodInput & { reason: string }): Promise<void>;
}
