import type { Sequelize } from 'sequelize';
import type { OperationIndex } from '../../contracts/operations';
import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WorkflowClient } from '../workflow-client';
import type { WebhookEvents } from '../webhooks/events';
import { createJournalEntries } from './journal-entries';
import { createPeriodCloses } from './period-closes';
import { createTrialBalances } from './trial-balance';

export type LedgerOperation =
  | 'postJournalEntry'
  | 'listJournalEntries'
  | 'getJournalEntry'
  | 'reverseJournalEntry'
  | 'getTrialBalance'
  | 'listPeriodCloses'
  | 'closePeriod'
  | 'getPeriodClose';

/** Journal entries, reversals, trial balances and period closes of a company. */
export function ledgerHandlers(deps: {
  db: Sequelize;
  companies: CompanyScopes;
  workflows: WorkflowClient;
  index: OperationIndex;
  webhookEvents: WebhookEvents;
}): HandlersOf<LedgerOperation> {
  const entries = createJournalEntries(deps);
  const closes = createPeriodCloses(deps);
  const balances = createTrialBalances(deps.companies);
  return {
    postJournalEntry: memberOperation(async ({ principal, params, body, ctx }) => {
      const { entry } = await entries.postJournalEntry(principal, params.legalEntityId, body, ctx);
      const location = deps.index.pathOf('getJournalEntry', { legalEntityId: params.legalEntityId, entryId: entry.id });
      return { status: 201, body: entry, headers: { Location: location } };
    }),

    listJournalEntries: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await entries.listJournalEntries(principal, params.legalEntityId, {
        dateFrom: query.dateFrom,
        dateTo: query.dateTo,
        accountCode: query.accountCode,
        ...pageQuery(query),
      }),
    })),

    getJournalEntry: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await entries.getJournalEntry(principal, params.legalEntityId, params.entryId),
    })),

    reverseJournalEntry: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: (await entries.reverseJournalEntry(principal, params.legalEntityId, params.entryId, body, ctx)).entry,
    })),

    getTrialBalance: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await balances.getTrialBalance(principal, params.legalEntityId, query.asOf),
    })),

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
  };
}
