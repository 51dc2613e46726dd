import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { addMember, grantPermissions } from '../../helpers/members';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const users = (token: string, query: Record<string, string | number> = {}) => api(stack).get('/api/v1/users').query(query).set(...bearer(token));
const getUser = (token: string, id: string) => api(stack).get(`/api/v1/users/${id}`).set(...bearer(token));
const putUser = (token: string, id: string, body: Record<string, unknown>) => api(stack).put(`/api/v1/users/${id}`).set(...bearer(token)).send(body);
const removeUser = (token: string, id: string, lockVersion: number) => api(stack).delete(`/api/v1/users/${id}`).set(...bearer(token)).send({ lockVersion });

async function auditActions(tenantId: string, subjectId: string): Promise<Array<{ action: string; details: string }>> {
  return stack.admin.query(`SELECT action, details FROM audit_events WHERE tenant_id = :tenantId AND subject_id = :subjectId AND action LIKE 'users.%' ORDER BY occurred_at, id`, {
    replacements: { tenantId, subjectId },
    type: QueryTypes.SELECT,
  });
}

describe('listUsers and getUser: GET /api/v1/users, GET /api/v1/users/{userId}', () => {
  test('members with email, roles, status and lastLogin; q over email and display name; status and role filter; pages with totalElements', async () => {
    const admin = await registerWorkspace(stack);
    const ana = await addMember(stack, admin.me.tenantId, ['ACCOUNTANT'], { displayName: 'Ana Karimova' });
    const bek = await addMember(stack, admin.me.tenantId, ['VIEWER'], { displayName: 'Bek Tursunov' });
    const all = await users(admin.accessToken).expect(200);
    expect(all.body).toMatchObject({ page: 0, size: 50, totalElements: 3 });
    const anaView = all.body.items.find((u: { id: string }) => u.id === ana.membershipId);
    expect(anaView).toEqual({
      id: ana.membershipId,
      userId: expect.any(String),
      email: ana.email,
      contactEmail: ana.email,
      displayName: 'Ana Karimova',
      status: 'ACTIVE',
      roles: ['ACCOUNTANT'],
      lastLogin: expect.any(String),
      lockVersion: 0,
    });
    expect((await users(admin.accessToken, { q: 'karim' }).expect(200)).body.items.map((u: { id: string }) => u.id)).toEqual([ana.membershipId]);
    expect((await users(admin.accessToken, { q: bek.email.slice(0, 12).toUpperCase() }).expect(200)).body.items.map((u: { id: string }) => u.id)).toEqual([bek.membershipId]);
    expect((await users(admin.accessToken, { role: 'VIEWER' }).expect(200)).body.items.map((u: { id: string }) => u.id)).toEqual([bek.membershipId]);
    const paged = await users(admin.accessToken, { size: 2, page: 1 }).expect(200);
    expect(paged.body).toMatchObject({ page: 1, size: 2, totalElements: 3 });
    expect(paged.body.items).toHaveLength(1);
    expect((await getUser(admin.accessToken, ana.membershipId).expect(200)).body).toEqual(anaView);
  });

  test('another workspace\'s member is 404 and never listed', async () => {
    const [a, b] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
    const res = await getUser(a.accessToken, b.me.membershipId).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    await putUser(a.accessToken, b.me.membershipId, { displayName: 'x', lockVersion: 0, role: 'ADMIN', status: 'SUSPENDED' }).expect(404);
    await removeUser(a.accessToken, b.me.membershipId, 0).expect(404);
    expect((await users(a.accessToken).expect(200)).body.items.map((u: { id: string }) => u.id)).toEqual([a.me.membershipId]);
    await getUser(b.accessToken, b.me.membershipId).expect(200);
  });

  test('lastLogin is kept current by login and by every refresh', async () => {
    const admin = await registerWorkspace(stack);
    const member = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    const first = (await getUser(admin.accessToken, member.membershipId).expect(200)).body.lastLogin;
    await stack.admin.query(`UPDATE users SET last_login_at = now() - interval '1 day' WHERE tenant_id = :t`, { replacements: { t: admin.me.tenantId } });
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: member.refreshToken }).expect(200);
    const after = (await getUser(admin.accessToken, member.membershipId).expect(200)).body.lastLogin;
    expect(Date.parse(after)).toBeGreaterThanOrEqual(Date.parse(first));
    expect(Date.now() - Date.parse(after)).toBeLessThan(60_000);
  });
});

