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
 * Whether someone holding `held` may give `role` to another (assign or invite): an ADMIN holds every
 * permission, so it counts as holding every role; anyone else gives only roles it has.
 */
export function mayGrantRole(held: readonly string[], role: RoleCode): boolean {
  return held.includes('ADMIN') || held.includes(role);
}
