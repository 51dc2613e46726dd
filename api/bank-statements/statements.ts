import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import { DuplicateRowError } from '../../db/repositories/errors';
import { findBankAccount, type BankAccountRow } from '../../db/repositories/bank-accounts/bank-accounts';
import { FILE_PART_BYTES, findImport, insertImport, insertImportFile, type ImportRow } from '../../db/repositories/bank-statements/statements';
import { findProfile } from '../../db/repositories/bank-statements/profiles';
import { AppError } from '../../core/shared/problems';
import { IMPORT_BANK_STATEMENT_WORKFLOW, type ImportBankStatementWorkflow } from '../../contracts/bank-statements';
import { importBankStatementWorkflowId } from '../../contracts/workflow-ids';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import type { WorkflowClient } from '../workflow-client';

type BankStatementImport = Schemas['BankStatementImport'];

/** A statement file as the API received it (spooled to disk): its size, its SHA-256 in hex, its bytes a part at a time (each valid until the next is asked for). */
export interface FileContent {
  size: number;
  sha256: string;
  parts(partSize: number): AsyncIterable<Buffer>;
}

/** The content types of a bank's spreadsheet export, read with a saved column profile. */
const SPREADSHEET_TYPES = ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

export function toImport(row: ImportRow): BankStatementImport {
  return {
    id: row.id,
    bankAccountId: row.bankAccountId,
    status: row.status,
    sha256: row.sha256,
    contentType: row.contentType,
    byteSize: row.byteSize,
    format: row.format,
    statementCount: row.statementCount,
    periodFrom: row.periodFrom,
    periodTo: row.periodTo,
    openingBalance: row.openingBalance,
    closingBalance: row.closingBalance,
    counts: row.counts,
    problem: row.problem as BankStatementImport['problem'],
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/** The bank account, in this company; another company's or tenant's is not there either (404). */
export async function requireBankAccount(tx: Tx, scope: CompanyScope, id: string): Promise<BankAccountRow> {
  const account = await findBankAccount(tx, scope, id);
  if (!account) throw new AppError('not-found', 'No bank account with this id in this company');
  return account;
}

/** Statement files into the company's bank accounts: each file once per account, read by its workflow. */
export function createBankStatementImports(deps: { companies: CompanyScopes; workflows: WorkflowClient }) {
  const { companies, workflows } = deps;

  async function importBankStatement(
    principal: Principal,
    legalEntityId: string,
    bankAccountId: string,
    file: { content: FileContent | null; contentType: string; profileId: string | null },
    ctx: RequestContext,
  ): Promise<{ statementImport: BankStatementImport; created: boolean }> {
    const { content } = file;
    // An empty body is no file: the parser would say so only later, in the import.
    if (!content || content.size === 0) throw new AppError('validation', 'The body is empty: send the statement file', { errors: [{ path: '/body', message: 'must not be empty' }] });
    const spreadsheet = SPREADSHEET_TYPES.includes(file.contentType.split(';')[0]!.trim().toLowerCase());
    if (spreadsheet && !file.profileId) {
      throw new AppError('validation', 'A CSV or XLSX statement is read with a column profile: name it', { errors: [{ path: '/query/profileId', message: 'is required for text/csv and XLSX' }] });
    }
    if (!spreadsheet && file.profileId) {
      throw new AppError('validation', 'Only a CSV or XLSX statement is read with a column profile', { errors: [{ path: '/query/profileId', message: 'only with text/csv or XLSX' }] });
    }
    const { sha256 } = content;
    const contentType = file.contentType.slice(0, 200);
    const attempt = () =>
      companies.change(principal, legalEntityId, async (tx, scope) => {
        const account = await requireBankAccount(tx, scope, bankAccountId);
        const existing = await findImport(tx, scope, { bankAccountId, sha256 });
        if (existing) return { statementImport: toImport(existing), created: false };
        if (account.archived) throw new AppError('bank-account-archived', 'The bank account is archived: restore it to import into it');
        const profile = file.profileId ? await findProfile(tx, scope, file.profileId) : null;
        if (file.profileId && !profile) {
          throw new AppError('validation', 'No column profile with this id in this company', { errors: [{ path: '/query/profileId', message: 'no column profile with this id in this company' }] });
        }
        const id = randomUUID();
        const row = await insertImport(tx, scope, {
          id,
          bankAccountId,
          sha256,
          contentType,
          byteSize: content.size,
          importedBy: principal.membershipId,
          correlationId: ctx.correlationId,
          profile: profile ? { id: profile.id, profile: profile.profile } : null,
        });
        // A concurrent request with the same file won the insert: the retry below answers its import.
        if (!row) throw new DuplicateRowError('bank_statement_imports_file_key');
        await insertImportFile(tx, scope, id, content.parts(FILE_PART_BYTES));
        await recordCallerEvent(tx, principal, ctx, {
          action: 'bank-statement.import-requested',
          subjectType: 'BANK_STATEMENT_IMPORT',
          subjectId: id,
          details: `${content.size} bytes (${contentType}) into ${account.accountNumber}, SHA-256 ${sha256}`,
        });
        await workflows.enqueue<ImportBankStatementWorkflow>(tx, IMPORT_BANK_STATEMENT_WORKFLOW, {
          workflowId: importBankStatementWorkflowId(bankAccountId, sha256),
          args: [{ tenantId: principal.tenantId, legalEntityId, bankAccountId, importId: id, correlationId: ctx.correlationId }],
          tenantId: principal.tenantId,
          // One import per file and account, ever: the id is never run twice.
          idReusePolicy: 'REJECT_DUPLICATE',
        });
        return { statementImport: toImport(row), created: true };
      });
    let outcome: { statementImport: BankStatementImport; created: boolean };
    try {
      outcome = await attempt();
    } catch (err) {
      if (!(err instanceof DuplicateRowError)) throw err;
      outcome = await attempt();
    }
    if (outcome.created) await workflows.dispatch({ workflowId: importBankStatementWorkflowId(bankAccountId, sha256) });
    return outcome;
  }

  async function getBankStatementImport(principal: Principal, legalEntityId: string, bankAccountId: string, importId: string): Promise<BankStatementImport> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const row = await findImport(tx, scope, { id: importId, bankAccountId });
      if (!row) throw new AppError('not-found', 'No import with this id for this bank account');
      return toImport(row);
    });
  }

  return { importBankStatement, getBankStatementImport };
}