describe('updateUser: PUT /api/v1/users/{userId}', () => {
  test('changes name, contact email and role at lockVersion; a stale lockVersion is 409; the change is audited in the same commit', async () => {
    const admin = await registerWorkspace(stack);
    const member = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    const res = await putUser(admin.accessToken, member.membershipId, {
      displayName: 'Dilnoza', contactEmail: 'dilnoza@example.com', role: 'ACCOUNTANT', status: 'ACTIVE', lockVersion: 0,
    }).expect(200);
    expect(res.body).toMatchObject({ displayName: 'Dilnoza', contactEmail: 'dilnoza@example.com', roles: ['ACCOUNTANT'], status: 'ACTIVE', lockVersion: 1 });
    const stale = await putUser(admin.accessToken, member.membershipId, { displayName: 'Late', role: 'EMPLOYEE', status: 'ACTIVE', lockVersion: 0 }).expect(409);
    expect(stale.body.type).toBe('/problems/stale-version');
    expect((await getUser(admin.accessToken, member.membershipId)).body.displayName).toBe('Dilnoza');
    expect(await auditActions(admin.me.tenantId, member.membershipId)).toEqual([
      { action: 'users.member.updated', details: 'display name; contact email; role EMPLOYEE → ACCOUNTANT' },
    ]);
    // The new role holds on the very next request: an ACCOUNTANT may read the chart of accounts.
    await api(stack).get(`/api/v1/accounting-settings/${admin.me.company.id}/accounts`).set(...bearer(member.accessToken)).expect(200);
  });

  test('"the last ACTIVE ADMIN can be neither suspended, demoted nor removed": 409 last-admin, and nothing changes', async () => {
    const admin = await registerWorkspace(stack);
    for (const change of [{ role: 'ACCOUNTANT', status: 'ACTIVE' }, { role: 'ADMIN', status: 'SUSPENDED' }]) {
      const res = await putUser(admin.accessToken, admin.me.membershipId, { displayName: 'me', lockVersion: 0, ...change }).expect(409);
      expect(res.body.type).toBe('/problems/last-admin');
    }
    expect((await removeUser(admin.accessToken, admin.me.membershipId, 0).expect(409)).body.type).toBe('/problems/last-admin');
    expect((await getUser(admin.accessToken, admin.me.membershipId).expect(200)).body).toMatchObject({ roles: ['ADMIN'], status: 'ACTIVE', lockVersion: 0 });
  });

  test('two admins demoting each other at the same moment: exactly one wins, the workspace keeps an admin', async () => {
    const first = await registerWorkspace(stack);
    const second = await addMember(stack, first.me.tenantId, ['ADMIN']);
    const [a, b] = await Promise.all([
      putUser(first.accessToken, second.membershipId, { displayName: 'b', role: 'EMPLOYEE', status: 'ACTIVE', lockVersion: 0 }),
      putUser(second.accessToken, first.me.membershipId, { displayName: 'a', role: 'EMPLOYEE', status: 'ACTIVE', lockVersion: 0 }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const [row] = await stack.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memberships m JOIN membership_roles mr ON mr.tenant_id = m.tenant_id AND mr.membership_id = m.id
         JOIN roles r ON r.tenant_id = mr.tenant_id AND r.id = mr.role_id WHERE m.tenant_id = :t AND r.code = 'ADMIN' AND m.status = 'ACTIVE'`,
      { replacements: { t: first.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(row!.n).toBe(1);
  });

  test('"nobody assigns a role they do not hold": a MANAGER allowed to edit members assigns MANAGER but not ADMIN (403 role-not-held)', async () => {
    const admin = await registerWorkspace(stack);
    // An edited set (as PUT /roles/{id}/permissions would leave it): no longer the defaults.
    await stack.admin.query(
      `INSERT INTO role_permissions (tenant_id, role_id, permission) SELECT tenant_id, id, 'updateUser' FROM roles WHERE tenant_id = :t AND code = 'MANAGER';
       UPDATE roles SET default_permissions = false WHERE tenant_id = :t AND code = 'MANAGER'`,
      { replacements: { t: admin.me.tenantId } },
    );
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    const member = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    const refused = await putUser(manager.accessToken, member.membershipId, { displayName: 'x', role: 'ADMIN', status: 'ACTIVE', lockVersion: 0 }).expect(403);
    expect(refused.body).toMatchObject({ type: '/problems/role-not-held', role: 'ADMIN' });
    await putUser(manager.accessToken, member.membershipId, { displayName: 'x', role: 'MANAGER', status: 'ACTIVE', lockVersion: 0 }).expect(200);
  });

  test('when a MANAGER allowed to edit members demotes, suspends, renames or re-addresses an ADMIN, then 403 role-not-held, nothing changes and nothing is audited; an EMPLOYEE it still edits', async () => {
    const admin = await registerWorkspace(stack);
    await grantPermissions(stack, admin.me.tenantId, 'MANAGER', ['updateUser']);
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    // A second ADMIN, so that "the last admin" is not what stops the manager.
    const other = await addMember(stack, admin.me.tenantId, ['ADMIN'], { displayName: 'Other Admin' });
    const before = (await getUser(admin.accessToken, other.membershipId).expect(200)).body;
    const same = { displayName: 'Other Admin', role: 'ADMIN', status: 'ACTIVE', lockVersion: 0 };
    for (const change of [{ role: 'EMPLOYEE' }, { status: 'SUSPENDED' }, { displayName: 'Renamed' }, { contactEmail: 'elsewhere@example.com' }]) {
      const refused = await putUser(manager.accessToken, other.membershipId, { ...same, ...change }).expect(403);
      expect(refused.body).toMatchObject({ type: '/problems/role-not-held', role: 'ADMIN' });
    }
    // The registering ADMIN (the manager could at most have suspended it, the other admin staying) is out of reach too.
    await putUser(manager.accessToken, admin.me.membershipId, { displayName: 'x', role: 'ADMIN', status: 'SUSPENDED', lockVersion: 0 }).expect(403);
    expect((await getUser(admin.accessToken, other.membershipId).expect(200)).body).toEqual(before);
    expect(await auditActions(admin.me.tenantId, other.membershipId)).toEqual([]);
    expect(await auditActions(admin.me.tenantId, admin.me.membershipId)).toEqual([]);
    await api(stack).get('/api/v1/me').set(...bearer(other.accessToken)).expect(200);

    const employee = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    const edited = await putUser(manager.accessToken, employee.membershipId, { displayName: 'Renamed', role: 'EMPLOYEE', status: 'SUSPENDED', lockVersion: 0 }).expect(200);
    expect(edited.body).toMatchObject({ displayName: 'Renamed', roles: ['EMPLOYEE'], status: 'SUSPENDED' });
    // An ADMIN still changes everyone, another ADMIN included.
    await putUser(admin.accessToken, other.membershipId, { displayName: 'Renamed', role: 'ACCOUNTANT', status: 'SUSPENDED', lockVersion: 0 }).expect(200);
  });

  test('a role counts as held when the caller is in it or has every permission it has now: a MANAGER edits an EMPLOYEE, not an ACCOUNTANT, and no longer an EMPLOYEE once EMPLOYEE can do what MANAGER cannot', async () => {
    const admin = await registerWorkspace(stack);
    await grantPermissions(stack, admin.me.tenantId, 'MANAGER', ['updateUser']);
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    const accountant = await addMember(stack, admin.me.tenantId, ['ACCOUNTANT']);
    const employee = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    const refused = await putUser(manager.accessToken, accountant.membershipId, { displayName: 'x', role: 'ACCOUNTANT', status: 'ACTIVE', lockVersion: 0 }).expect(403);
    expect(refused.body).toMatchObject({ type: '/problems/role-not-held', role: 'ACCOUNTANT' });
    // MANAGER's permissions include every one of EMPLOYEE's: it may give EMPLOYEE, and edit its holders.
    await putUser(manager.accessToken, employee.membershipId, { displayName: 'Renamed once', role: 'EMPLOYEE', status: 'ACTIVE', lockVersion: 0 }).expect(200);
    await grantPermissions(stack, admin.me.tenantId, 'EMPLOYEE', ['postJournalEntry']);
    const now = await putUser(manager.accessToken, employee.membershipId, { displayName: 'Renamed twice', role: 'EMPLOYEE', status: 'ACTIVE', lockVersion: 1 }).expect(403);
    expect(now.body).toMatchObject({ type: '/problems/role-not-held', role: 'EMPLOYEE' });
    expect((await getUser(admin.accessToken, employee.membershipId).expect(200)).body).toMatchObject({ displayName: 'Renamed once', lockVersion: 1 });
  });

  test('"suspending ends its sessions at once": the still-valid access token is 401, the refresh token is refused, reactivation revives neither', async () => {
    const admin = await registerWorkspace(stack);
    const member = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    await api(stack).get('/api/v1/me').set(...bearer(member.accessToken)).expect(200);
    const suspended = await putUser(admin.accessToken, member.membershipId, { displayName: 'm', role: 'EMPLOYEE', status: 'SUSPENDED', lockVersion: 0 }).expect(200);
    expect(suspended.body.status).toBe('SUSPENDED');
    await api(stack).get('/api/v1/me').set(...bearer(member.accessToken)).expect(401);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: member.refreshToken }).expect(401);
    await api(stack).post('/api/v1/auth/login').send({ email: member.email, password: 'correct horse battery staple' }).expect(401);

    await putUser(admin.accessToken, member.membershipId, { displayName: 'm', role: 'EMPLOYEE', status: 'ACTIVE', lockVersion: 1 }).expect(200);
    await api(stack).get('/api/v1/me').set(...bearer(member.accessToken)).expect(401);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: member.refreshToken }).expect(401);
    await api(stack).post('/api/v1/auth/login').send({ email: member.email, password: 'correct horse battery staple' }).expect(200);
    expect((await auditActions(admin.me.tenantId, member.membershipId)).map((e) => e.action)).toEqual(['users.member.suspended', 'users.member.reactivated']);
  });
});

describe('removeUser: DELETE /api/v1/users/{userId}', () => {
  test('ends the membership and its sessions; the member is gone from the list; a stale lockVersion is 409', async () => {
    const admin: Registered = await registerWorkspace(stack);
    const member = await addMember(stack, admin.me.tenantId, ['VIEWER']);
    expect((await removeUser(admin.accessToken, member.membershipId, 3).expect(409)).body.type).toBe('/problems/stale-version');
    await removeUser(admin.accessToken, member.membershipId, 0).expect(204);
    await api(stack).get('/api/v1/me').set(...bearer(member.accessToken)).expect(401);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: member.refreshToken }).expect(401);
    await getUser(admin.accessToken, member.membershipId).expect(404);
    expect((await users(admin.accessToken).expect(200)).body.items.map((u: { id: string }) => u.id)).toEqual([admin.me.membershipId]);
    expect((await auditActions(admin.me.tenantId, member.membershipId)).map((e) => e.action)).toEqual(['users.member.removed']);
  });

  test('when a MANAGER allowed to remove members removes an ADMIN, then 403 role-not-held: the membership and its sessions stay, nothing is audited; an EMPLOYEE it still removes', async () => {
    const admin = await registerWorkspace(stack);
    await grantPermissions(stack, admin.me.tenantId, 'MANAGER', ['removeUser']);
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    const other = await addMember(stack, admin.me.tenantId, ['ADMIN']);
    for (const target of [other.membershipId, admin.me.membershipId]) {
      const refused = await removeUser(manager.accessToken, target, 0).expect(403);
      expect(refused.body).toMatchObject({ type: '/problems/role-not-held', role: 'ADMIN' });
      expect((await getUser(admin.accessToken, target).expect(200)).body).toMatchObject({ roles: ['ADMIN'], status: 'ACTIVE', lockVersion: 0 });
      expect(await auditActions(admin.me.tenantId, target)).toEqual([]);
    }
    await api(stack).get('/api/v1/me').set(...bearer(other.accessToken)).expect(200);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: other.refreshToken }).expect(200);

    const employee = await addMember(stack, admin.me.tenantId, ['EMPLOYEE']);
    await removeUser(manager.accessToken, employee.membershipId, 0).expect(204);
    await getUser(admin.accessToken, employee.membershipId).expect(404);
    // An ADMIN still removes another ADMIN.
    await removeUser(admin.accessToken, other.membershipId, 0).expect(204);
  });

  test('roles without the permission are refused with 403, whatever the target', async () => {
    const admin = await registerWorkspace(stack);
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    await users(manager.accessToken).expect(200);
    const res = await removeUser(manager.accessToken, admin.me.membershipId, 0).expect(403);
    expect(res.body.type).toBe('/problems/permission-denied');
    const viewer = await addMember(stack, admin.me.tenantId, ['VIEWER']);
    await users(viewer.accessToken).expect(403);
  });
});
