import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, PASSWORD, registerWorkspace, requestMagicLink, uniqueEmail } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

async function events(tenantId: string): Promise<string[]> {
  const rows = await stack.admin.query<{ action: string }>(
    `SELECT action FROM audit_events WHERE tenant_id = :tenantId AND action LIKE 'workspace.%' ORDER BY occurred_at, id`,
    { replacements: { tenantId }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.action);
}

describe('completeOnboarding: PUT /api/v1/company', () => {
  test('a workspace registered without a company completes onboarding with a valid Company; /me shows it', async () => {
    const email = uniqueEmail();
    const token = await requestMagicLink(stack, email);
    const registered = await api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD }).expect(201);
    const auth = bearer(registered.body.accessToken);
    const before = await api(stack).get('/api/v1/me').set(...auth).expect(200);
    expect(before.body.company).toMatchObject({ name: null, taxId: null, onboardingComplete: false, archived: false });
    const done = await api(stack).put('/api/v1/company').set(...auth).send({ name: '  Navoiy Savdo  ', taxId: '301234567' }).expect(200);
    expect(done.body).toEqual({ ...before.body.company, name: 'Navoiy Savdo', taxId: '301234567', onboardingComplete: true });
    expect((await api(stack).get('/api/v1/me').set(...auth).expect(200)).body.company).toEqual(done.body);
    expect(await events(before.body.tenantId)).toEqual(['workspace.registered', 'workspace.onboarding.completed']);
  });

  test.each([
    ['a blank name', { name: '   ', taxId: '301234567' }],
    ['a tax id of eight digits', { name: 'Firm', taxId: '30123456' }],
    ['a tax id with letters', { name: 'Firm', taxId: '30123456x' }],
    ['no tax id', { name: 'Firm' }],
  ])('%s is 400 and changes nothing', async (_label, body) => {
    const admin = await registerWorkspace(stack);
    await api(stack).put('/api/v1/company').set(...bearer(admin.accessToken)).send(body).expect(400);
    expect((await api(stack).get('/api/v1/me').set(...bearer(admin.accessToken))).body.company).toEqual(admin.me.company);
  });
});

describe('archiveCompany: POST /api/v1/company/archive', () => {
  test('afterwards every accounting and ledger change is 409 company-archived, reads work, the archive is audited once', async () => {
    const admin = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, admin);
    await ledger.post(simpleEntry('2025-01-10', '5.00')).expect(201);
    const archived = await api(stack).post('/api/v1/company/archive').set(...bearer(admin.accessToken)).expect(200);
    expect(archived.body).toEqual({ ...admin.me.company, archived: true });
    const refused = await ledger.post(simpleEntry('2025-01-11', '5.00')).expect(409);
    expect(refused.body.type).toBe('/problems/company-archived');
    await ledger.close('2025-01-31').expect(409);
    const settings = `/api/v1/accounting-settings/${admin.me.company.id}`;
    await api(stack).post(`${settings}/accounts`).set(...bearer(admin.accessToken)).send({ code: '9931', name: 'x', type: 'ASSET', enabled: true }).expect(409);
    await api(stack).put('/api/v1/company').set(...bearer(admin.accessToken)).send({ name: 'Late', taxId: '301234567' }).expect(409);
    await ledger.list().expect(200);
    await api(stack).get(`${settings}/accounts`).set(...bearer(admin.accessToken)).expect(200);
    await api(stack).post('/api/v1/company/archive').set(...bearer(admin.accessToken)).expect(200);
    expect(await events(admin.me.tenantId)).toEqual(['workspace.registered', 'workspace.company.archived']);
  });

  test('a posting in flight when the archive arrives either commits before it or is refused: none commits after', async () => {
    const admin = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, admin);
    const posts = Array.from({ length: 8 }, (_, i) => ledger.post({ ...simpleEntry('2025-02-01', `${i + 1}.00`), requestId: randomUUID() }));
    const [archive, ...results] = await Promise.all([api(stack).post('/api/v1/company/archive').set(...bearer(admin.accessToken)), ...posts]);
    expect(archive.status).toBe(200);
    for (const r of results) expect([201, 409]).toContain(r.status);
    const [after] = await stack.admin.query<{ late: number }>(
      `SELECT count(*)::int AS late FROM journal_entries je JOIN legal_entities le ON le.tenant_id = je.tenant_id AND le.id = je.legal_entity_id
        WHERE je.tenant_id = :t AND je.posted_at > le.archived_at`,
      { replacements: { t: admin.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(after!.late).toBe(0);
  });

  test('only an ADMIN by default: an ACCOUNTANT is refused with 403 and the company stays open', async () => {
    const admin = await registerWorkspace(stack);
    const accountant = await addMember(stack, admin.me.tenantId, ['ACCOUNTANT']);
    await api(stack).post('/api/v1/company/archive').set(...bearer(accountant.accessToken)).expect(403);
    await api(stack).put('/api/v1/company').set(...bearer(accountant.accessToken)).send({ name: 'Firm', taxId: '301234567' }).expect(403);
    expect((await api(stack).get('/api/v1/me').set(...bearer(admin.accessToken))).body.company.archived).toBe(false);
  });
});
