import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
});
afterAll(async () => {
  await stack.stop();
});

const subaccountsOf = (who: Registered, code: string) => `/api/v1/accounting-settings/${who.me.company.id}/accounts/${code}/subaccounts`;

function create(who: Registered, parent: string, body: Record<string, unknown>) {
  return api(stack).post(subaccountsOf(who, parent)).set(...bearer(who.accessToken)).send(body);
}

describe('POST …/accounts/{code}/subaccounts (createCompanySubaccount)', () => {
  test('201 with the subaccount at version 1; the parent counts it; one audit event', async () => {
    const who = await registerWorkspace(stack);
    const res = await create(who, '5110', { code: 'NBU-01', name: 'National Bank, Tashkent', enabled: true }).expect(201);
    expect(res.body).toEqual({ id: expect.any(String), code: 'NBU-01', name: 'National Bank, Tashkent', parentCode: '5110', enabled: true, version: 1 });
    const parent = await api(stack).get(`/api/v1/accounting-settings/${who.me.company.id}/accounts/5110`).set(...bearer(who.accessToken)).expect(200);
    expect(parent.body).toMatchObject({ subaccountCount: 1, version: 0 });
    const events = await stack.admin.query<{ action: string; subject_id: string; subject_type: string }>(
      "SELECT action, subject_id, subject_type FROM audit_events WHERE tenant_id = :t AND action LIKE 'accounting.%'",
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(events).toEqual([{ action: 'accounting.subaccount.created', subject_id: res.body.id, subject_type: 'COMPANY_SUBACCOUNT' }]);
  });

  test('"refuse subaccounts under a header": 400 header-account naming its detail accounts, nothing stored, even written by the application role', async () => {
    const who = await registerWorkspace(stack);
    const res = await create(who, '5100', { code: 'NBU-01', name: 'National Bank', enabled: true }).expect(400);
    expect(res.body).toMatchObject({ type: '/problems/header-account', detail: expect.stringContaining('5110') });
    const parent = await api(stack).get(`/api/v1/accounting-settings/${who.me.company.id}/accounts/5100`).set(...bearer(who.accessToken)).expect(200);
    expect(parent.body).toMatchObject({ header: true, subaccountCount: 0 });
    await expect(
      stack.admin.query(
        `INSERT INTO company_subaccounts (tenant_id, legal_entity_id, parent_code, id, code, name, enabled, version)
         VALUES (:t, :l, '5100', gen_random_uuid(), 'X', 'x', true, 1)`,
        { replacements: { t: who.me.tenantId, l: who.me.company.id } },
      ),
    ).rejects.toThrow(/header account/);
  });

  test('"codes are unique per company and parent account": 409 subaccount-code-exists under the same parent only', async () => {
    const who = await registerWorkspace(stack);
    await create(who, '4010', { code: 'C1', name: 'Client one', enabled: true }).expect(201);
    const dup = await create(who, '4010', { code: 'C1', name: 'Again', enabled: false }).expect(409);
    expect(dup.body).toMatchObject({ type: '/problems/subaccount-code-exists', code: 'C1' });
    await create(who, '6010', { code: 'C1', name: 'Supplier one', enabled: true }).expect(201);
    await create(bob, '4010', { code: 'C1', name: "Bob's client", enabled: true }).expect(201);
  });

  test('a custom account can be a parent', async () => {
    const who = await registerWorkspace(stack);
    await api(stack).post(`/api/v1/accounting-settings/${who.me.company.id}/accounts`).set(...bearer(who.accessToken))
      .send({ code: '5160', name: 'Payment app wallets', type: 'ASSET', enabled: true }).expect(201);
    await create(who, '5160', { code: 'click', name: 'Click', enabled: true }).expect(201);
  });

  test('when the parent account is not in the chart, then 404', async () => {
    const res = await create(alice, '0003', { code: 'x', name: 'x', enabled: true }).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
  });

  test.each([
    ['a code starting with "_"', { code: '_x', name: 'x', enabled: true }],
    ['a code starting with "."', { code: '.x', name: 'x', enabled: true }],
    ['an empty code', { code: '', name: 'x', enabled: true }],
    ['a code of 33 characters', { code: 'a'.repeat(33), name: 'x', enabled: true }],
    ['a code with a space', { code: 'a b', name: 'x', enabled: true }],
    ['a name of 201 characters', { code: 'ok', name: 'x'.repeat(201), enabled: true }],
    ['no enabled', { code: 'ok', name: 'x' }],
  ])('when the body has %s, then 400 validation', async (_name, body) => {
    expect((await create(alice, '5010', body).expect(400)).body.type).toBe('/problems/validation');
  });

  test('a code of 32 characters using . _ - is accepted, and so is an empty name', async () => {
    await create(alice, '5010', { code: `A${'._-9'.repeat(7)}xyz`, name: '', enabled: false }).expect(201);
  });

  test('when the company is archived, then 409 company-archived', async () => {
    const who = await registerWorkspace(stack);
    await archiveCompany(stack, who.me.company.id);
    expect((await create(who, '5010', { code: 'x', name: 'x', enabled: true }).expect(409)).body.type).toBe('/problems/company-archived');
  });

  test("when the company is another tenant's, then 404", async () => {
    await api(stack).post(subaccountsOf(bob, '5010')).set(...bearer(alice.accessToken)).send({ code: 'x', name: 'x', enabled: true }).expect(404);
  });
});

describe('GET …/accounts/{code}/subaccounts (listCompanySubaccounts)', () => {
  let who: Registered;
  beforeAll(async () => {
    who = await registerWorkspace(stack);
    for (const code of ['a', 'B', 'x_1', '10', '9', 'b.2']) {
      await create(who, '2910', { code, name: `Warehouse ${code}`, enabled: code !== '9' }).expect(201);
    }
    await create(who, '2910', { code: 'pct', name: '100% owned', enabled: true }).expect(201);
    await create(who, '2920', { code: 'a', name: 'Shop a', enabled: true }).expect(201);
  });

  const list = async (query: Record<string, string | number> = {}) =>
    (await api(stack).get(subaccountsOf(who, '2910')).query(query).set(...bearer(who.accessToken)).expect(200)).body;

  test('"ordered by code then id" in byte order, not locale order; scoped to the parent', async () => {
    const body = await list();
    expect(body.items.map((s: { code: string }) => s.code)).toEqual(['10', '9', 'B', 'a', 'b.2', 'pct', 'x_1']);
    expect(body).toMatchObject({ page: 0, size: 50, totalElements: 7, totalPages: 1 });
    for (const s of body.items) expect(s.parentCode).toBe('2910');
  });

  test('pages split the same order', async () => {
    const first = await list({ size: 3, page: 0 });
    const second = await list({ size: 3, page: 1 });
    const third = await list({ size: 3, page: 2 });
    expect([...first.items, ...second.items, ...third.items].map((s: { code: string }) => s.code)).toEqual(['10', '9', 'B', 'a', 'b.2', 'pct', 'x_1']);
    expect(first).toMatchObject({ totalElements: 7, totalPages: 3 });
  });

  test('"literal search over subaccount code and name"', async () => {
    const codes = async (q: string) => (await list({ q })).items.map((s: { code: string }) => s.code);
    expect(await codes('%')).toEqual(['pct']);
    expect(await codes('_')).toEqual(['x_1']);
    expect(await codes('.')).toEqual(['b.2']);
    expect(await codes('WAREHOUSE b')).toEqual(['B', 'b.2']);
    expect(await codes('_%')).toEqual([]);
  });

  test('the parent counts all direct subaccounts, including disabled ones', async () => {
    const res = await api(stack).get(`/api/v1/accounting-settings/${who.me.company.id}/accounts/2910`).set(...bearer(who.accessToken)).expect(200);
    expect(res.body.subaccountCount).toBe(7);
  });

  test('when the parent is not in the chart, then 404; another tenant sees 404', async () => {
    await api(stack).get(subaccountsOf(who, '0004')).set(...bearer(who.accessToken)).expect(404);
    await api(stack).get(subaccountsOf(who, '2910')).set(...bearer(bob.accessToken)).expect(404);
  });
});

describe('GET and PUT …/subaccounts/{subaccountId} (getCompanySubaccount, configureCompanySubaccount)', () => {
  test('get returns the subaccount; under another parent or company it is 404', async () => {
    const who = await registerWorkspace(stack);
    const { body: created } = await create(who, '1010', { code: 'steel', name: 'Steel', enabled: true }).expect(201);
    const got = await api(stack).get(`${subaccountsOf(who, '1010')}/${created.id}`).set(...bearer(who.accessToken)).expect(200);
    expect(got.body).toEqual(created);
    await api(stack).get(`${subaccountsOf(who, '1020')}/${created.id}`).set(...bearer(who.accessToken)).expect(404);
    await api(stack).get(`${subaccountsOf(who, '1010')}/00000000-0000-4000-8000-000000000000`).set(...bearer(who.accessToken)).expect(404);
    await api(stack).get(`${subaccountsOf(who, '1010')}/not-a-uuid`).set(...bearer(who.accessToken)).expect(400);
    await api(stack).get(`${subaccountsOf(who, '1010')}/${created.id}`).set(...bearer(bob.accessToken)).expect(404);
    await api(stack).get(`${subaccountsOf(bob, '1010')}/${created.id}`).set(...bearer(bob.accessToken)).expect(404);
  });

  test('configure increments the version; stale is 409; expectedVersion 0 is 400', async () => {
    const who = await registerWorkspace(stack);
    const { body: created } = await create(who, '1030', { code: 'diesel', name: 'Diesel', enabled: true }).expect(201);
    const url = `${subaccountsOf(who, '1030')}/${created.id}`;
    const res = await api(stack).put(url).set(...bearer(who.accessToken)).send({ name: 'Diesel fuel', enabled: false, expectedVersion: 1 }).expect(200);
    expect(res.body).toEqual({ ...created, name: 'Diesel fuel', enabled: false, version: 2 });
    expect((await api(stack).put(url).set(...bearer(who.accessToken)).send({ name: 'x', enabled: true, expectedVersion: 1 }).expect(409)).body.type).toBe(
      '/problems/stale-version',
    );
    expect((await api(stack).put(url).set(...bearer(who.accessToken)).send({ name: 'x', enabled: true, expectedVersion: 0 }).expect(400)).body.type).toBe(
      '/problems/validation',
    );
    await api(stack).put(url).set(...bearer(who.accessToken)).send({ name: 'x', enabled: true, expectedVersion: 2, code: 'petrol' }).expect(400);
    expect((await api(stack).get(url).set(...bearer(who.accessToken)).expect(200)).body).toMatchObject({ code: 'diesel', name: 'Diesel fuel', version: 2 });
    const [{ n }] = await stack.admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'accounting.subaccount.configured' AND subject_id = :id",
      { replacements: { t: who.me.tenantId, id: created.id }, type: QueryTypes.SELECT },
    );
    expect(n).toBe(1);
  });

  test('when the company is archived, then 409 company-archived; another tenant gets 404', async () => {
    const who = await registerWorkspace(stack);
    const { body: created } = await create(who, '1040', { code: 'p1', name: 'Pump', enabled: true }).expect(201);
    const url = `${subaccountsOf(who, '1040')}/${created.id}`;
    await api(stack).put(url).set(...bearer(bob.accessToken)).send({ name: 'x', enabled: true, expectedVersion: 1 }).expect(404);
    await archiveCompany(stack, who.me.company.id);
    expect((await api(stack).put(url).set(...bearer(who.accessToken)).send({ name: 'x', enabled: true, expectedVersion: 1 }).expect(409)).body.type).toBe(
      '/problems/company-archived',
    );
  });

  test('100 concurrent saves with the same expectedVersion: exactly one 200, the rest 409', async () => {
    const who = await registerWorkspace(stack);
    const { body: created } = await create(who, '1050', { code: 'brick', name: 'Brick', enabled: true }).expect(201);
    const url = `${subaccountsOf(who, '1050')}/${created.id}`;
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => api(stack).put(url).set(...bearer(who.accessToken)).send({ name: `Brick ${i}`, enabled: true, expectedVersion: 1 })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(99);
  });
});
