import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import { createCounterparties } from './counterparties';

export type CounterpartyOperation = 'listCounterparties' | 'createCounterparty' | 'getCounterparty' | 'updateCounterparty';

/** The register of a company's customers and suppliers. */
export function counterpartyHandlers(deps: { companies: CompanyScopes }): HandlersOf<CounterpartyOperation> {
  const counterparties = createCounterparties(deps.companies);
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
  };
}
