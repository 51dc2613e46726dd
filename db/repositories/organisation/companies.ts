import { Transaction } from 'sequelize';
import { LegalEntity } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';

export interface CompanyScope {
  tenantId: string;
  legalEntityId: string;
}

export interface CompanyState {
  archived: boolean;
}

/**
 * The company (legal entity) or null when it is not visible in this tenant. With `forChange` the row is
 * held FOR SHARE until commit, so archiving waits for a running mutation and a mutation never commits
 * after the archive it did not see.
 */
export async function findCompany(tx: Db, scope: CompanyScope, options: { forChange?: boolean } = {}): Promise<CompanyState | null> {
  const company = await LegalEntity.findOne({
    attributes: ['archivedAt'],
    where: { tenantId: scope.tenantId, id: scope.legalEntityId },
    transaction: transactionOf(tx),
    lock: options.forChange ? Transaction.LOCK.SHARE : undefined,
  });
  return company ? { archived: company.archivedAt !== null } : null;
}

export interface WorkspaceCompany {
  id: string;
  name: string | null;
  taxId: string | null;
  onboardingComplete: boolean;
  slug: string;
}

/** The workspace's first company with the workspace slug. */
export async function firstCompanyOf(tx: Db, scope: { tenantId: string }): Promise<WorkspaceCompany | null> {
  // Raw SQL: a join of the company with its tenant's slug.
  const [row] = await selectRows<{ id: string; name: string | null; tax_id: string | null; onboarding_complete: boolean; slug: string }>(
    tx,
    `SELECT le.id, le.name, le.tax_id, le.onboarding_complete, t.slug
       FROM legal_entities le JOIN tenants t ON t.id = le.tenant_id
      WHERE le.tenant_id = :tenantId
      ORDER BY le.created_at, le.id LIMIT 1`,
    scope,
  );
  return row ? { id: row.id, name: row.name, taxId: row.tax_id, onboardingComplete: row.onboarding_complete, slug: row.slug } : null;
}
