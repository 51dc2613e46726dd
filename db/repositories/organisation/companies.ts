import { LegalEntity } from '../../models';
import { selectRows, transactionOf, type Db, type Statement } from '../../connection';

export interface CompanyScope {
  tenantId: string;
  legalEntityId: string;
}

export interface CompanyState {
  archived: boolean;
}

/**
 * Whether the company (legal entity) is visible in this tenant and archived, as a statement for a
 * transaction's opening batch (withTenant's `first`); `companyOf` reads its rows (null: not visible).
 * With `forChange` the row is held FOR SHARE until commit, so archiving waits for a running mutation and a
 * mutation never commits after the archive it did not see.
 */
export function companyStatement(scope: CompanyScope, options: { forChange?: boolean } = {}): Statement {
  return {
    sql: `SELECT archived_at IS NOT NULL AS archived FROM legal_entities WHERE tenant_id = :tenantId AND id = :legalEntityId${options.forChange ? ' FOR SHARE' : ''}`,
    replacements: { tenantId: scope.tenantId, legalEntityId: scope.legalEntityId },
  };
}

export function companyOf(rows: Record<string, unknown>[]): CompanyState | null {
  return rows[0] ? { archived: rows[0].archived === true } : null;
}

export interface WorkspaceCompany {
  id: string;
  name: string | null;
  taxId: string | null;
  onboardingComplete: boolean;
  slug: string;
  archived: boolean;
}

type FirstCompanyRow = { id: string; name: string | null; tax_id: string | null; onboarding_complete: boolean; slug: string; archived: boolean };

/** The workspace's first company with the workspace slug, as a statement (read it with workspaceCompanyOf). */
export function firstCompanyStatement(scope: { tenantId: string }): Statement {
  // Raw SQL: a join of the company with its tenant's slug.
  return {
    sql: `SELECT le.id, le.name, le.tax_id, le.onboarding_complete, t.slug, le.archived_at IS NOT NULL AS archived
            FROM legal_entities le JOIN tenants t ON t.id = le.tenant_id
           WHERE le.tenant_id = :tenantId
           ORDER BY le.created_at, le.id LIMIT 1`,
    replacements: { tenantId: scope.tenantId },
  };
}

export function workspaceCompanyOf(rows: Record<string, unknown>[]): WorkspaceCompany | null {
  const row = rows[0] as FirstCompanyRow | undefined;
  return row
    ? { id: row.id, name: row.name, taxId: row.tax_id, onboardingComplete: row.onboarding_complete, slug: row.slug, archived: row.archived }
    : null;
}

/** The workspace's first company with the workspace slug. */
export async function firstCompanyOf(tx: Db, scope: { tenantId: string }): Promise<WorkspaceCompany | null> {
  const { sql, replacements } = firstCompanyStatement(scope);
  return workspaceCompanyOf(await selectRows<FirstCompanyRow>(tx, sql, replacements));
}

/** Locks the company row for an exclusive change (waits for changes in flight, which hold it FOR SHARE). */
export async function lockCompany(tx: Db, scope: CompanyScope): Promise<void> {
  await selectRows(tx, `SELECT id FROM legal_entities WHERE tenant_id = :tenantId AND id = :legalEntityId FOR UPDATE`, { ...scope });
}

export async function completeOnboarding(tx: Db, scope: CompanyScope, input: { name: string; taxId: string }): Promise<void> {
  await LegalEntity.update(
    { name: input.name, taxId: input.taxId, onboardingComplete: true, updatedAt: new Date() },
    { where: { tenantId: scope.tenantId, id: scope.legalEntityId }, transaction: transactionOf(tx) },
  );
}

export async function archiveCompany(tx: Db, scope: CompanyScope): Promise<void> {
  await LegalEntity.update(
    { archivedAt: new Date(), updatedAt: new Date() },
    { where: { tenantId: scope.tenantId, id: scope.legalEntityId, archivedAt: null }, transaction: transactionOf(tx) },
  );
}
