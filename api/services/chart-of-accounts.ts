import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import {
  findCompanyAccount,
  insertCustomAccount,
  listCompanyAccounts,
  saveAccountConfiguration,
  type CompanyAccountRow,
  type CompanyScope,
} from '../../db/repositories/chart-of-accounts';
import type { AccountType } from '../../db/seeds/nas21-chart-of-accounts';
import { AppError } from '../../core/problems';
import { recordCallerEvent } from './caller-audit';
import type { Principal, RequestContext } from '../context';
import { requireChangeableCompany, requireCompany } from './company-access';

export const ACCOUNT_TYPES: AccountType[] = ['ASSET', 'CONTRA_ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE'];

export interface CompanyAccount {
  code: string;
  name: string;
  type: AccountType;
  normalSide: 'DEBIT' | 'CREDIT';
  balanceType: 'ACTIVE' | 'PASSIVE';
  enabled: boolean;
  custom: boolean;
  subaccountCount: number;
  version: number;
}

/** Assets and expenses grow on the debit side; contra-assets, liabilities, equity and income on the credit side. */
export function normalSideOf(type: AccountType): 'DEBIT' | 'CREDIT' {
  return type === 'ASSET' || type === 'EXPENSE' ? 'DEBIT' : 'CREDIT';
}

export function toCompanyAccount(row: CompanyAccountRow): CompanyAccount {
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
    subaccountCount: row.subaccountCount,
    version: row.version,
  };
}

export function createChartOfAccountsService({ db }: { db: Sequelize }) {
  const scopeOf = (principal: Principal, legalEntityId: string): CompanyScope => ({ tenantId: principal.tenantId, legalEntityId });

  async function list(principal: Principal, legalEntityId: string, query: { q: string; type: AccountType | null; page: number; size: number }) {
    const { rows, total } = await withTenant(db, principal.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      return listCompanyAccounts(db, tx, scopeOf(principal, legalEntityId), {
        q: query.q,
        type: query.type,
        limit: query.size,
        offset: query.page * query.size,
      });
    });
    return { items: rows.map(toCompanyAccount), page: query.page, size: query.size, totalElements: total, totalPages: Math.ceil(total / query.size) };
  }

  async function get(principal: Principal, legalEntityId: string, code: string): Promise<CompanyAccount> {
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      const row = await findCompanyAccount(db, tx, scopeOf(principal, legalEntityId), code);
      if (!row) throw new AppError('not-found', `No account ${code} in this company's chart`);
      return toCompanyAccount(row);
    });
  }

  async function create(
    principal: Principal,
    legalEntityId: string,
    input: { code: string; name: string; type: AccountType; enabled: boolean },
    ctx: RequestContext,
  ): Promise<CompanyAccount> {
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireChangeableCompany(db, tx, principal, legalEntityId);
      const scope = scopeOf(principal, legalEntityId);
      if (!(await insertCustomAccount(db, tx, scope, input))) {
        throw new AppError('account-code-exists', `Account ${input.code} exists in the global or the company chart`, { code: input.code });
      }
      await recordCallerEvent(tx, principal, ctx, {
        action: 'accounting.account.created',
        subjectType: 'COMPANY_ACCOUNT',
        subjectId: legalEntityId,
        details: `account ${input.code}`,
      });
      return toCompanyAccount((await findCompanyAccount(db, tx, scope, input.code))!);
    });
  }

  async function configure(
    principal: Principal,
    legalEntityId: string,
    code: string,
    input: { name: string; enabled: boolean; expectedVersion: number },
    ctx: RequestContext,
  ): Promise<CompanyAccount> {
    return withTenant(db, principal.tenantId, async (tx) => {
      const scope = scopeOf(principal, legalEntityId);
      await requireChangeableCompany(db, tx, principal, legalEntityId, async () => {
        if (!(await findCompanyAccount(db, tx, scope, code))) throw new AppError('not-found', `No account ${code} in this company's chart`);
      });
      const version = await saveAccountConfiguration(db, tx, scope, { code, ...input });
      if (version === null) {
        throw new AppError('stale-version', `Account ${code} changed since version ${input.expectedVersion}; reload it and retry`);
      }
      await recordCallerEvent(tx, principal, ctx, {
        action: 'accounting.account.configured',
        subjectType: 'COMPANY_ACCOUNT',
        subjectId: legalEntityId,
        details: `account ${code}, version ${version}`,
      });
      return toCompanyAccount((await findCompanyAccount(db, tx, scope, code))!);
    });
  }

  return { list, get, create, configure };
}
