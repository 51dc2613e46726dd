// The ledger workflows' contracts: imported by the API (which starts the close), the workflow and its activities.

export const PERIOD_CLOSE_WORKFLOW = 'periodCloseWorkflow';

export interface PeriodCloseInput {
  tenantId: string;
  legalEntityId: string;
  closeId: string;
  closeDate: string;
  correlationId: string;
}

export type PeriodCloseResult = { status: 'COMPLETED'; entryCount: number; accounts: number; total: string } | { status: 'FAILED'; reason: string };
export type PeriodCloseWorkflow = (input: PeriodCloseInput) => Promise<PeriodCloseResult>;

export interface PeriodCloseActivities {
  /** The cut-off: waits for postings in flight, after which none dated at or before closeDate commits. */
  lockClosedPeriod(input: PeriodCloseInput): Promise<void>;
  /** Stores the snapshot (previous close + the period's lines) once and checks that it balances. */
  computeClosingBalances(input: PeriodCloseInput): Promise<{ entryCount: number; accounts: number; total: string }>;
  completePeriodClose(input: PeriodCloseInput & { entryCount: number; total: string }): Promise<void>;
  failPeriodClose(input: PeriodCloseInput & { reason: string }): Promise<void>;
}
