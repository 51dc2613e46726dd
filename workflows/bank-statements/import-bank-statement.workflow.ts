import { proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { ImportBankStatementActivities, ImportBankStatementInput, ImportBankStatementResult } from '../../contracts/bank-statements';

const { storeStatementLines, proposeStatementLines, confirmStatementLines, completeStatementImport } = proxyActivities<ImportBankStatementActivities>(activityProfiles.statementImportStep);

/**
 * Imports a bank statement's file into a bank account (workflow `bank-import-<bankAccountId>-<sha256>`):
 * one step reads, checks and stores its lines (or refuses the file whole), the next proposes invoices or
 * accounts for the new lines, then the proposals of rules with autoConfirm are posted (a line to a commit),
 * and the last step completes the import with its counts. Each step finds its work done when it is retried,
 * so a worker killed anywhere stores no line twice and posts no payment twice.
 */
export async function importBankStatementWorkflow(input: ImportBankStatementInput): Promise<ImportBankStatementResult> {
  const stored = await storeStatementLines(input);
  if (stored.outcome === 'FAILED') return { status: 'FAILED', problem: stored.problem };
  const proposed = await proposeStatementLines(input);
  if (!proposed) return { status: 'ALREADY_SETTLED' };
  if (proposed.autoConfirm > 0) await confirmStatementLines(input);
  const counts = await completeStatementImport(input);
  return counts ? { status: 'COMPLETED', counts } : { status: 'ALREADY_SETTLED' };
}
