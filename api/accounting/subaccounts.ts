import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import { detailAccountsOf, findCompanyAccount } from '../../db/repositories/accounting/chart-of-accounts';
import {
  findSubaccount,
  insertSubaccount,
  listSubaccounts,
  saveSubaccountConfiguration,
  type ParentScope,
  type SubaccountRow,
} from '../../db/repositories/accounting/subaccounts';
import { AppError } from '../../core/shared/problems';
import type { Schemas } from '../http/operation-handler';
import type { Principal, RequestContext } from '../http/context';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import { pageOf, type PageQuery } from '../http/pages';

type CompanySubaccount = Schemas['CompanySubaccount'];

const underParent = (scope: CompanyScope, parentCode: string): ParentScope => ({ ...scope, parentCode });

/** The parent is any account of the company's chart, global or custom. */
async function requireParent(tx: Tx, scope: ParentScope): Promise<void> {
  if (!(await findCompanyAccount(tx, scope, scope.parentCode))) {
    throw new AppError('not-found', `No account ${scope.parentCode} in this company's chart`);
  }
}

async function requireSubaccount(tx: Tx, scope: ParentScope, id: string): Promise<SubaccountRow> {
  const row = await findSubaccount(tx, scope, id);
  if (!row) throw new AppError('not-found', `No subaccount with this id under account ${scope.parentCode}`);
  return row;
}

/** Subaccounts under an account of a company's chart. */
export function createSubaccounts(companies: CompanyScopes) {
  async function listCompanySubaccounts(
    principal: Principal,
    legalEntityId: string,
    parentCode: string,
    query: PageQuery & { q: string },
  ): Promise<Schemas['CompanySubaccountPage']> {
    const { rows, total } = await companies.read(principal, legalEntityId, async (tx, company) => {
      const scope = underParent(company, parentCode);
      await requireParent(tx, scope);
      return listSubaccounts(tx, scope, { q: query.q, limit: query.size, offset: query.page * query.size });
    });
    return pageOf(rows, query, total);
  }

  async function getCompanySubaccount(principal: Principal, legalEntityId: string, parentCode: string, id: string): Promise<CompanySubaccount> {
    return companies.read(principal, legalEntityId, async (tx, company) => {
      const scope = underParent(company, parentCode);
      await requireParent(tx, scope);
      return requireSubaccount(tx, scope, id);
    });
  }

  async function createCompanySubaccount(
    principal: Principal,
    legalEntityId: string,
    parentCode: string,
    input: Schemas['SubaccountCreate'],
    ctx: RequestContext,
  ): Promise<CompanySubaccount> {
    return companies.change(
      principal,
      legalEntityId,
      async (tx, company) => {
        const parent = await findCompanyAccount(tx, company, parentCode);
        if (parent?.header) {
          const details = await detailAccountsOf(tx, parentCode);
          throw new AppError('header-account', `Account ${parentCode} is a header account: subaccounts go under its detail accounts (${details.join(', ')})`, {
            errors: [{ path: '/path/code', message: `is a header account; use one of ${details.join(', ')}` }],
          });
        }
        const row = await insertSubaccount(tx, underParent(company, parentCode), { id: randomUUID(), ...input });
        if (!row) {
          throw new AppError('subaccount-code-exists', `Subaccount ${input.code} exists under account ${parentCode}`, { code: input.code });
        }
        await recordCallerEvent(tx, principal, ctx, {
          action: 'accounting.subaccount.created',
          subjectType: 'COMPANY_SUBACCOUNT',
          subjectId: row.id,
          details: `account ${parentCode}, subaccount ${row.code}`,
        });
        return row;
      },
      (tx, company) => requireParent(tx, underParent(company, parentCode)),
    );
  }

  async function configureCompanySubaccount(
    principal: Principal,
    legalEntityId: string,
    parentCode: string,
    id: string,
    input: Schemas['SubaccountConfigure'],
    ctx: RequestContext,
  ): Promise<CompanySubaccount> {
    return companies.change(
      principal,
      legalEntityId,
      async (tx, company) => {
        const row = await saveSubaccountConfiguration(tx, underParent(company, parentCode), { id, ...input });
        if (!row) throw new AppError('stale-version', `The subaccount changed since version ${input.expectedVersion}; reload it and retry`);
        await recordCallerEvent(tx, principal, ctx, {
          action: 'accounting.subaccount.configured',
          subjectType: 'COMPANY_SUBACCOUNT',
          subjectId: row.id,
          details: `account ${parentCode}, subaccount ${row.code}, version ${row.version}`,
        });
        return row;
      },
      async (tx, company) => {
        const scope = underParent(company, parentCode);
        await requireParent(tx, scope);
        await requireSubaccount(tx, scope, id);
      },
    );
  }

  return { listCompanySubaccounts, getCompanySubaccount, createCompanySubaccount, configureCompanySubaccount };
}
