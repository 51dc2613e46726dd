import type { Sequelize } from 'sequelize';
import { readInTenant, withTenant, type Statement, type Tx } from '../../db/connection';
import { companyOf, companyStatement, type CompanyScope } from '../../db/repositories/organisation/companies';
import { AppError } from '../../core/shared/problems';
import type { Principal } from '../http/context';

export type { CompanyScope };

/** Rows of each statement of a batch, in order. */
export type Opened = Record<string, unknown>[][];

/**
 * What a change acts on, found before the archive check (so an unknown target is 404 even in an archived
 * company): a function run in the transaction, or statements sent with the transaction's opening (no round
 * trip of their own) and `found`, which reads their rows and refuses what is not there.
 */
export type ChangeTarget = ((tx: Tx, scope: CompanyScope) => Promise<void>) | { statements: (scope: CompanyScope) => Statement[]; found: (opened: Opened) => void };

export interface CompanyScopes {
  /** A read of one company: one tenant transaction, the company must exist in the caller's workspace. */
  read<T>(principal: Principal, legalEntityId: string, work: (tx: Tx, scope: CompanyScope) => Promise<T>): Promise<T>;
  /**
   * A read of one company made of statements that do not depend on each other: the company check and the
   * statements go as one batch (one round trip, read-only transaction). Returns each statement's rows.
   */
  readBatch(principal: Principal, legalEntityId: string, statements: (scope: CompanyScope) => Statement[]): Promise<Record<string, unknown>[][]>;
  /**
   * A change to one company: as `read`, and the company must not be archived. The company row is held
   * FOR SHARE until commit, so an archive waits for the change and no change commits after an archive.
   * `target` is checked between the existence and the archive check, so an unknown target is 404 even in an
   * archived company; `work` gets the rows of its statements.
   */
  change<T>(principal: Principal, legalEntityId: string, work: (tx: Tx, scope: CompanyScope, opened: Opened) => Promise<T>, target?: ChangeTarget): Promise<T>;
}

const NO_COMPANY = 'No company with this id in your workspace';

/** The one preamble of every company operation: tenant transaction, company visible, not archived for changes. */
export function createCompanyScopes(db: Sequelize): CompanyScopes {
  return {
    read(principal, legalEntityId, work) {
      const scope = { tenantId: principal.tenantId, legalEntityId };
      // The company check travels with the transaction's opening: one round trip for both.
      return withTenant(
        db,
        scope.tenantId,
        async (tx, [found]) => {
          // A company of another tenant, or none at all, is 404: the caller learns nothing about it.
          if (!companyOf(found!)) throw new AppError('not-found', NO_COMPANY);
          return work(tx, scope);
        },
        [companyStatement(scope)],
      );
    },
    async readBatch(principal, legalEntityId, statements) {
      const scope = { tenantId: principal.tenantId, legalEntityId };
      const [found, ...rows] = await readInTenant(db, scope.tenantId, [companyStatement(scope), ...statements(scope)]);
      if (!companyOf(found!)) throw new AppError('not-found', NO_COMPANY);
      return rows;
    },
    change(principal, legalEntityId, work, target) {
      const scope = { tenantId: principal.tenantId, legalEntityId };
      const opening = typeof target === 'object' ? target.statements(scope) : [];
      return withTenant(db, scope.tenantId, async (tx, [found, ...opened]) => {
        const company = companyOf(found!);
        if (!company) throw new AppError('not-found', NO_COMPANY);
        if (typeof target === 'function') await target(tx, scope);
        else target?.found(opened);
        if (company.archived) throw new AppError('company-archived', 'The company is archived; its accounting records are read-only');
        return work(tx, scope, opened);
      }, [companyStatement(scope, { forChange: true }), ...opening]);
    },
  };
}
