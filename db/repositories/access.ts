import { QueryTypes, type Sequelize } from 'sequelize';

export interface PrincipalRow {
  membershipId: string;
  userId: string;
  identityId: string;
  slug: string;
  roles: string[];
  permitted: boolean;
}

/**
 * One statement per request (no transaction): the session is live, the membership ACTIVE, and whether the
 * membership's roles hold `permission` right now. Null when the session or membership no longer counts.
 */
export async function loadPrincipal(
  db: Sequelize,
  claims: { tenantId: string; sessionId: string; membershipId: string },
  permission: string,
): Promise<PrincipalRow | null> {
  const rows = await db.query<{ membership_id: string; user_id: string; identity_id: string; slug: string; roles: string[]; permitted: boolean }>(
    'SELECT * FROM app_load_principal(:tenantId, :sessionId, :membershipId, :permission)',
    { replacements: { ...claims, permission }, type: QueryTypes.SELECT },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    membershipId: row.membership_id,
    userId: row.user_id,
    identityId: row.identity_id,
    slug: row.slug,
    roles: row.roles,
    permitted: row.permitted,
  };
}
