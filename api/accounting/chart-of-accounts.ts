import {
  companyChartPageOf,
  companyChartPageStatement,
  countCompanyChart,
  findCompanyAccount,
  insertCustomAccount,
  saveAccountConfiguration,
  type CompanyAccountRow,
} from '../../db/repositories/accounting/chart-of-accounts';
import { AppError } from '../../core/shared/problems';
import { normalSideOf, type AccountType } from '../../core/ledger/accounts';
import type { Schemas } from '../http/operation-handler';
import type { Principal, RequestContext } from '../http/context';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScopes } from '../organisation/company-scope';
import { pageOf } from '../http/pages';

type CompanyAccount = Schemas['CompanyAccount'];

function toCompanyAccount(row: CompanyAccountRow): CompanyAccount {
  const normalSide = normalSideOf(row.type);
  return {
    code: row.code,
    name: row.name,
    type: row.type,
    normalSide,
    // From the normal side alone: a disabled account keeps its balance type.
    balanceType: normalSide === 'DEBIT' ? 'ACTIVE' : 'PASSIVE',
    enabled: row.enabled,
    custom: row.custom,
    header: row.header,
    subaccountCount: row.subaccountCount,
    version: row.version,
  };
}

const noAccount = (code: string) => new AppError('not-found', `No account ${code} in this company's chart`);

/** The company's chart of accounts: the global chart with the company's overrides and its own accounts. */
export function createChartOfAccounts(companies: CompanyScopes) {
  async function listCompanyAccounts(
    principal: Principal,
    legalEntityId: string,
    query: { q: string; type: AccountType | null; header: boolean | null; page: number; size: number },
  ): Promise<Schemas['CompanyAccountPage']> {
    const chartQuery = { q: query.q, type: query.type, header: query.header, limit: query.size, offset: query.page * query.size };
    const [page] = await companies.readBatch(principal, legalEntityId, (scope) => [companyChartPageStatement(scope, chartQuery)]);
    // Past the last page the window count has no row to ride on: count on its own.
    const { rows, total } = await companyChartPageOf(page!, () =>
      companies.read(principal, legalEntityId, (tx, scope) => countCompanyChart(tx, scope, chartQuery)),
    );
    return pageOf(rows.map(toCompanyAccount), query, total);
  }

  async function getCompanyAccount(principal: Principal, legalEntityId: string, code: string): Promise<CompanyAccount> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const row = await findCompanyAccount(tx, scope, code);
      if (!row) throw noAccount(code);
      return toCompanyAccount(row);
    });
  }

  async function createCompanyAccount(
    principal: Principal,
    legalEntityId: string,
    input: Schemas['AccountCreate'],
    ctx: RequestContext,
  ): Promise<CompanyAccount> {
    return companies.change(principal, legalEntityId, async (tx, scope) => {
      if (!(await insertCustomAccount(tx, scope, input))) {
        throw new AppError('account-code-exists', `Account ${input.code} exists in the global or the company chart`, { code: input.code });
      }
      await recordCallerEvent(tx, principal, ctx, {
        action: 'accounting.account.created',
        subjectType: 'COMPANY_ACCOUNT',
        subjectId: legalEntityId,
        details: `account ${input.code}`,
      });
      return toCompanyAccount((await findCompanyAccount(tx, scope, input.code))!);
    });
  }

  async function configureCompanyAccount(
    principal: Principal,
    legalEntityId: string,
    code: string,
    input: Schemas['AccountConfigure'],
    ctx: RequestContext,
  ): Promise<CompanyAccount> {
    return companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const version = await saveAccountConfiguration(tx, scope, { code, ...input });
        if (version === null) {
          throw new AppError('stale-version', `Account ${code} changed since version ${input.expectedVersion}; reload it and retry`);
        }
        await recordCallerEvent(tx, principal, ctx, {
          action: 'accounting.account.configured',
          subjectType: 'COMPANY_ACCOUNT',
          subjectId: legalEntityId,
          details: `account ${code}, version ${version}`,
        });
        return toCompanyAccount((await findCompanyAccount(tx, scope, code))!);
      },
      async (tx, scope) => {
        if (!(await findCompanyAccount(tx, scope, code))) throw noAccount(code);
      },
    );
  }

  return { listCompanyAccounts, getCompanyAccount, createCompanyAccount, configureCompanyAccount };
}
