import { topLevelNumberLiterals } from '../../core/shared/decimal-literals';
import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import { ACCOUNTING_OPTIONS, createAccountingSettings } from './accounting-settings';
import { createChartOfAccounts } from './chart-of-accounts';
import { createSubaccounts } from './subaccounts';

export type AccountingOperation =
  | 'getAccountingOptions'
  | 'getCompanyAccountingSettings'
  | 'saveCompanyAccountingSettings'
  | 'listCompanyAccounts'
  | 'createCompanyAccount'
  | 'getCompanyAccount'
  | 'configureCompanyAccount'
  | 'listCompanySubaccounts'
  | 'createCompanySubaccount'
  | 'getCompanySubaccount'
  | 'configureCompanySubaccount';

/** Chart of accounts, subaccounts and accounting settings of a company. */
export function accountingHandlers(deps: { companies: CompanyScopes }): HandlersOf<AccountingOperation> {
  const settings = createAccountingSettings(deps.companies);
  const chart = createChartOfAccounts(deps.companies);
  const subaccounts = createSubaccounts(deps.companies);
  return {
    getAccountingOptions: memberOperation(() => ({ status: 200, body: ACCOUNTING_OPTIONS })),

    getCompanyAccountingSettings: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await settings.getCompanyAccountingSettings(principal, params.legalEntityId),
    })),

    saveCompanyAccountingSettings: memberOperation(async ({ principal, params, body, ctx, rawBody }) => {
      const vatRateLiteral = topLevelNumberLiterals(rawBody()).get('vatRate') ?? String(body.vatRate);
      return { status: 200, body: await settings.saveCompanyAccountingSettings(principal, params.legalEntityId, { ...body, vatRateLiteral }, ctx) };
    }),

    listCompanyAccounts: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await chart.listCompanyAccounts(principal, params.legalEntityId, { q: query.q ?? '', type: query.type ?? null, header: query.header ?? null, ...pageQuery(query) }),
    })),

    createCompanyAccount: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await chart.createCompanyAccount(principal, params.legalEntityId, body, ctx),
    })),

    getCompanyAccount: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await chart.getCompanyAccount(principal, params.legalEntityId, params.code),
    })),

    configureCompanyAccount: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await chart.configureCompanyAccount(principal, params.legalEntityId, params.code, body, ctx),
    })),

    listCompanySubaccounts: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await subaccounts.listCompanySubaccounts(principal, params.legalEntityId, params.code, { q: query.q ?? '', ...pageQuery(query) }),
    })),

    createCompanySubaccount: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await subaccounts.createCompanySubaccount(principal, params.legalEntityId, params.code, body, ctx),
    })),

    getCompanySubaccount: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await subaccounts.getCompanySubaccount(principal, params.legalEntityId, params.code, params.subaccountId),
    })),

    configureCompanySubaccount: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await subaccounts.configureCompanySubaccount(principal, params.legalEntityId, params.code, params.subaccountId, body, ctx),
    })),
  };
}
