// The roles every workspace is created with; which permissions each holds by default comes from the
// OpenAPI document's x-default-roles.

export const ROLE_CODES = ['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];

export const ROLE_NAMES: Record<RoleCode, string> = {
  ADMIN: 'Administrator',
  ACCOUNTANT: 'Accountant',
  MANAGER: 'Manager',
  EMPLOYEE: 'Employee',
  VIEWER: 'Viewer',
};

export function isRoleCode(value: string): value is RoleCode {
  return (ROLE_CODES as readonly string[]).includes(value);
}

/**
 * Whether someone with the roles `held`, and through them the permissions `permissions`, holds `role` as
 * far as giving it (assign, invite) or changing and removing its holders goes: they have the role; or
 * they are an ADMIN, who holds every permission and so counts as holding every role; or the role is not
 * ADMIN and every permission it has in the workspace now (`rolePermissions`) is theirs too. So nobody
 * gives a power they lack, nor acts on someone who can do what they cannot. An unknown role is not held.
 */
export function holdsRole(held: readonly string[], permissions: ReadonlySet<string>, role: RoleCode, rolePermissions: readonly string[] | undefined): boolean {
  if (held.includes('ADMIN') || held.includes(role)) return true;
  return role !== 'ADMIN' && rolePermissions !== undefined && rolePermissions.every((permission) => permissions.has(permission));
}
