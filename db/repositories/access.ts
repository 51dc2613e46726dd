import { QueryTypes, type Sequelize } from 'sequelize';
import { withTenant } from '../connection';

export interface PrincipalRow {
  membershipId: string;
  userId: string;
  identityId: string;
  slug: string;
  roles: string[];
  permitted: boolean;
}

/**
 * One query per request: the session is live, the membership ACTIVE, and whether the membership's roles
 * hold `permission` right now. Null when the session or membership no longer counts.
 */
export async function loadPrincipal(
  db: Sequelize,
  claims: { tenantId: string; sessionId: string; membershipId: string },
  permission: string,
): Promise<PrincipalRow | null> {
  const rows = await withTenant(db, claims.tenantId, (tx) =>
    db.query<{ membership_id: string; user_id: string; identity_id: string; slug: string; roles: string[]; permitted: boolean }>(
      `SELECT m.id AS membership_id, m.user_id, u.identity_id, t.slug,
              COALESCE(array_agg(DISTINCT r.code ORDER BY r.code) FILTER (WHERE r.code IS NOT NULL), '{}') AS roles,
              COALESCE(bool_or(rp.permission IS NOT NULL), false) AS permitted
         FROM sessions s
         JOIN memberships m ON m.tenant_id = s.tenant_id AND m.id = s.membership_id
         JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
         JOIN tenants t ON t.id = s.tenant_id
         LEFT JOIN membership_roles mr ON mr.tenant_id = m.tenant_id AND mr.membership_id = m.id
         LEFT JOIN roles r ON r.tenant_id = mr.tenant_id AND r.id = mr.role_id
         LEFT JOIN role_permissions rp ON rp.tenant_id = r.tenant_id AND rp.role_id = r.id AND rp.permission = :permission
        WHERE s.tenant_id = :tenantId AND s.id = :sessionId AND s.membership_id = :membershipId
          AND s.revoked_at IS NULL AND s.expires_at > now()
          AND m.status = 'ACTIVE' AND m.ended_at IS NULL
        GROUP BY m.id, m.user_id, u.identity_id, t.slug`,
      { replacements: { ...claims, permission }, type: QueryTypes.SELECT, transaction: tx },
    ),
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
