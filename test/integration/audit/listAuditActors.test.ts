import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';

let stack: TestStack;
let who: Registered;
let other: Registered;

async function seed(e: { at: string; action: string; actor: string | null; name: string; system?: boolean; tenantId?: string }): Promise<void> {
  await stack.admin.query(
    `INSERT INTO audit_events (tenant_id, id, occurred_at, action, category, actor_membership_id, actor_display_name, system_actor,
                               correlation_id, subject_type, subject_id, details)
     VALUES (:tenantId, gen_random_uuid(), :at, :action, 'TEST', :actor, :name, :system, gen_random_uuid(), 'TEST', gen_random_uuid(), '')`,
    { replacements: { tenantId: e.tenantId ?? who.me.tenantId, system: e.system ?? false, ...e } },
  );
}

const [m1, m2, m3, m4]: string[] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];

beforeAll(async () => {
  stack = await startTestStack();
  [who, other] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  // Byte order of names: "Zed" < "alice" < "bob_1" < "Émile"; a locale would put them a, b, É, Z.
  await seed({ at: '2025-06-01T10:00:00Z', action: 'accounting.account.created', actor: m1, name: 'alice' });
  await seed({ at: '2025-06-01T11:00:00Z', action: 'accounting.account.configured', actor: m1, name: 'alice' });
  await seed({ at: '2025-06-01T12:00:00Z', action: 'accounting.subaccount.configured', actor: m2, name: 'old name' });
  await seed({ at: '2025-06-02T12:00:00Z', action: 'accounting.settings.saved', actor: m2, name: 'bob_1' });
  await seed({ at: '2025-06-01T13:00:00Z', action: 'auth.logout', actor: m3, name: 'Zed' });
  await seed({ at: '2025-06-01T14:00:00Z', action: 'auth.login.succeeded', actor: m4, name: 'Émile' });
  await seed({ at: '2025-06-01T15:00:00Z', action: 'rates.refreshed', actor: null, name: 'system', system: true });
  await seed({ at: '2025-06-01T10:30:00Z', action: 'accounting.account.created', actor: randomUUID(), name: 'stranger', tenantId: other.me.tenantId });
});
afterAll(async () => {
  await stack.stop();
});

const actors = async (query: Record<string, string | number> = {}) =>
  (await api(stack).get('/api/v1/audit-events/actors').query(query).set(...bearer(who.accessToken)).expect(200)).body;

describe('GET /audit-events/actors (listAuditActors)', () => {
  test("the tenant's distinct human actors, each once with its newest name, in byte order of names", async () => {
    const body = await actors({ size: 100 });
    const seeded = body.items.filter((a: { membershipId: string }) => [m1, m2, m3, m4].includes(a.membershipId));
    expect(seeded).toEqual([
      { displayName: 'Zed', membershipId: m3 },
      { displayName: 'alice', membershipId: m1 },
      { displayName: 'bob_1', membershipId: m2 },
      { displayName: 'Émile', membershipId: m4 },
    ]);
    expect(body.items.map((a: { displayName: string }) => a.displayName)).not.toContain('stranger');
    expect(body.items.map((a: { displayName: string }) => a.displayName)).not.toContain('system');
    // The registering admin is an actor too (workspace.registered).
    expect(body.items.map((a: { membershipId: string }) => a.membershipId)).toContain(who.me.membershipId);
    expect(body).toMatchObject({ page: 0, size: 100, totalElements: 5, totalPages: 1 });
  });

  test('"q" is a literal, case-insensitive search of the name', async () => {
    expect((await actors({ q: 'ALI' })).items).toEqual([{ displayName: 'alice', membershipId: m1 }]);
    expect((await actors({ q: '_' })).items).toEqual([{ displayName: 'bob_1', membershipId: m2 }]);
    expect((await actors({ q: '%' })).items).toEqual([]);
  });

  test('pages', async () => {
    const first = await actors({ size: 2, page: 0 });
    expect(first).toMatchObject({ size: 2, totalElements: 5, totalPages: 3 });
    expect(first.items).toHaveLength(2);
    expect((await actors({ size: 2, page: 2 })).items).toHaveLength(1);
  });
});

describe('GET /audit-events/statistics (getAuditStatistics)', () => {
  test('counts one day in Asia/Tashkent by default, bucketed by the catalogue kind', async () => {
    const res = await api(stack).get('/api/v1/audit-events/statistics').query({ date: '2025-06-01' }).set(...bearer(who.accessToken)).expect(200);
    expect(res.body).toEqual({
      date: '2025-06-01',
      timezone: 'Asia/Tashkent',
      totalActions: 6, // 2025-06-02T12:00Z is 17:00 of the next day in Tashkent
      createdRecords: 1,
      updatedRecords: 2,
      deletedRecords: 0,
      otherActions: 3, // logout, login, and an action the catalogue does not know
    });
  });

  test('another zone moves the day boundary', async () => {
    // In Tashkent 2025-06-02 holds only the 12:00Z settings save; in Pacific time 2025-06-01 runs 07:00Z to 07:00Z.
    const tashkent = await api(stack).get('/api/v1/audit-events/statistics').query({ date: '2025-06-02' }).set(...bearer(who.accessToken)).expect(200);
    expect(tashkent.body).toMatchObject({ totalActions: 1, updatedRecords: 1 });
    const pacific = await api(stack)
      .get('/api/v1/audit-events/statistics')
      .query({ date: '2025-06-01', timezone: 'America/Los_Angeles' })
      .set(...bearer(who.accessToken))
      .expect(200);
    expect(pacific.body).toMatchObject({ timezone: 'America/Los_Angeles', totalActions: 6, createdRecords: 1, updatedRecords: 2 });
  });

  test('without a date, today in the zone (the workspace registration is counted)', async () => {
    const res = await api(stack).get('/api/v1/audit-events/statistics').query({ timezone: 'UTC' }).set(...bearer(who.accessToken)).expect(200);
    expect(res.body.date).toBe(new Date().toISOString().slice(0, 10));
    expect(res.body.createdRecords).toBeGreaterThanOrEqual(1);
  });

  test.each([
    ['an unknown timezone', { timezone: 'Nowhere/Atlantis' }],
    ['an impossible date', { date: '2025-02-29' }],
    ['a malformed date', { date: '01.06.2025' }],
  ])('when the query has %s, then 400 validation', async (_name, query) => {
    const res = await api(stack).get('/api/v1/audit-events/statistics').query(query).set(...bearer(who.accessToken)).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });
});

describe('IANA zone names in the query', () => {
  test('when the zone\'s slash is sent unencoded (timezone=Asia/Tashkent), then it is read like the encoded form', async () => {
    const raw = await api(stack).get('/api/v1/audit-events/statistics?date=2025-06-01&timezone=Asia/Tashkent').set(...bearer(who.accessToken)).expect(200);
    const encoded = await api(stack).get('/api/v1/audit-events/statistics?date=2025-06-01&timezone=Asia%2FTashkent').set(...bearer(who.accessToken)).expect(200);
    expect(raw.body).toEqual(encoded.body);
    expect(raw.body.timezone).toBe('Asia/Tashkent');
  });
});
