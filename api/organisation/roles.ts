import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import { findRole, listRoles as listRoleRows, replaceRolePermissions, type RoleRow } from '../../db/repositories/organisation/roles';
import { AppError } from '../../core/shared/problems';
import { ROLE_CODES, type RoleCode } from '../../core/organisation/roles';
import type { OpenApiDocument, OperationIndex } from '../../contracts/operations';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../../services/audit/caller-events';

type RoleView = Schemas['RoleView'];
type Permission = Schemas['Permission'];

const NO_ROLE = 'No role with this id in your workspace';

/** Roles and permissions: the catalogue comes from the OpenAPI document. */
export function createRoles(deps: { db: Sequelize; doc: OpenApiDocument; index: OperationIndex }) {
  const { db } = deps;
  const defaults = deps.index.defaultPermissions();
  const known = new Set(defaults.keys());
  const defaultsOf = (code: RoleCode) => [...defaults].filter(([, roles]) => roles.includes(code)).map(([permission]) => permission).sort();

  /** The permission catalogue, computed once from the document: id = operation id. */
  const catalogue: Permission[] = deps.index.operations
    .filter((op) => op.permission)
    .map((op) => {
      const raw = deps.doc.paths[op.path]![op.method.toLowerCase()] as { summary?: string; tags?: string[] };
      const uses = deps.index.operations.filter((o) => o.permission === op.permission);
      return {
        id: op.permission!,
        name: raw.summary ?? op.permission!,
        group: raw.tags?.[0] ?? 'other',
        documented: true,
        defaultRoles: ROLE_CODES.filter((code) => op.defaultRoles.includes(code)),
        methods: [...new Set(uses.map((o) => o.method))],
        paths: [...new Set(uses.map((o) => o.path))],
      };
    })
    .filter((p, i, all) => all.findIndex((q) => q.id === p.id) === i)
    .sort((a, b) => a.group.localeCompare(b.group) || a.id.localeCompare(b.id));

  const viewOf = (row: RoleRow): RoleView => ({ ...row, permissions: [...row.permissions].sort() });

  async function listRoles(principal: Principal): Promise<RoleView[]> {
    const rows = await withTenant(db, principal.tenantId, (tx) => listRoleRows(tx, { tenantId: principal.tenantId }));
    return rows.map(viewOf);
  }

  async function getRole(principal: Principal, roleId: string): Promise<RoleView> {
    const row = await withTenant(db, principal.tenantId, (tx) => findRole(tx, { tenantId: principal.tenantId }, roleId));
    if (!row) throw new AppError('not-found', NO_ROLE);
    return viewOf(row);
  }

  async function replace(principal: Principal, roleId: string, lockVersion: number, ctx: RequestContext, permissionsFor: (role: RoleRow) => string[], reset: boolean) {
    const scope = { tenantId: principal.tenantId };
    return withTenant(db, scope.tenantId, async (tx) => {
      const role = await findRole(tx, scope, roleId, { lock: true });
      if (!role) throw new AppError('not-found', NO_ROLE);
      if (role.lockVersion !== lockVersion) throw new AppError('stale-version', 'The role changed since you read it; reload and retry');
      const permissions = [...new Set(permissionsFor(role))].sort();
      const isDefault = permissions.join(',') === defaultsOf(role.code).join(',');
      if (role.code === 'ADMIN' && !isDefault) throw new AppError('admin-role-fixed', 'ADMIN keeps every permission');
      if (!(await replaceRolePermissions(tx, scope, { roleId, lockVersion, permissions, isDefault }))) {
        throw new AppError('stale-version', 'The role changed since you read it; reload and retry');
      }
      const added = permissions.filter((p) => !role.permissions.includes(p));
      const removed = role.permissions.filter((p) => !permissions.includes(p));
      await recordCallerEvent(tx, principal, ctx, {
        action: reset ? 'roles.permissions.reset' : 'roles.permissions.updated',
        subjectType: 'ROLE',
        subjectId: roleId,
        details: [`${role.code}`, added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : ''].filter(Boolean).join('; '),
      });
      return viewOf((await findRole(tx, scope, roleId))!);
    });
  }

  function updateRolePermissions(principal: Principal, roleId: string, body: Schemas['PermissionsRequest'], ctx: RequestContext): Promise<RoleView> {
    const unknown = [...new Set(body.permissions.filter((p) => !known.has(p)))];
    if (unknown.length > 0) {
      throw new AppError('validation', `Unknown permission ids: ${unknown.slice(0, 10).join(', ')}`, {
        errors: unknown.slice(0, 10).map((p) => ({ path: '/body/permissions', message: `unknown permission ${p}` })),
      });
    }
    return replace(principal, roleId, body.lockVersion, ctx, () => body.permissions, false);
  }

  function resetRolePermissions(principal: Principal, roleId: string, body: Schemas['VersionRequest'], ctx: RequestContext): Promise<RoleView> {
    return replace(principal, roleId, body.lockVersion, ctx, (role) => defaultsOf(role.code), true);
  }

  return { listRoles, getRole, updateRolePermissions, resetRolePermissions, listPermissions: () => catalogue };
}
