import { fn, col, literal, where as whereOf, Op, type WhereOptions } from 'sequelize';
import { CompanySubaccount } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';
import type { CompanyScope } from '../organisation/companies';

export interface SubaccountRow {
  id: string;
  code: string;
  name: string;
  parentCode: string;
  enabled: boolean;
  version: number;
}

export type ParentScope = CompanyScope & { parentCode: string };

const COLUMNS = ['id', 'code', 'name', 'parentCode', 'enabled', 'version'] as const;

function toRow(s: CompanySubaccount): SubaccountRow {
  return { id: s.id, code: s.code, name: s.name, parentCode: s.parentCode, enabled: s.enabled, version: Number(s.version) };
}

const inParent = (scope: ParentScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId, parentCode: scope.parentCode });

/** Case-insensitive literal containment (strpos, not LIKE: %, _ and \ are plain characters). */
const contains = (column: string, q: string) => whereOf(fn('strpos', fn('lower', col(column)), q.toLowerCase()), Op.gt, 0);

export async function listSubaccounts(
  tx: Db,
  scope: ParentScope,
  query: { q: string; limit: number; offset: number },
): Promise<{ rows: SubaccountRow[]; total: number }> {
  const filter: WhereOptions = query.q === '' ? inParent(scope) : { ...inParent(scope), [Op.or]: [contains('code', query.q), contains('name', query.q)] };
  const { rows, count } = await CompanySubaccount.findAndCountAll({
    attributes: [...COLUMNS],
    where: filter,
    // Byte order of codes, then id.
    order: [[literal('code COLLATE "C"'), 'ASC'], ['id', 'ASC']],
    limit: query.limit,
    offset: query.offset,
    transaction: transactionOf(tx),
  });
  return { rows: rows.map(toRow), total: count };
}

export async function findSubaccount(tx: Db, scope: ParentScope, id: string): Promise<SubaccountRow | null> {
  const row = await CompanySubaccount.findOne({ attributes: [...COLUMNS], where: { ...inParent(scope), id }, transaction: transactionOf(tx) });
  return row ? toRow(row) : null;
}

/** Null when the code is taken under this parent account (the insert then does nothing). */
export async function insertSubaccount(
  tx: Db,
  scope: ParentScope,
  subaccount: { id: string; code: string; name: string; enabled: boolean },
): Promise<SubaccountRow | null> {
  // Raw SQL: ON CONFLICT DO NOTHING lets one of concurrent creates win without aborting the others' transactions.
  const [row] = await selectRows<{ id: string; code: string; name: string; parent_code: string; enabled: boolean; version: string }>(
    tx,
    `INSERT INTO company_subaccounts (tenant_id, id, legal_entity_id, parent_code, code, name, enabled, version)
     VALUES (:tenantId, :id, :legalEntityId, :parentCode, :code, :name, :enabled, 1)
     ON CONFLICT DO NOTHING
     RETURNING id, code, name, parent_code, enabled, version`,
    { ...scope, ...subaccount },
  );
  return row ? { id: row.id, code: row.code, name: row.name, parentCode: row.parent_code, enabled: row.enabled, version: Number(row.version) } : null;
}

/** Null when the stored version is no longer `expectedVersion` (or the subaccount is not there). */
export async function saveSubaccountConfiguration(
  tx: Db,
  scope: ParentScope,
  change: { id: string; name: string; enabled: boolean; expectedVersion: number },
): Promise<SubaccountRow | null> {
  const [, rows] = await CompanySubaccount.update(
    { name: change.name, enabled: change.enabled, version: literal('version + 1') as unknown as string, updatedAt: new Date() },
    { where: { ...inParent(scope), id: change.id, version: String(change.expectedVersion) }, returning: true, transaction: transactionOf(tx) },
  );
  return rows[0] ? toRow(rows[0]) : null;
}
