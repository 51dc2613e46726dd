import { QueryTypes, type Sequelize } from 'sequelize';
import type { Tx } from '../connection';
import type { CompanyScope } from './chart-of-accounts';

export interface SubaccountRow {
  id: string;
  code: string;
  name: string;
  parentCode: string;
  enabled: boolean;
  version: number;
}

interface RawSubaccount {
  id: string;
  code: string;
  name: string;
  parent_code: string;
  enabled: boolean;
  version: string;
}

const COLUMNS = 'id, code, name, parent_code, enabled, version';
const IN_PARENT = 'tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND parent_code = :parentCode';

function toRow(r: RawSubaccount): SubaccountRow {
  return { id: r.id, code: r.code, name: r.name, parentCode: r.parent_code, enabled: r.enabled, version: Number(r.version) };
}

export type ParentScope = CompanyScope & { parentCode: string };

export async function listSubaccounts(
  db: Sequelize,
  tx: Tx,
  scope: ParentScope,
  query: { q: string; limit: number; offset: number },
): Promise<{ rows: SubaccountRow[]; total: number }> {
  const replacements = { ...scope, ...query };
  // Literal search (strpos, so %, _ and \\ are plain characters); byte order of codes, then id.
  const filter = `${IN_PARENT} AND (:q = '' OR strpos(lower(code), lower(:q)) > 0 OR strpos(lower(name), lower(:q)) > 0)`;
  const rows = await db.query<RawSubaccount>(
    `SELECT ${COLUMNS} FROM company_subaccounts WHERE ${filter}
      ORDER BY code COLLATE "C", id LIMIT :limit OFFSET :offset`,
    { replacements, type: QueryTypes.SELECT, transaction: tx },
  );
  const [{ total }] = await db.query<{ total: string }>(`SELECT count(*) AS total FROM company_subaccounts WHERE ${filter}`, {
    replacements,
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return { rows: rows.map(toRow), total: Number(total) };
}

export async function findSubaccount(db: Sequelize, tx: Tx, scope: ParentScope, id: string): Promise<SubaccountRow | null> {
  const rows = await db.query<RawSubaccount>(`SELECT ${COLUMNS} FROM company_subaccounts WHERE ${IN_PARENT} AND id = :id`, {
    replacements: { ...scope, id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows[0] ? toRow(rows[0]) : null;
}

/** Null when the code is taken under this parent account (the insert then does nothing). */
export async function insertSubaccount(
  db: Sequelize,
  tx: Tx,
  scope: ParentScope,
  subaccount: { id: string; code: string; name: string; enabled: boolean },
): Promise<SubaccountRow | null> {
  const rows = await db.query<RawSubaccount>(
    `INSERT INTO company_subaccounts (tenant_id, id, legal_entity_id, parent_code, code, name, enabled, version)
     VALUES (:tenantId, :id, :legalEntityId, :parentCode, :code, :name, :enabled, 1)
     ON CONFLICT DO NOTHING
     RETURNING ${COLUMNS}`,
    { replacements: { ...scope, ...subaccount }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/** Null when the stored version is no longer `expectedVersion` (or the subaccount is not there). */
export async function saveSubaccountConfiguration(
  db: Sequelize,
  tx: Tx,
  scope: ParentScope,
  change: { id: string; name: string; enabled: boolean; expectedVersion: number },
): Promise<SubaccountRow | null> {
  const rows = await db.query<RawSubaccount>(
    `UPDATE company_subaccounts SET name = :name, enabled = :enabled, version = version + 1, updated_at = now()
      WHERE ${IN_PARENT} AND id = :id AND version = :expectedVersion
     RETURNING ${COLUMNS}`,
    { replacements: { ...scope, ...change }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows[0] ? toRow(rows[0]) : null;
}
