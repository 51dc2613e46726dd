import { selectRows, type Db, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';

// Operations: listBankStatementProfiles, createBankStatementProfile, updateBankStatementProfile,
// deleteBankStatementProfile, and importBankStatement (the profile a CSV or XLSX file is read with). The profile is
// stored as the JSON the API checked (adapters/bank-statements reads it); this layer does not look inside.

type ColumnProfile = Record<string, unknown>;

export interface ProfileRow {
  id: string;
  name: string;
  profile: ColumnProfile;
  version: number;
}

interface RawProfile {
  id: string;
  name: string;
  profile: ColumnProfile;
  version: string;
}

const COLUMNS = 'id, name, profile, version';
const profileOf = (r: RawProfile): ProfileRow => ({ id: r.id, name: r.name, profile: r.profile, version: Number(r.version) });
const inCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

export async function listProfiles(tx: Db, scope: CompanyScope, page: { limit: number; offset: number }): Promise<{ rows: ProfileRow[]; total: number }> {
  const where = 'tenant_id = :tenantId AND legal_entity_id = :legalEntityId';
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM bank_statement_profiles WHERE ${where}`, inCompany(scope));
  const rows = await selectRows<RawProfile>(tx, `SELECT ${COLUMNS} FROM bank_statement_profiles WHERE ${where} ORDER BY name, id LIMIT :limit OFFSET :offset`, {
    ...inCompany(scope),
    ...page,
  });
  return { rows: rows.map(profileOf), total: Number(counted!.total) };
}

export async function findProfile(tx: Db, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<ProfileRow | null> {
  const [row] = await selectRows<RawProfile>(
    tx,
    `SELECT ${COLUMNS} FROM bank_statement_profiles WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id${options.lock ? ' FOR UPDATE' : ''}`,
    { ...inCompany(scope), id },
  );
  return row ? profileOf(row) : null;
}

export async function insertProfile(tx: Tx, scope: CompanyScope, row: { id: string; name: string; profile: ColumnProfile }): Promise<ProfileRow> {
  const [inserted] = await selectRows<RawProfile>(
    tx,
    `INSERT INTO bank_statement_profiles (tenant_id, id, legal_entity_id, name, profile, version)
     VALUES (:tenantId, :id, :legalEntityId, :name, CAST(:profile AS jsonb), 1) RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id: row.id, name: row.name, profile: JSON.stringify(row.profile) },
  );
  return profileOf(inserted!);
}

/** Replaces the profile at `expectedVersion`; null when the version is not the stored one. */
export async function replaceProfile(tx: Tx, scope: CompanyScope, row: { id: string; name: string; profile: ColumnProfile; expectedVersion: number }): Promise<ProfileRow | null> {
  const [updated] = await selectRows<RawProfile>(
    tx,
    `UPDATE bank_statement_profiles SET name = :name, profile = CAST(:profile AS jsonb), version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND version = :expectedVersion RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id: row.id, name: row.name, profile: JSON.stringify(row.profile), expectedVersion: row.expectedVersion },
  );
  return updated ? profileOf(updated) : null;
}

export async function deleteProfile(tx: Tx, scope: CompanyScope, id: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(tx, 'DELETE FROM bank_statement_profiles WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id RETURNING id', {
    ...inCompany(scope),
    id,
  });
  return rows.length === 1;
}
