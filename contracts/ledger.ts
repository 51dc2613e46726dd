// The ledger workflows' contracts: closePeriodWorkflow (started by closePeriod), postRevaluationWorkflow
// (started by postRevaluation and by every close) and their activities. Imported by the API (which starts
// them), the workflows and their activities.

export const CLOSE_PERIOD_WORKFLOW = 'closePeriodWorkflow';

/** The fiscal year is the calendar year (the Law on Accounting): its close on 31 December closes the year too. */
export function isFiscalYearEnd(date: string): boolean {
  return date.endsWith('-12-31');
}

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
  /**
   * The close's revaluation at its date: the one of that date that did not fail, or a new one (RUNNING,
   * requested by the close). Its workflow runs only when it is RUNNING.
   */
  openCloseRevaluation(input: ClosePeriodInput): Promise<{ revaluationId: string; status: 'RUNNING' | 'COMPLETED' }>;
  /**
   * At a fiscal year's end (isFiscalYearEnd), the closing entries: income and expense accounts into 9910,
   * 9910 into 8710, once, in one transaction. Answers how many entries it posted (0 when there was nothing, or
   * an earlier attempt posted them).
   */
  postYearEndClosing(input: ClosePeriodInput): Promise<{ entries: number }>;
  completePeriodClose(input: ClosePeriodInput & { entryCount: number; total: string }): Promise<void>;
  failPeriodClose(input: ClosePeriodInput & { reason: string }): Promise<void>;
}

// postRevaluationWorkflow (started by postRevaluation, and as a child by closePeriodWorkflow before its snapshot).

export const POST_REVALUATION_WORKFLOW = 'postRevaluationWorkflow';

export interface PostRevaluationInput {
  tenantId: string;
  legalEntityId: string;
  revaluationId: string;
  revaluationDate: string;
  correlationId: string;
}

export type PostRevaluationResult =
  | { status: 'COMPLETED'; entryId: string | null; gainTotal: string; lossTotal: string }
  | { status: 'FAILED'; reason: string }
  /** A run for a revaluation an earlier run already settled: no effect. */
  | { status: 'ALREADY_SETTLED' };
export type PostRevaluationWorkflow = (input: PostRevaluationInput) => Promise<PostRevaluationResult>;

export interface PostRevaluationActivities {
  /**
   * Brings the monetary accounts' foreign balances to the CBU rate of the date in one transaction: the entry
   * (none when nothing differs), its audit and webhook events, and the revaluation COMPLETED. A revaluation no
   * longer RUNNING is left as it is (`settled`).
   */
  postRevaluationEntry(input: PostRevaluationInput): Promise<{ settled: boolean; entryId: string | null; gainTotal: string; lossTotal: string }>;
  failRevaluation(input: PostRevaluationInput & { reason: string }): Promise<void>;
}
