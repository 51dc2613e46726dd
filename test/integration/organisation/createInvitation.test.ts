import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, mailedInvitationToken, registerWorkspace, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { addMember, grantPermissions } from '../../helpers/members';
import { enableTotp, totpCode } from '../../helpers/second-factors';
import { acceptInvitationWorkflowId } from '../../../contracts/workflow-ids';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const hostOf = (who: Registered) => `${who.me.company.slug}.${stack.config.baseDomain}`;
const invite = (who: Registered, body: Record<string, unknown>, delivery: 'EMAIL' | 'MANUAL' = 'MANUAL', token = who.accessToken) =>
  api(stack).post(`/api/v1/membership-invitations?delivery=${delivery}`).set(...bearer(token)).send(body);
const accept = (host: string, token: string, password: string) =>
  api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', host).send({ token, password });
const NEW_PASSWORD = 'a brand new long password';

describe('createInvitation and acceptInvitation', () => {
  test('MANUAL: the raw token once; for an address without an identity it creates none (401), the address is mailed its own link, which joins with the invited role', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('colleague');
    const created = await invite(admin, { email, roles: ['ACCOUNTANT'] }).expect(201);
    expect(created.body).toEqual({ invitationId: expect.any(String), expiresAt: expect.any(String), token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(Date.parse(created.body.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);
    const refused = await accept(hostOf(admin), created.body.token, NEW_PASSWORD).expect(401);
    expect(refused.body.type).toBe('/problems/invalid-credentials');
    const [identity] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM identities WHERE email = :email', { replacements: { email }, type: QueryTypes.SELECT });
    expect(identity!.n).toBe(0);
    const [mail] = await waitForMail(stack, email);
    const mailed = /invitation=([A-Za-z0-9_-]{43})/.exec(mail!.text)?.[1];
    expect(mailed).toBeDefined();
    expect(mailed).not.toBe(created.body.token);
    const res = await accept(hostOf(admin), mailed!, NEW_PASSWORD).expect(200);
    const me = await api(stack).get('/api/v1/me').set(...bearer(res.body.accessToken)).expect(200);
    expect(me.body).toMatchObject({ tenantId: admin.me.tenantId, roles: ['ACCOUNTANT'] });
    await api(stack).post('/api/v1/auth/login').set('Host', hostOf(admin)).send({ email, password: NEW_PASSWORD }).expect(200);
    // Both tokens are used up.
    expect((await accept(hostOf(admin), mailed!, NEW_PASSWORD).expect(400)).body.type).toBe('/problems/invitation-invalid');
    expect((await accept(hostOf(admin), created.body.token, NEW_PASSWORD).expect(400)).body.type).toBe('/problems/invitation-invalid');
  });

  test('EMAIL: token null in the answer; the mail carries invitation=<token>, which accepts', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('mailed');
    const created = await invite(admin, { email, roles: ['VIEWER'] }, 'EMAIL').expect(201);
    expect(created.body.token).toBeNull();
    const [mail] = await waitForMail(stack, email);
    const token = /invitation=([A-Za-z0-9_-]{43})/.exec(mail!.text)?.[1];
    expect(token).toBeDefined();
    await accept(hostOf(admin), token!, NEW_PASSWORD).expect(200);
  });

  test('when a new person accepts with a common password, then 400 password-too-common naming the field, and the invitation still accepts', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('common');
    await invite(admin, { email, roles: ['VIEWER'] }, 'EMAIL').expect(201);
    const [mail] = await waitForMail(stack, email);
    const token = /invitation=([A-Za-z0-9_-]{43})/.exec(mail!.text)![1]!;
    const refused = await accept(hostOf(admin), token, 'QwertyUiop12345').expect(400);
    expect(refused.body).toMatchObject({ type: '/problems/password-too-common', errors: [{ path: '/body/password', message: 'is a commonly used password' }] });
    expect(await stack.admin.query('SELECT 1 FROM identities WHERE email = :email', { replacements: { email }, type: QueryTypes.SELECT })).toEqual([]);
    await accept(hostOf(admin), token, NEW_PASSWORD).expect(200);
  });

  test('"of 10 simultaneous accepts of one token exactly one wins"; one membership; the workflow carries the tenant and no secret', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('race');
    const { body } = await invite(admin, { email, roles: ['EMPLOYEE'] }, 'EMAIL').expect(201);
    const token = await mailedInvitationToken(stack, email);
    const results = await Promise.all(Array.from({ length: 10 }, () => accept(hostOf(admin), token, NEW_PASSWORD)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(9);
    const [row] = await stack.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id JOIN identities i ON i.id = u.identity_id
        WHERE m.tenant_id = :t AND i.email = :email`,
      { replacements: { t: admin.me.tenantId, email }, type: QueryTypes.SELECT },
    );
    expect(row!.n).toBe(1);
    const accepted = await stack.admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'users.invitation.accepted' AND subject_id = :id",
      { replacements: { t: admin.me.tenantId, id: body.invitationId }, type: QueryTypes.SELECT },
    );
    expect(accepted[0]!.n).toBe(1);
    const handle = stack.temporal.workflow.getHandle(acceptInvitationWorkflowId(body.invitationId));
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().find((p) => p.key.name === 'TenantId')?.value).toBe(admin.me.tenantId);
    const history = JSON.stringify(await handle.fetchHistory());
    for (const secret of [token, NEW_PASSWORD]) expect(history).not.toContain(Buffer.from(secret).toString('base64'));
    for (const secret of [token, NEW_PASSWORD]) expect(history).not.toContain(secret);
  });

  test('an existing identity: a wrong password is 401 and the invitation stays; the current one joins, unchanged; two workspaces then need the tenant host', async () => {
    const admin = await registerWorkspace(stack);
    const other = await registerWorkspace(stack);
    const { body } = await invite(admin, { email: other.email, roles: ['MANAGER'] }).expect(201);
    expect((await accept(hostOf(admin), body.token, 'not the current password').expect(401)).body.type).toBe('/problems/invalid-credentials');
    const joined = await accept(hostOf(admin), body.token, other.password).expect(200);
    expect((await api(stack).get('/api/v1/me').set(...bearer(joined.body.accessToken))).body).toMatchObject({ globalUserId: other.me.globalUserId, roles: ['MANAGER'] });
    const central = await api(stack).post('/api/v1/auth/login').send({ email: other.email, password: other.password }).expect(400);
    expect(central.body.type).toBe('/problems/tenant-host-required');
    await api(stack).post('/api/v1/auth/login').set('Host', hostOf(admin)).send({ email: other.email, password: other.password }).expect(200);
  });

  test('an identity with an authenticator: the membership is created and the answer is 202; login on the host with the factor finishes', async () => {
    const admin = await registerWorkspace(stack);
    const other = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, other);
    const { body } = await invite(admin, { email: other.email, roles: ['VIEWER'] }).expect(201);
    const res = await accept(hostOf(admin), body.token, other.password).expect(202);
    expect(res.body).toEqual({ channel: 'TOTP', challengeId: null, expiresAt: null });
    const session = await api(stack).post('/api/v1/auth/login').set('Host', hostOf(admin)).send({ email: other.email, password: other.password, totpCode: totpCode(secret, 1) }).expect(200);
    expect((await api(stack).get('/api/v1/me').set(...bearer(session.body.accessToken))).body.tenantId).toBe(admin.me.tenantId);
  });

  test('revoked, superseded, expired and another workspace\'s tokens all answer 400 invitation-invalid; with the mailed token a short new password is 400 validation', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('states');
    const first = await invite(admin, { email, roles: ['VIEWER'] }).expect(201);
    const second = await invite(admin, { email, roles: ['VIEWER'] }).expect(201);
    expect((await accept(hostOf(admin), first.body.token, NEW_PASSWORD).expect(400)).body.type).toBe('/problems/invitation-invalid');
    await api(stack).delete(`/api/v1/membership-invitations/${second.body.invitationId}`).set(...bearer(admin.accessToken)).expect(204);
    expect((await accept(hostOf(admin), second.body.token, NEW_PASSWORD).expect(400)).body.type).toBe('/problems/invitation-invalid');
    const third = await invite(admin, { email, roles: ['VIEWER'] }).expect(201);
    await stack.admin.query(`UPDATE membership_invitations SET expires_at = now() - interval '1 second' WHERE id = :id`, { replacements: { id: third.body.invitationId } });
    expect((await accept(hostOf(admin), third.body.token, NEW_PASSWORD).expect(400)).body.type).toBe('/problems/invitation-invalid');
    const elsewhere = await registerWorkspace(stack);
    const fourth = await invite(admin, { email, roles: ['VIEWER'] }, 'EMAIL').expect(201);
    const mailed = /invitation=([A-Za-z0-9_-]{43})/.exec((await waitForMail(stack, email))[0]!.text)![1]!;
    expect((await accept(hostOf(elsewhere), mailed, NEW_PASSWORD).expect(400)).body.type).toBe('/problems/invitation-invalid');
    // With the mailed token (the mailbox's reader) the registration rule for a new password applies.
    expect((await accept(hostOf(admin), mailed, 'too short pw').expect(400)).body.type).toBe('/problems/validation');
    await accept(hostOf(admin), mailed, NEW_PASSWORD).expect(200);
    await api(stack).delete(`/api/v1/membership-invitations/${fourth.body.invitationId}`).set(...bearer(elsewhere.accessToken)).expect(404);
  });

  test('"nobody invites into a role they do not hold": a MANAGER allowed to invite cannot invite an ADMIN', async () => {
    const admin = await registerWorkspace(stack);
    await stack.admin.query(
      `INSERT INTO role_permissions (tenant_id, role_id, permission) SELECT tenant_id, id, 'createInvitation' FROM roles WHERE tenant_id = :t AND code = 'MANAGER';
       UPDATE roles SET default_permissions = false WHERE tenant_id = :t AND code = 'MANAGER'`,
      { replacements: { t: admin.me.tenantId } },
    );
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    const refused = await invite(admin, { email: uniqueEmail(), roles: ['ADMIN'] }, 'MANUAL', manager.accessToken).expect(403);
    expect(refused.body).toMatchObject({ type: '/problems/role-not-held', role: 'ADMIN' });
    await invite(admin, { email: uniqueEmail(), roles: ['MANAGER'] }, 'MANUAL', manager.accessToken).expect(201);
  });
});

describe('revokeInvitation: DELETE /api/v1/membership-invitations/{invitationId} (and createInvitation superseding a pending one)', () => {
  const revoke = (token: string, invitationId: string) => api(stack).delete(`/api/v1/membership-invitations/${invitationId}`).set(...bearer(token));
  const stateOf = async (invitationId: string) => {
    const [row] = await stack.admin.query<{ revoked: boolean; superseded: boolean }>(
      `SELECT revoked_at IS NOT NULL AS revoked, superseded_at IS NOT NULL AS superseded FROM membership_invitations WHERE id = :invitationId`,
      { replacements: { invitationId }, type: QueryTypes.SELECT },
    );
    return row;
  };
  const invitationEvents = (tenantId: string) =>
    stack.admin.query<{ action: string }>(`SELECT action FROM audit_events WHERE tenant_id = :tenantId AND action LIKE 'users.invitation.%' ORDER BY occurred_at, id`, {
      replacements: { tenantId },
      type: QueryTypes.SELECT,
    });

  test('when a MANAGER allowed to invite and revoke revokes a pending ADMIN invitation, or replaces it by inviting the same email, then 403 role-not-held and the invitation stays pending; MANAGER invitations it still revokes and replaces', async () => {
    const admin = await registerWorkspace(stack);
    await grantPermissions(stack, admin.me.tenantId, 'MANAGER', ['createInvitation', 'revokeInvitation']);
    const manager = await addMember(stack, admin.me.tenantId, ['MANAGER']);
    const email = uniqueEmail('future-admin');
    const adminInvitation = await invite(admin, { email, roles: ['ADMIN'] }).expect(201);

    const refused = await revoke(manager.accessToken, adminInvitation.body.invitationId).expect(403);
    expect(refused.body).toMatchObject({ type: '/problems/role-not-held', role: 'ADMIN' });
    const replaced = await invite(admin, { email, roles: ['MANAGER'] }, 'MANUAL', manager.accessToken).expect(403);
    expect(replaced.body).toMatchObject({ type: '/problems/role-not-held', role: 'ADMIN' });
    expect((await invitationEvents(admin.me.tenantId)).map((e) => e.action)).toEqual(['users.invitation.created']);
    expect(await stateOf(adminInvitation.body.invitationId)).toEqual({ revoked: false, superseded: false });

    const own = await invite(admin, { email: uniqueEmail(), roles: ['MANAGER'] }, 'MANUAL', manager.accessToken).expect(201);
    await revoke(manager.accessToken, own.body.invitationId).expect(204);
    const otherEmail = uniqueEmail('future-manager');
    const first = await invite(admin, { email: otherEmail, roles: ['EMPLOYEE'] }).expect(201);
    await invite(admin, { email: otherEmail, roles: ['MANAGER'] }, 'MANUAL', manager.accessToken).expect(201);
    expect(await stateOf(own.body.invitationId)).toEqual({ revoked: true, superseded: false });
    expect(await stateOf(first.body.invitationId)).toEqual({ revoked: false, superseded: true });
  });

  test('when an ADMIN revokes or replaces an ADMIN invitation, then it is gone (204, or 201 for the new one)', async () => {
    const admin = await registerWorkspace(stack);
    const first = await invite(admin, { email: uniqueEmail('a'), roles: ['ADMIN'] }).expect(201);
    await revoke(admin.accessToken, first.body.invitationId).expect(204);
    const email = uniqueEmail('b');
    const second = await invite(admin, { email, roles: ['ADMIN'] }).expect(201);
    await invite(admin, { email, roles: ['VIEWER'] }).expect(201);
    expect(await stateOf(first.body.invitationId)).toEqual({ revoked: true, superseded: false });
    expect(await stateOf(second.body.invitationId)).toEqual({ revoked: false, superseded: true });
  });
});
