import { AppError } from '../../core/problems';
import { mayGrantRole, type RoleCode } from '../../core/roles';
import type { Principal } from '../http/context';

/** "Nobody invites into, or assigns, a role they do not hold": 403 role-not-held naming the first such role. */
export function assertMayGrant(principal: Principal, roles: readonly RoleCode[]): void {
  const role = roles.find((r) => !mayGrantRole(principal.roles, r));
  if (role) throw new AppError('role-not-held', `You cannot give the role ${role}: you do not hold it yourself`, { role });
}
