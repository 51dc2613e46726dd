import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import type { WorkflowClient } from '../workflow-client';
import { createBankLines } from './lines';
import { SpooledFile } from '../http/file-body';
import { createBankStatementImports } from './statements';
import { createBankReconciliation } from './reconciliation';
import { createBankMatchingRules } from './rules';
import { createBankStatementProfiles } from './profiles';
import type { XlsxThreads } from '../http/xlsx-threads';

export type BankStatementOperation =
  | 'importBankStatement'
  | 'getBankStatementImport'
  | 'listBankLines'
  | 'matchBankLine'
  | 'unmatchBankLine'
  | 'getBankReconciliation'
  | 'listBankMatchingRules'
  | 'createBankMatchingRule'
  | 'updateBankMatchingRule'
  | 'deleteBankMatchingRule'
  | 'listBankStatementProfiles'
  | 'createBankStatementProfile'
  | 'updateBankStatementProfile'
  | 'deleteBankStatementProfile';

/** Bank statements imported into the company's bank accounts, and their lines matched to invoices. */
export function bankStatementHandlers(deps: {
  companies: CompanyScopes;
  workflows: WorkflowClient;
  webhookEvents: WebhookEvents;
  /** The threads that build XLSX exports (the bank reconciliation's). */
  xlsxThreads: XlsxThreads;
}): HandlersOf<BankStatementOperation> {
  const imports = createBankStatementImports(deps);
  const lines = createBankLines(deps);
  const reconciliation = createBankReconciliation(deps);
  const rules = createBankMatchingRules(deps.companies);
  const profiles = createBankStatementProfiles(deps.companies);
  return {
    importBankStatement: memberOperation(async ({ principal, params, query, body, contentType, ctx }) => {
      // The body parser spools the bytes as sent to disk for the types the document takes; no body is none.
      const content = (body as unknown) instanceof SpooledFile ? (body as unknown as SpooledFile) : null;
      const outcome = await imports.importBankStatement(principal, params.legalEntityId, params.bankAccountId, { content, contentType: contentType ?? '', profileId: query.profileId ?? null }, ctx);
      return outcome.created ? { status: 202, body: outcome.statementImport } : { status: 200, body: outcome.statementImport };
    }),

    getBankStatementImport: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await imports.getBankStatementImport(principal, params.legalEntityId, params.bankAccountId, params.importId),
    })),

    listBankLines: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await lines.listBankLines(principal, params.legalEntityId, params.bankAccountId, {
        ...pageQuery(query),
        ...(query.status ? { status: query.status } : {}),
        ...(query.importId ? { importId: query.importId } : {}),
        ...(query.from ? { from: query.from } : {}),
        ...(query.to ? { to: query.to } : {}),
      }),
    })),

    matchBankLine: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await lines.matchBankLine(principal, params.legalEntityId, params.bankAccountId, params.lineId, body, ctx),
    })),

    listBankMatchingRules: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await rules.listBankMatchingRules(principal, params.legalEntityId, pageQuery(query)),
    })),

    createBankMatchingRule: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await rules.createBankMatchingRule(principal, params.legalEntityId, body, ctx),
    })),

    updateBankMatchingRule: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await rules.updateBankMatchingRule(principal, params.legalEntityId, params.ruleId, body, ctx),
    })),

    deleteBankMatchingRule: memberOperation(async ({ principal, params, ctx }) => {
      await rules.deleteBankMatchingRule(principal, params.legalEntityId, params.ruleId, ctx);
      return { status: 204 };
    }),

    listBankStatementProfiles: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await profiles.listBankStatementProfiles(principal, params.legalEntityId, pageQuery(query)),
    })),

    createBankStatementProfile: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await profiles.createBankStatementProfile(principal, params.legalEntityId, body, ctx),
    })),

    updateBankStatementProfile: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await profiles.updateBankStatementProfile(principal, params.legalEntityId, params.profileId, body, ctx),
    })),

    deleteBankStatementProfile: memberOperation(async ({ principal, params, ctx }) => {
      await profiles.deleteBankStatementProfile(principal, params.legalEntityId, params.profileId, ctx);
      return { status: 204 };
    }),

    getBankReconciliation: memberOperation(async ({ principal, params, query, mediaType }) => {
      const body = await reconciliation.getBankReconciliation(principal, params.legalEntityId, { bankAccountId: query.bankAccountId, asOf: query.asOf });
      return mediaType === 'application/json' ? { status: 200, body } : reconciliation.bankReconciliationExport(mediaType, params.legalEntityId, body);
    }),

    unmatchBankLine: memberOperation(async ({ principal, params, ctx }) => ({
      status: 200,
      body: await lines.unmatchBankLine(principal, params.legalEntityId, params.bankAccountId, params.lineId, ctx),
    })),
  };
}
