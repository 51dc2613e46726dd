import { execute, selectRows, type Db } from '../../connection';
import type { RoleCode } from '../../../core/organisation/roles';

// The workspace's roles and their permission sets. Raw SQL: each read aggregates the permissions; the
// replacement of a set is conditional on the role's lock version.

export interface RoleRow {
  id: string;
  code: RoleCode;
  name: string;
  defaultPermissions: boolean;
  lockVersion: number;
  permissions: string[];
}

type Scope = { tenantId: string };

const ROLE_SELECT = `
  SELECT r.id, r.code, r.name, r.default_permissions AS "defaultPermissions", r.lock_version AS "lockVersion",
         COALESCE((SELECT array_agg(rp.permission ORDER BY rp.permission) FROM role_permissions rp
                    WHERE rp.tenant_id = r.tenant_id AND rp.role_id = r.id), '{}') AS permissions
    FROM roles r`;

const ROLE_ORDER = `array_position(ARRAY['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER'], r.code)`;

export function listRoles(tx: Db, scope: Scope): Promise<RoleRow[]> {
  return selectRows<RoleRow>(tx, `${ROLE_SELECT} WHERE r.tenant_id = :tenantId ORDER BY ${ROLE_ORDER}`, scope);
}

export async function findRole(tx: Db, scope: Scope, roleId: string, options: { lock?: boolean } = {}): Promise<RoleRow | null> {
  const [row] = await selectRows<RoleRow>(tx, `${ROLE_SELECT} WHERE r.tenant_id = :tenantId AND r.id = :roleId ${options.lock ? 'FOR UPDATE OF r' : ''}`, {
    ...scope,
    roleId,
  });
  return row ?? null;
}

/** Replaces the role's permission set at `lockVersion`; false when the version is stale. */
export async function replaceRolePermissions(
  tx: Db,
  scope: Scope,
  input: { roleId: string; lockVersion: number; permissions: string[]; isDefault: boolean },
): Promise<boolean> {
  const bumped = await selectRows<{ id: string }>(
    tx,
    `UPDATE roles SET lock_version = lock_version + 1, default_permissions = :isDefault
      WHERE tenant_id = :tenantId AND id = :roleId AND lock_version = :lockVersion RETURNING id`,
    { ...scope, ...input },
  );
  if (bumped.length !== 1) return false;
  await execute(tx, `DELETE FROM role_permissions WHERE tenant_id = :tenantId AND role_id = :roleId`, { ...scope, roleId: input.roleId });
  if (input.permissions.length > 0) {
    await execute(
      tx,
      `INSERT INTO role_permissions (tenant_id, role_id, permission) SELECT :tenantId, :roleId, unnest(ARRAY[:permissions]::text[])`,
      { ...scope, roleId: input.roleId, permissions: input.permissions },
    );
  }
  return true;
}
