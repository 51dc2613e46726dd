import { selectRows, type Db } from '../../connection';

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
 * Raw SQL: a security-definer function, because the tenant is not known to row-level security yet.
 */
export async function loadPrincipal(
  db: Db,
  claims: { tenantId: string; sessionId: string; membershipId: string },
  permission: string,
): Promise<PrincipalRow | null> {
  const [row] = await selectRows<{ membership_id: string; user_id: string; identity_id: string; slug: string; roles: string[]; permitted: boolean }>(
    db,
    'SELECT * FROM app_load_principal(:tenantId, :sessionId, :membershipId, :permission)',
    { ...claims, permission },
  );
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

/** The permissions a membership holds now, through all its roles. */
export async function permissionsOf(tx: Db, scope: { tenantId: string; membershipId: string }): Promise<string[]> {
  // Raw SQL: a join over two tables with DISTINCT.
  const rows = await selectRows<{ permission: string }>(
    tx,
    `SELECT DISTINCT rp.permission
       FROM membership_roles mr
       JOIN role_permissions rp ON rp.tenant_id = mr.tenant_id AND rp.role_id = mr.role_id
      WHERE mr.tenant_id = :tenantId AND mr.membership_id = :membershipId
      ORDER BY rp.permission`,
    scope,
  );
  return rows.map((r) => r.permission);
}

export interface ActiveMembership {
  tenant_id: string;
  slug: string;
  membership_id: string;
}

/** Every workspace in which the identity has an ACTIVE membership (security definer: spans tenants). */
export function activeMembershipsOf(db: Db, identityId: string): Promise<ActiveMembership[]> {
  return selectRows<ActiveMembership>(db, 'SELECT * FROM app_identity_memberships(:identityId)', { identityId });
}
