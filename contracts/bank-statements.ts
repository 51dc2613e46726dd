// The bank statements' contracts: importBankStatementWorkflow (workflow bank-import-<bankAccountId>-<sha256>,
// started by importBankStatement through the start outbox) and its activities. The input carries ids only:
// the file stays in PostgreSQL, never in the workflow's history.

export const IMPORT_BANK_STATEMENT_WORKFLOW = 'importBankStatementWorkflow';

export interface ImportBankStatementInput {
  tenantId: string;
  legalEntityId: string;
  bankAccountId: string;
  importId: string;
  correlationId: string;
}

export interface ImportCounts {
  read: number;
  new: number;
  duplicate: number;
  matched: number;
  proposed: number;
  unmatched: number;
}

export type ImportBankStatementResult =
  | { status: 'COMPLETED'; counts: ImportCounts }
  /** The file was refused whole (`problem` names why: statement-unbalanced, statement-unreadable…); no line of it stored. */
  | { status: 'FAILED'; problem: string }
  /** A run for an import an earlier run already settled: no effect. */
  | { status: 'ALREADY_SETTLED' };
export type ImportBankStatementWorkflow = (input: ImportBankStatementInput) => Promise<ImportBankStatementResult>;

export interface ImportBankStatementActivities {
  /**
   * Reads the stored file, checks it (the account's number and currency, each statement adding up) and stores
   * its new lines with the read/new/duplicate counts, in one transaction; or ends the import FAILED with its
   * problem, storing nothing. An import whose lines are stored already, or that has ended, is left as it is.
   */
  storeStatementLines(input: ImportBankStatementInput): Promise<{ outcome: 'STORED' | 'SETTLED' } | { outcome: 'FAILED'; problem: string }>;
  /**
   * Proposes invoices or an account for the import's new lines (the rules in order, then the default proposal)
   * in one transaction, and says how many of them a rule confirms by itself; null when the import has ended.
   * A retry after the proposals were stored proposes nothing again.
   */
  proposeStatementLines(input: ImportBankStatementInput): Promise<{ autoConfirm: number } | null>;
  /**
   * Confirms the proposals of rules with autoConfirm: each line's payment or entry in a commit of its own, on
   * behalf of the person who imported; a line that cannot be posted stays PROPOSED with the reason. A line
   * matched already (by a person, or before a retry) is left as it is.
   */
  confirmStatementLines(input: ImportBankStatementInput): Promise<{ confirmed: number; declined: number }>;
  /** Ends the import COMPLETED with its counts, its audit and webhook events, in one transaction; null when it has ended. */
  completeStatementImport(input: ImportBankStatementInput): Promise<ImportCounts | null>;
}
