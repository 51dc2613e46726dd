import type { Db } from '../../db/connection';
import { listRoles } from '../../db/repositories/organisation/roles';
import { AppError } from '../../core/shared/problems';
import { holdsRole, type RoleCode } from '../../core/organisation/roles';
import type { Principal } from '../http/context';

/** The caller's standing towards roles, from the workspace's permission sets as they are now. */
export interface Grants {
  /** "Nobody invites into, or assigns, a role they do not hold": 403 role-not-held naming the first such role. */
  assertMayGrant(roles: readonly RoleCode[]): void;
  /**
   * "Nobody changes or removes someone holding a role they do not hold" (a member, or a pending invitation
   * into the roles `held`): the same rule, so 403 role-not-held naming the first such role.
   */
  assertMayManage(held: readonly RoleCode[], what: 'member' | 'invitation'): void;
}

/** Reads the workspace's roles in `tx` (not needed for an ADMIN, who holds every role). */
export async function grantsOf(tx: Db, principal: Principal): Promise<Grants> {
  const permissionsOf = new Map<string, readonly string[]>();
  if (!principal.roles.includes('ADMIN')) {
    for (const role of await listRoles(tx, { tenantId: principal.tenantId })) permissionsOf.set(role.code, role.permissions);
  }
  const mine = new Set(principal.roles.flatMap((role) => permissionsOf.get(role) ?? []));
  const firstNotHeld = (roles: readonly RoleCode[]) => roles.find((role) => !holdsRole(principal.roles, mine, role, permissionsOf.get(role)));
  return {
    assertMayGrant(roles) {
      const role = firstNotHeld(roles);
      if (role) throw new AppError('role-not-held', `You cannot give the role ${role}: you do not hold it yourself`, { role });
    },
    assertMayManage(held, what) {
      const role = firstNotHeld(held);
      if (!role) return;
      const detail =
        what === 'member'
          ? `You cannot change or remove a member who holds the role ${role}: you do not hold it yourself`
          : `You cannot revoke or replace an invitation into the role ${role}: you do not hold it yourself`;
      throw new AppError('role-not-held', detail, { role });
    },
  };
}
