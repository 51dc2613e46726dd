import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { findCompany, type CompanyScope } from '../../db/repositories/organisation/companies';
import { AppError } from '../../core/problems';
import type { Principal } from '../http/context';

export type { CompanyScope };

export interface CompanyScopes {
  /** A read of one company: one tenant transaction, the company must exist in the caller's workspace. */
  read<T>(principal: Principal, legalEntityId: string, work: (tx: Tx, scope: CompanyScope) => Promise<T>): Promise<T>;
  /**
   * A change to one company: as `read`, and the company must not be archived. The company row is held
   * FOR SHARE until commit, so an archive waits for the change and no change commits after an archive.
   * `target` runs between the existence and the archive check, so an unknown target is 404 even in an
   * archived company.
   */
  change<T>(
    principal: Principal,
    legalEntityId: string,
    work: (tx: Tx, scope: CompanyScope) => Promise<T>,
    target?: (tx: Tx, scope: CompanyScope) => Promise<void>,
  ): Promise<T>;
}

const NO_COMPANY = 'No company with this id in your workspace';

/** The one preamble of every company operation: tenant transaction, company visible, not archived for changes. */
export function createCompanyScopes(db: Sequelize): CompanyScopes {
  return {
    read(principal, legalEntityId, work) {
      const scope = { tenantId: principal.tenantId, legalEntityId };
      return withTenant(db, scope.tenantId, async (tx) => {
        // A company of another tenant, or none at all, is 404: the caller learns nothing about it.
        if (!(await findCompany(tx, scope))) throw new AppError('not-found', NO_COMPANY);
        return work(tx, scope);
      });
    },
    change(principal, legalEntityId, work, target) {
      const scope = { tenantId: principal.tenantId, legalEntityId };
      return withTenant(db, scope.tenantId, async (tx) => {
        const company = await findCompany(tx, scope, { forChange: true });
        if (!company) throw new AppError('not-found', NO_COMPANY);
        if (target) await target(tx, scope);
        if (company.archived) throw new AppError('company-archived', 'The company is archived; its accounting records are read-only');
        return work(tx, scope);
      });
    },
  };
}
