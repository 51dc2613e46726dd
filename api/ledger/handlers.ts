import type { Sequelize } from 'sequelize';
import type { OperationIndex } from '../../contracts/operations';
import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WorkflowClient } from '../workflow-client';
import type { WebhookEvents } from '../webhooks/events';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { PostingGroups } from './posting-groups';
import { createJournalEntries } from './journal-entries';
import { createPeriodCloses } from './period-closes';
import { createTrialBalances } from './trial-balance';
import { createRevaluations } from './revaluations';
import { createReports } from './reports';
import { createLedgerExports } from './exports';
import { createStatements } from './statements';
import { createOverview } from './overview';

export type LedgerOperation =
  | 'postJournalEntry'
  | 'listJournalEntries'
  | 'getJournalEntry'
  | 'reverseJournalEntry'
  | 'getTrialBalance'
  | 'listPeriodCloses'
  | 'closePeriod'
  | 'getPeriodClose'
  | 'postRevaluation'
  | 'listRevaluations'
  | 'getRevaluation'
  | 'getTurnoverSheet'
  | 'getAccountStatement'
  | 'getBalanceSheet'
  | 'getFinancialResults'
  | 'getCompanyOverview';

/** Journal entries, reversals, trial balances, period closes and currency revaluations of a company. */
export function ledgerHandlers(deps: {
  db: Sequelize;
  companies: CompanyScopes;
  workflows: WorkflowClient;
  index: OperationIndex;
  webhookEvents: WebhookEvents;
  /** The threads that build XLSX exports. */
  xlsxThreads: XlsxThreads;
  /** The companies' group commits of postings. */
  postingGroups: PostingGroups;
}): HandlersOf<LedgerOperation> {
  const entries = createJournalEntries(deps);
  const closes = createPeriodCloses(deps);
  const balances = createTrialBalances(deps.companies);
  const revaluations = createRevaluations(deps);
  const reports = createReports(deps.companies);
  const ledgerExports = createLedgerExports(deps.companies, deps.xlsxThreads);
  const statements = createStatements(deps.companies);
  const overview = createOverview(deps.companies);
  return {
    getCompanyOverview: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await overview.getCompanyOverview(principal, params.legalEntityId, query.asOf ?? new Date().toISOString().slice(0, 10)),
    })),

    postJournalEntry: memberOperation(async ({ principal, params, body, ctx }) => {
      const { entry } = await entries.postJournalEntry(principal, params.legalEntityId, body, ctx);
      const location = deps.index.pathOf('getJournalEntry', { legalEntityId: params.legalEntityId, entryId: entry.id });
      return { status: 201, body: entry, headers: { Location: location } };
    }),

    listJournalEntries: memberOperation(async ({ principal, params, query, mediaType }) => {
      const filter = { dateFrom: query.dateFrom, dateTo: query.dateTo, accountCode: query.accountCode, currency: query.currency };
      // An export has every line of the matching entries: page and size do not apply.
      if (mediaType !== 'application/json') return ledgerExports.journal(principal, params.legalEntityId, filter, mediaType);
      return { status: 200, body: await entries.listJournalEntries(principal, params.legalEntityId, { ...filter, ...pageQuery(query) }) };
    }),

    getJournalEntry: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await entries.getJournalEntry(principal, params.legalEntityId, params.entryId),
    })),

    reverseJournalEntry: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: (await entries.reverseJournalEntry(principal, params.legalEntityId, params.entryId, body, ctx)).entry,
    })),

    getTrialBalance: memberOperation(async ({ principal, params, query, mediaType }) => {
      const body = await balances.getTrialBalance(principal, params.legalEntityId, query.asOf, query.currency);
      return mediaType === 'application/json' ? { status: 200, body } : ledgerExports.trialBalance(mediaType, params.legalEntityId, body);
    }),

    listPeriodCloses: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await closes.listPeriodCloses(principal, params.legalEntityId),
    })),

    closePeriod: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 202,
      body: await closes.closePeriod(principal, params.legalEntityId, body, ctx),
    })),

    getPeriodClose: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await closes.getPeriodClose(principal, params.legalEntityId, params.closeId),
    })),

    postRevaluation: memberOperation(async ({ principal, params, body, ctx }) => {
      const { view, created } = await revaluations.postRevaluation(principal, params.legalEntityId, body, ctx);
      const location = deps.index.pathOf('getRevaluation', { legalEntityId: params.legalEntityId, revaluationId: view.id });
      return { status: created ? 202 : 200, body: view, headers: { Location: location } };
    }),

    listRevaluations: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await revaluations.listRevaluations(principal, params.legalEntityId),
    })),

    getRevaluation: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await revaluations.getRevaluation(principal, params.legalEntityId, params.revaluationId),
    })),

    getTurnoverSheet: memberOperation(async ({ principal, params, query, mediaType }) => {
      const body = await reports.getTurnoverSheet(principal, params.legalEntityId, {
        from: query.from,
        to: query.to,
        detail: query.detail ?? 'ACCOUNT',
        currency: query.currency,
        counterpartyId: query.counterpartyId,
      });
      return mediaType === 'application/json' ? { status: 200, body } : ledgerExports.turnoverSheet(mediaType, params.legalEntityId, body);
    }),

    getBalanceSheet: memberOperation(async ({ principal, params, query, mediaType }) => {
      const body = await statements.getBalanceSheet(principal, params.legalEntityId, query.asOf);
      return mediaType === 'application/json' ? { status: 200, body } : ledgerExports.financialStatement(mediaType, params.legalEntityId, body);
    }),

    getFinancialResults: memberOperation(async ({ principal, params, query, mediaType }) => {
      const body = await statements.getFinancialResults(principal, params.legalEntityId, query.from, query.to);
      return mediaType === 'application/json' ? { status: 200, body } : ledgerExports.financialStatement(mediaType, params.legalEntityId, body);
    }),

    getAccountStatement: memberOperation(async ({ principal, params, query, mediaType }) => {
      const range = {
        accountCode: query.accountCode,
        subaccountId: query.subaccountId,
        counterpartyId: query.counterpartyId,
        from: query.from,
        to: query.to,
        currency: query.currency,
      };
      if (mediaType === 'application/json') {
        return { status: 200, body: await reports.getAccountStatement(principal, params.legalEntityId, { ...range, ...pageQuery(query) }) };
      }
      // An export has every line of the range: its first page (one line) checks the request and gives the opening balances.
      const head = await reports.getAccountStatement(principal, params.legalEntityId, { ...range, page: 0, size: 1 });
      return ledgerExports.accountStatement(principal, params.legalEntityId, range, head, mediaType);
    }),
  };
}
