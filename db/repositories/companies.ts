import { QueryTypes, type Sequelize } from 'sequelize';
import type { Tx } from '../connection';

export interface CompanyState {
  archived: boolean;
}

/**
 * The caller's company (legal entity) or null when it is not visible in this tenant. With `forChange`
 * the row is held FOR SHARE until commit, so archiving waits for a running mutation and a mutation never
 * commits after the archive it did not see.
 */
export async function findCompany(
  db: Sequelize,
  tx: Tx,
  scope: { tenantId: string; legalEntityId: string },
  options: { forChange?: boolean } = {},
): Promise<CompanyState | null> {
  const rows = await db.query<{ archived: boolean }>(
    `SELECT archived_at IS NOT NULL AS archived FROM legal_entities
      WHERE tenant_id = :tenantId AND id = :legalEntityId ${options.forChange ? 'FOR SHARE' : ''}`,
    { replacements: { ...scope }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows[0] ?? null;
}
