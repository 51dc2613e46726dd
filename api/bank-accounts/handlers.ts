import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import { createBankAccounts } from './bank-accounts';

export type BankAccountOperation = 'listBankAccounts' | 'createBankAccount' | 'getBankAccount' | 'updateBankAccount';

/** The register of the company's own bank accounts. */
export function bankAccountHandlers(deps: { companies: CompanyScopes }): HandlersOf<BankAccountOperation> {
  const bankAccounts = createBankAccounts(deps.companies);
  return {
    listBankAccounts: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await bankAccounts.listBankAccounts(principal, params.legalEntityId, { archived: query.archived ?? 'false', ...pageQuery(query) }),
    })),

    createBankAccount: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await bankAccounts.createBankAccount(principal, params.legalEntityId, body, ctx),
    })),

    getBankAccount: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await bankAccounts.getBankAccount(principal, params.legalEntityId, params.bankAccountId),
    })),

    updateBankAccount: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await bankAccounts.updateBankAccount(principal, params.legalEntityId, params.bankAccountId, body, ctx),
    })),
  };
}
