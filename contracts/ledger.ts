// The ledger workflows' contracts: imported by the API (which starts the close), the workflow and its activities.

export const PERIOD_CLOSE_WORKFLOW = 'periodCloseWorkflow';

export interface PeriodCloseInput {
  tenantId: string;
  legalEntityId: string;
  closeId: string;
  closeDate: string;
  correlationId: string;
}

export type PeriodCloseResult =
  | { status: 'COMPLETED'; entryCount: number; accounts: number; total: string }
  | { status: 'FAILED'; reason: string }
  /** A second run for a close an earlier run already settled (a start retried after it took): no effect. */
  | { status: 'ALREADY_SETTLED' };
export type PeriodCloseWorkflow = (input: PeriodCloseInput) => Promise<PeriodCloseResult>;

export interface PeriodCloseActivities {
  /**
   * The cut-off: waits for postings in flight, after which none dated at or before closeDate commits.
   * Answers whether the close is still RUNNING; a settled close is left as it is.
   */
  lockClosedPeriod(input: PeriodCloseInput): Promise<{ running: boolean }>;
  /** Stores the snapshot (previous close + the period's lines) once and checks that it balances. */
  computeClosingBalances(input: PeriodCloseInput): Promise<{ entryCount: number; accounts: number; total: string }>;
  completePeriodClose(input: PeriodCloseInput & { entryCount: number; total: string }): Promise<void>;
  failPeriodClose(input: PeriodCloseInput & { reason: string }): Promise<void>;
}
