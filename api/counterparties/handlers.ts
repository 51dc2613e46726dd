import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { CompanyScopes } from '../organisation/company-scope';
import { createCounterparties } from './counterparties';
import { createReconciliationStatements } from './reconciliation';

export type CounterpartyOperation = 'listCounterparties' | 'createCounterparty' | 'getCounterparty' | 'updateCounterparty' | 'getReconciliationStatement';

/** The register of a company's customers and suppliers, and the reconciliation statement with each. */
export function counterpartyHandlers(deps: {
  companies: CompanyScopes;
  /** The threads that build XLSX exports (the reconciliation statement's). */
  xlsxThreads: XlsxThreads;
}): HandlersOf<CounterpartyOperation> {
  const counterparties = createCounterparties(deps.companies);
  const reconciliation = createReconciliationStatements(deps.companies, deps.xlsxThreads);
  return {
    listCounterparties: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await counterparties.listCounterparties(principal, params.legalEntityId, { q: query.q ?? '', archived: query.archived ?? 'false', ...pageQuery(query) }),
    })),

    createCounterparty: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await counterparties.createCounterparty(principal, params.legalEntityId, body, ctx),
    })),

    getCounterparty: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await counterparties.getCounterparty(principal, params.legalEntityId, params.counterpartyId),
    })),

    updateCounterparty: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await counterparties.updateCounterparty(principal, params.legalEntityId, params.counterpartyId, body, ctx),
    })),

    getReconciliationStatement: memberOperation(async ({ principal, params, query, mediaType }) => {
      const statement = { counterpartyId: params.counterpartyId, from: query.from, to: query.to, view: query.view ?? 'COMPANY' };
      // An export has the whole statement: page and size do not apply.
      if (mediaType !== 'application/json') return reconciliation.reconciliationExport(principal, params.legalEntityId, statement, mediaType);
      return { status: 200, body: await reconciliation.getReconciliationStatement(principal, params.legalEntityId, { ...statement, ...pageQuery(query) }) };
    }),
  };
}
