import { QueryTypes } from 'sequelize';
import { createOperationIndex, loadOpenApiDocument } from '../../../contracts/operations';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { syncRolePermissions } from '../../../db/setup';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

interface RoleView {
  id: string;
  code: string;
  defaultPermissions: boolean;
  lockVersion: number;
  permissions: string[];
}
const roles = async (who: Registered): Promise<RoleView[]> => (await api(stack).get('/api/v1/roles').set(...bearer(who.accessToken)).expect(200)).body;
const roleOf = async (who: Registered, code: string) => (await roles(who)).find((r) => r.code === code)!;
const putPermissions = (who: Registered, roleId: string, body: Record<string, unknown>) =>
  api(stack).put(`/api/v1/roles/${roleId}/permissions`).set(...bearer(who.accessToken)).send(body);

describe('listRoles, getRole: GET /api/v1/roles, GET /api/v1/roles/{roleId}', () => {
  test('five roles, seeded from the document\'s x-default-roles, in order of rank', async () => {
    const admin = await registerWorkspace(stack);
    const list = await roles(admin);
    expect(list.map((r) => r.code)).toEqual(['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER']);
    for (const r of list) expect(r).toMatchObject({ defaultPermissions: true, lockVersion: 0 });
    const viewer = list.find((r) => r.code === 'VIEWER')!;
    expect(viewer.permissions).toContain('listCompanyAccounts');
    expect(viewer.permissions).not.toContain('saveCompanyAccountingSettings');
    expect(viewer.permissions).toEqual([...viewer.permissions].sort());
    const admins = list.find((r) => r.code === 'ADMIN')!;
    expect(admins.permissions).toEqual(expect.arrayContaining(['updateRolePermissions', 'closePeriod', 'listUsers']));
    expect((await api(stack).get(`/api/v1/roles/${viewer.id}`).set(...bearer(admin.accessToken)).expect(200)).body).toEqual(viewer);
  });

  test('another workspace\'s role is 404 to read and to change', async () => {
    const [a, b] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
    const theirs = await roleOf(b, 'VIEWER');
    await api(stack).get(`/api/v1/roles/${theirs.id}`).set(...bearer(a.accessToken)).expect(404);
    await putPermissions(a, theirs.id, { lockVersion: 0, permissions: [] }).expect(404);
    await api(stack).post(`/api/v1/roles/${theirs.id}/permissions/reset`).set(...bearer(a.accessToken)).send({ lockVersion: 0 }).expect(404);
    expect(await roleOf(b, 'VIEWER')).toEqual(theirs);
  });
});

describe('updateRolePermissions and resetRolePermissions', () => {
  test('"take effect on the very next request of every member holding that role", both ways; reset restores the defaults', async () => {
    const admin = await registerWorkspace(stack);
    const viewer = await addMember(stack, admin.me.tenantId, ['VIEWER']);
    const settings = `/api/v1/accounting-settings/${admin.me.company.id}`;
    const save = () =>
      api(stack).put(settings).set(...bearer(viewer.accessToken))
        .send({ depreciationMethod: 'STRAIGHT_LINE', inventoryValuationMethod: 'FIFO', taxRegime: 'GENERAL', vatRate: 12, expectedVersion: 0 });
    await save().expect(403);
    const before = await roleOf(admin, 'VIEWER');
    const granted = await putPermissions(admin, before.id, {
      lockVersion: 0,
      permissions: [...before.permissions.filter((p) => p !== 'listCompanyAccounts'), 'saveCompanyAccountingSettings'],
    }).expect(200);
    expect(granted.body).toMatchObject({ defaultPermissions: false, lockVersion: 1 });
    await save().expect(200);
    await api(stack).get(`${settings}/accounts`).set(...bearer(viewer.accessToken)).expect(403);

    const reset = await api(stack).post(`/api/v1/roles/${before.id}/permissions/reset`).set(...bearer(admin.accessToken)).send({ lockVersion: 1 }).expect(200);
    expect(reset.body).toEqual({ ...before, lockVersion: 2 });
    await api(stack).get(`${settings}/accounts`).set(...bearer(viewer.accessToken)).expect(200);
    const events = await stack.admin.query<{ action: string; details: string }>(
      `SELECT action, details FROM audit_events WHERE tenant_id = :t AND subject_id = :id ORDER BY occurred_at, id`,
      { replacements: { t: admin.me.tenantId, id: before.id }, type: QueryTypes.SELECT },
    );
    expect(events).toEqual([
      { action: 'roles.permissions.updated', details: 'VIEWER; added saveCompanyAccountingSettings; removed listCompanyAccounts' },
      { action: 'roles.permissions.reset', details: 'VIEWER; added listCompanyAccounts; removed saveCompanyAccountingSettings' },
    ]);
  });

  test('unknown permission ids are 400, a stale lockVersion 409, the ADMIN role cannot lose a permission (409); nothing changes', async () => {
    const admin = await registerWorkspace(stack);
    const viewer = await roleOf(admin, 'VIEWER');
    const unknown = await putPermissions(admin, viewer.id, { lockVersion: 0, permissions: ['listCompanyAccounts', 'launchRockets'] }).expect(400);
    expect(unknown.body.type).toBe('/problems/validation');
    expect(unknown.body.detail).toContain('launchRockets');
    expect((await putPermissions(admin, viewer.id, { lockVersion: 7, permissions: [] }).expect(409)).body.type).toBe('/problems/stale-version');
    const adminRole = await roleOf(admin, 'ADMIN');
    const fixed = await putPermissions(admin, adminRole.id, { lockVersion: 0, permissions: adminRole.permissions.slice(1) }).expect(409);
    expect(fixed.body.type).toBe('/problems/admin-role-fixed');
    expect(await roles(admin)).toEqual(expect.arrayContaining([viewer, adminRole]));
  });
});

