import { execute, selectRows, type Db } from '../../connection';
import type { RoleCode } from '../../../core/organisation/roles';

// The workspace's members (a membership with its user, identity email and roles). Raw SQL: each read
// joins four tables and aggregates the roles; each write is conditional on the lock version.

export interface MemberRow {
  id: string;
  userId: string;
  email: string;
  contactEmail: string | null;
  displayName: string;
  status: 'ACTIVE' | 'SUSPENDED';
  roles: RoleCode[];
  lastLogin: Date | null;
  lockVersion: number;
}

type Scope = { tenantId: string };

const MEMBER_COLUMNS = `
  m.id, m.user_id AS "userId", i.email, u.contact_email AS "contactEmail", u.display_name AS "displayName",
  m.status, u.last_login_at AS "lastLogin", m.lock_version AS "lockVersion",
  COALESCE((SELECT array_agg(r.code ORDER BY r.code) FROM membership_roles mr JOIN roles r ON r.tenant_id = mr.tenant_id AND r.id = mr.role_id
             WHERE mr.tenant_id = m.tenant_id AND mr.membership_id = m.id), '{}') AS roles`;
const MEMBER_FROM = `
  FROM memberships m
  JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
  JOIN identities i ON i.id = u.identity_id`;

export interface MemberFilter {
  q: string;
  status?: 'ACTIVE' | 'SUSPENDED';
  role?: RoleCode;
  page: number;
  size: number;
}

/** Current members matching the filter, by display name then email, with the total count. */
export async function listMembers(tx: Db, scope: Scope, filter: MemberFilter): Promise<{ items: MemberRow[]; total: number }> {
  const where = `
    WHERE m.tenant_id = :tenantId AND m.ended_at IS NULL
      AND (:q = '' OR strpos(lower(i.email), lower(:q)) > 0 OR strpos(lower(u.display_name), lower(:q)) > 0)
      AND (CAST(:status AS text) IS NULL OR m.status = :status)
      AND (CAST(:role AS text) IS NULL OR EXISTS (SELECT 1 FROM membership_roles mr JOIN roles r ON r.tenant_id = mr.tenant_id AND r.id = mr.role_id
                                                   WHERE mr.tenant_id = m.tenant_id AND mr.membership_id = m.id AND r.code = :role))`;
  const replacements = { ...scope, q: filter.q, status: filter.status ?? null, role: filter.role ?? null };
  const [items, [count]] = [
    await selectRows<MemberRow>(
      tx,
      `SELECT ${MEMBER_COLUMNS} ${MEMBER_FROM} ${where}
        ORDER BY lower(u.display_name), i.email, m.id LIMIT :size OFFSET :offset`,
      { ...replacements, size: filter.size, offset: filter.page * filter.size },
    ),
    await selectRows<{ n: string }>(tx, `SELECT count(*) AS n ${MEMBER_FROM} ${where}`, replacements),
  ];
  return { items, total: Number(count?.n ?? 0) };
}

/** One current member, or null (another workspace's id, an ended membership). */
export async function findMember(tx: Db, scope: Scope, membershipId: string, options: { lock?: boolean } = {}): Promise<MemberRow | null> {
  const [row] = await selectRows<MemberRow>(
    tx,
    `SELECT ${MEMBER_COLUMNS} ${MEMBER_FROM}
      WHERE m.tenant_id = :tenantId AND m.id = :membershipId AND m.ended_at IS NULL
      ${options.lock ? 'FOR UPDATE OF m' : ''}`,
    { ...scope, membershipId },
  );
  return row ?? null;
}

/**
 * Serialises changes to the workspace's set of administrators, then counts the ACTIVE ADMINs other than
 * `membershipId`: two admins demoting each other at once cannot leave the workspace without one.
 */
export async function otherActiveAdmins(tx: Db, scope: Scope, membershipId: string): Promise<number> {
  await selectRows(tx, `SELECT pg_advisory_xact_lock(hashtextextended(:tenantId, 7411))`, scope);
  const [row] = await selectRows<{ n: number }>(
    tx,
    `SELECT count(*)::int AS n FROM memberships m
       JOIN membership_roles mr ON mr.tenant_id = m.tenant_id AND mr.membership_id = m.id
       JOIN roles r ON r.tenant_id = mr.tenant_id AND r.id = mr.role_id AND r.code = 'ADMIN'
      WHERE m.tenant_id = :tenantId AND m.id <> :membershipId AND m.status = 'ACTIVE' AND m.ended_at IS NULL`,
    { ...scope, membershipId },
  );
  return row?.n ?? 0;
}

/** Applies a change at `lockVersion`; false when the version is stale. */
export async function updateMember(
  tx: Db,
  scope: Scope,
  input: { membershipId: string; lockVersion: number; displayName: string; contactEmail: string | null; status: 'ACTIVE' | 'SUSPENDED'; role: RoleCode },
): Promise<boolean> {
  const [bumped] = await selectRows<{ user_id: string }>(
    tx,
    `UPDATE memberships SET status = :status, lock_version = lock_version + 1
      WHERE tenant_id = :tenantId AND id = :membershipId AND lock_version = :lockVersion AND ended_at IS NULL
      RETURNING user_id`,
    { ...scope, ...input },
  );
  if (!bumped) return false;
  await execute(tx, `UPDATE users SET display_name = :displayName, contact_email = :contactEmail WHERE tenant_id = :tenantId AND id = :userId`, {
    ...scope,
    userId: bumped.user_id,
    displayName: input.displayName,
    contactEmail: input.contactEmail,
  });
  await execute(tx, `DELETE FROM membership_roles WHERE tenant_id = :tenantId AND membership_id = :membershipId`, { ...scope, membershipId: input.membershipId });
  await execute(
    tx,
    `INSERT INTO membership_roles (tenant_id, membership_id, role_id) SELECT :tenantId, :membershipId, id FROM roles WHERE tenant_id = :tenantId AND code = :role`,
    { ...scope, membershipId: input.membershipId, role: input.role },
  );
  return true;
}

/** Ends the membership at `lockVersion`; false when the version is stale. */
export async function endMembership(tx: Db, scope: Scope, input: { membershipId: string; lockVersion: number }): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `UPDATE memberships SET ended_at = now(), lock_version = lock_version + 1
      WHERE tenant_id = :tenantId AND id = :membershipId AND lock_version = :lockVersion AND ended_at IS NULL RETURNING id`,
    { ...scope, ...input },
  );
  return rows.length === 1;
}

/** Ends every live session of one membership (suspension, removal); returns how many ended. */
export async function revokeMembershipSessions(tx: Db, scope: Scope, input: { membershipId: string; reason: string }): Promise<number> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `UPDATE sessions SET revoked_at = now(), revoked_reason = :reason
      WHERE tenant_id = :tenantId AND membership_id = :membershipId AND revoked_at IS NULL RETURNING id`,
    { ...scope, ...input },
  );
  return rows.length;
}

/** The member's last sign-in (login and every refresh keep it current). */
export async function recordLastLogin(tx: Db, scope: Scope, identityId: string): Promise<void> {
  await execute(tx, `UPDATE users SET last_login_at = now() WHERE tenant_id = :tenantId AND identity_id = :identityId`, { ...scope, identityId });
}
