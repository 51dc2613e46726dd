import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { findCompanyAccount } from '../../db/repositories/chart-of-accounts';
import {
  findSubaccount,
  insertSubaccount,
  listSubaccounts,
  saveSubaccountConfiguration,
  type ParentScope,
  type SubaccountRow,
} from '../../db/repositories/subaccounts';
import { AppError } from '../../core/problems';
import { recordCallerEvent } from './caller-audit';
import type { Principal, RequestContext } from '../context';
import { requireChangeableCompany, requireCompany } from './company-access';

export type CompanySubaccount = SubaccountRow;

export function createSubaccountService({ db }: { db: Sequelize }) {
  const scopeOf = (principal: Principal, legalEntityId: string, parentCode: string): ParentScope => ({
    tenantId: principal.tenantId,
    legalEntityId,
    parentCode,
  });

  /** The parent is any account of the company's chart, global or custom. */
  async function requireParent(tx: Tx, scope: ParentScope): Promise<void> {
    if (!(await findCompanyAccount(db, tx, scope, scope.parentCode))) {
      throw new AppError('not-found', `No account ${scope.parentCode} in this company's chart`);
    }
  }

  async function requireSubaccount(tx: Tx, scope: ParentScope, id: string): Promise<SubaccountRow> {
    const row = await findSubaccount(db, tx, scope, id);
    if (!row) throw new AppError('not-found', `No subaccount with this id under account ${scope.parentCode}`);
    return row;
  }

  async function list(principal: Principal, legalEntityId: string, parentCode: string, query: { q: string; page: number; size: number }) {
    const scope = scopeOf(principal, legalEntityId, parentCode);
    const { rows, total } = await withTenant(db, principal.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      await requireParent(tx, scope);
      return listSubaccounts(db, tx, scope, { q: query.q, limit: query.size, offset: query.page * query.size });
    });
    return { items: rows, page: query.page, size: query.size, totalElements: total, totalPages: Math.ceil(total / query.size) };
  }

  async function get(principal: Principal, legalEntityId: string, parentCode: string, id: string): Promise<CompanySubaccount> {
    const scope = scopeOf(principal, legalEntityId, parentCode);
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      await requireParent(tx, scope);
      return requireSubaccount(tx, scope, id);
    });
  }

  async function create(
    principal: Principal,
    legalEntityId: string,
    parentCode: string,
    input: { code: string; name: string; enabled: boolean },
    ctx: RequestContext,
  ): Promise<CompanySubaccount> {
    const scope = scopeOf(principal, legalEntityId, parentCode);
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireChangeableCompany(db, tx, principal, legalEntityId, () => requireParent(tx, scope));
      const row = await insertSubaccount(db, tx, scope, { id: randomUUID(), ...input });
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
    });
  }

  async function configure(
    principal: Principal,
    legalEntityId: string,
    parentCode: string,
    id: string,
    input: { name: string; enabled: boolean; expectedVersion: number },
    ctx: RequestContext,
  ): Promise<CompanySubaccount> {
    const scope = scopeOf(principal, legalEntityId, parentCode);
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireChangeableCompany(db, tx, principal, legalEntityId, async () => {
        await requireParent(tx, scope);
        await requireSubaccount(tx, scope, id);
      });
      const row = await saveSubaccountConfiguration(db, tx, scope, { id, ...input });
      if (!row) throw new AppError('stale-version', `The subaccount changed since version ${input.expectedVersion}; reload it and retry`);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'accounting.subaccount.configured',
        subjectType: 'COMPANY_SUBACCOUNT',
        subjectId: row.id,
        details: `account ${parentCode}, subaccount ${row.code}, version ${row.version}`,
      });
      return row;
    });
  }

  return { list, get, create, configure };
}