describe('role permissions follow the document as it grows (database setup)', () => {
  test('a workspace from before an operation existed gains its default permission; a retired one is withdrawn; edited roles keep their sets; ADMIN holds everything', async () => {
    const admin = await registerWorkspace(stack);
    const t = admin.me.tenantId;
    await stack.admin.query(
      `DELETE FROM role_permissions rp USING roles r WHERE r.tenant_id = rp.tenant_id AND r.id = rp.role_id AND rp.tenant_id = :t AND rp.permission = 'listUsers';
       INSERT INTO role_permissions (tenant_id, role_id, permission) SELECT tenant_id, id, 'retiredOperation' FROM roles WHERE tenant_id = :t AND code IN ('ADMIN', 'EMPLOYEE');
       DELETE FROM role_permissions rp USING roles r WHERE r.tenant_id = rp.tenant_id AND r.id = rp.role_id AND rp.tenant_id = :t AND r.code = 'VIEWER' AND rp.permission = 'listCompanyAccounts';
       UPDATE roles SET default_permissions = false WHERE tenant_id = :t AND code = 'VIEWER'`,
      { replacements: { t } },
    );
    // listUsers back to ADMIN and MANAGER, retiredOperation withdrawn from ADMIN and EMPLOYEE.
    expect(await syncRolePermissions(stack.owner, t)).toBe(4);
    const after = await roles(admin);
    const codes = (code: string) => after.find((r) => r.code === code)!.permissions;
    expect(codes('ADMIN')).toContain('listUsers');
    expect(codes('MANAGER')).toContain('listUsers');
    expect(codes('ADMIN')).not.toContain('retiredOperation');
    expect(codes('EMPLOYEE')).not.toContain('retiredOperation');
    expect(codes('VIEWER')).not.toContain('listCompanyAccounts');
    expect(codes('ADMIN')).toEqual([...new Set(createOperationIndex(loadOpenApiDocument()).defaultPermissions().keys())].sort());
    await api(stack).get('/api/v1/users').set(...bearer(admin.accessToken)).expect(200);
  });

  test('the application role cannot run it', async () => {
    await expect(stack.db.query(`SELECT app_sync_role_permissions('{}'::jsonb, NULL)`)).rejects.toThrow(/permission denied/);
  });
});

describe('listPermissions: GET /api/v1/permissions', () => {
  test('generated from the document: one per x-permission, with its group, default roles, methods and paths', async () => {
    const admin = await registerWorkspace(stack);
    const res = await api(stack).get('/api/v1/permissions').set(...bearer(admin.accessToken)).expect(200);
    const index = createOperationIndex(loadOpenApiDocument());
    const expected = [...new Set(index.operations.filter((op) => op.permission).map((op) => op.permission))].sort();
    expect(res.body.map((p: { id: string }) => p.id).sort()).toEqual(expected);
    expect(res.body.find((p: { id: string }) => p.id === 'postJournalEntry')).toEqual({
      id: 'postJournalEntry',
      name: expect.any(String),
      group: 'Ledger',
      documented: true,
      defaultRoles: ['ADMIN', 'ACCOUNTANT'],
      methods: ['POST'],
      paths: ['/api/v1/ledger/{legalEntityId}/entries'],
    });
  });
});
