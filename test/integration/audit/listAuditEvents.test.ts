import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { withTenant } from '../../../db/connection';

let stack: TestStack;
let who: Registered;
let other: Registered;

interface Seed {
  id?: string;
  at: string;
  action?: string;
  actor?: string | null;
  name?: string;
  system?: boolean;
  correlationId?: string;
  subjectType?: string;
  subjectId?: string;
  tenantId?: string;
}

/** Arranges an audit event at a chosen instant (INSERT is allowed; the table rejects UPDATE and DELETE). */
async function seed(e: Seed): Promise<string> {
  const id = e.id ?? randomUUID();
  await stack.admin.query(
    `INSERT INTO audit_events (tenant_id, id, occurred_at, action, category, actor_membership_id, actor_display_name, system_actor,
                               correlation_id, subject_type, subject_id, ip_address, details)
     VALUES (:tenantId, :id, :at, :action, 'TEST', :actor, :name, :system, :correlationId, :subjectType, :subjectId, '127.0.0.1', '')`,
    {
      replacements: {
        tenantId: e.tenantId ?? who.me.tenantId,
        id,
        at: e.at,
        action: e.action ?? 'accounting.account.configured',
        actor: e.actor === undefined ? who.me.membershipId : e.actor,
        name: e.name ?? 'someone',
        system: e.system ?? false,
        correlationId: e.correlationId ?? randomUUID(),
        subjectType: e.subjectType ?? 'COMPANY_ACCOUNT',
        subjectId: e.subjectId ?? randomUUID(),
      },
    },
  );
  return id;
}

async function list(query: Record<string, string | number | boolean> = {}, token = who.accessToken) {
  const res = await api(stack).get('/api/v1/audit-events').query(query).set(...bearer(token));
  if (res.status !== 200) throw new Error(`audit-events answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
const ids = (body: { items: Array<{ id: string }> }) => body.items.map((e) => e.id);

// 2025 is long before anything the tests do live, so windows there see seeded events only.
const early = '00000000-0000-4000-8000-00000000000a';
const late = '00000000-0000-4000-8000-00000000000b';
const subjectId = randomUUID();
const correlationId = randomUUID();
const systemMembership = null;

beforeAll(async () => {
  stack = await startTestStack();
  [who, other] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  // Tashkent is UTC+05:00 all year: local midnight of 2025-03-10 is 2025-03-09T19:00:00Z.
  await seed({ id: early, at: '2025-03-09T18:59:59.999Z', action: 'accounting.account.created' });
  await seed({ id: late, at: '2025-03-09T19:00:00Z', action: 'accounting.account.created', subjectId });
  await seed({ at: '2025-03-10T18:59:59.999Z', action: 'accounting.subaccount.created', correlationId, subjectType: 'COMPANY_SUBACCOUNT' });
  await seed({ at: '2025-03-10T19:00:00Z', action: 'auth.logout' });
  await seed({ at: '2025-03-10T12:00:00Z', action: 'rates.refreshed', actor: systemMembership, name: 'system', system: true });
  await seed({ at: '2025-03-10T12:00:00Z', tenantId: other.me.tenantId, actor: other.me.membershipId });
});
afterAll(async () => {
  await stack.stop();
});

describe('GET /audit-events (listAuditEvents)', () => {
  test('"newest first" for the caller\'s tenant only, by occurred_at then id, in a page envelope', async () => {
    const body = await list({ size: 100 });
    const times = body.items.map((e: { occurredAt: string }) => e.occurredAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(body.items.every((e: { actorMembershipId: string | null }) => e.actorMembershipId !== other.me.membershipId)).toBe(true);
    expect(body).toMatchObject({ page: 0, size: 100, totalElements: body.items.length, totalPages: 1 });
    expect(body.items[0].action).toBe('workspace.registered');
    const a = await seed({ id: '00000000-0000-4000-8000-0000000000c1', at: '2024-01-01T00:00:00Z' });
    const b = await seed({ id: '00000000-0000-4000-8000-0000000000c2', at: '2024-01-01T00:00:00Z' });
    expect(ids(await list({ from: '2024-01-01T00:00:00Z', to: '2024-01-02T00:00:00Z' }))).toEqual([b, a]);
  });

  test('every event says how it was recorded: RECORDED, with the catalogue label and no payload', async () => {
    const body = await list({ subjectId });
    expect(body.items).toEqual([
      {
        id: late,
        action: 'accounting.account.created',
        actionLabel: 'Company account created',
        category: 'TEST',
        actorDisplayName: 'someone',
        actorMembershipId: who.me.membershipId,
        systemActor: false,
        correlationId: expect.any(String),
        subjectType: 'COMPANY_ACCOUNT',
        subjectId,
        occurredAt: '2025-03-09T19:00:00.000Z',
        ipAddress: '127.0.0.1',
        details: '',
        deliveryState: 'RECORDED',
      },
    ]);
  });

  test('"a user cannot thread their events into someone else\'s operation": a client-sent X-Correlation-Id is never the events\' correlation id', async () => {
    const victim = randomUUID();
    const res = await api(stack)
      .post(`/api/v1/accounting-settings/${who.me.company.id}/accounts`)
      .set(...bearer(who.accessToken))
      .set('X-Correlation-Id', victim)
      .send({ code: '5161', name: 'Threaded account', type: 'ASSET', enabled: true })
      .expect(201);
    expect((await list({ correlationId: res.headers['x-correlation-id'] })).items.map((e: { action: string }) => e.action)).toEqual(['accounting.account.created']);
    expect(res.headers['x-correlation-id']).not.toBe(victim);
    expect(res.headers['x-client-correlation-id']).toBe(victim);
    expect((await list({ correlationId: victim })).items).toEqual([]);
  });

  test('a real mutation is listed with its actor, correlation id and subject, and without the request body', async () => {
    const saved = await api(stack)
      .put(`/api/v1/accounting-settings/${who.me.company.id}`)
      .set(...bearer(who.accessToken))
      .send({ depreciationMethod: 'STRAIGHT_LINE', inventoryValuationMethod: 'FIFO', taxRegime: 'GENERAL', vatRate: 15.75, expectedVersion: 0 })
      .expect(200);
    const [event] = (await list({ correlationId: saved.headers['x-correlation-id'] })).items;
    expect(event).toMatchObject({
      action: 'accounting.settings.saved',
      category: 'ACCOUNTING',
      actorMembershipId: who.me.membershipId,
      actorDisplayName: who.email.split('@')[0],
      systemActor: false,
      subjectType: 'ACCOUNTING_SETTINGS',
      subjectId: who.me.company.id,
      deliveryState: 'RECORDED',
    });
    expect(JSON.stringify(event)).not.toContain('15.75');
  });

  test.each<[string, () => Record<string, string | boolean>, number]>([
    ['subjectType', () => ({ subjectType: 'COMPANY_SUBACCOUNT' }), 1],
    ['action', () => ({ action: 'auth.logout' }), 1],
    ['subjectId', () => ({ subjectId }), 1],
    ['correlationId', () => ({ correlationId }), 1],
    // The seeded system event, and workspace.registered (written by registerWorkflow).
    ['systemActor=true', () => ({ systemActor: true }), 2],
    ['systemActor=true and a 2025 window', () => ({ systemActor: true, from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }), 1],
    ['actorMembershipId and a 2025 window', () => ({ actorMembershipId: who.me.membershipId, from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }), 4],
    ['systemActor=false and a 2025 window', () => ({ systemActor: false, from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }), 4],
  ])('filter %s', async (_name, query, expected) => {
    const body = await list(query());
    expect(body.totalElements).toBe(expected);
  });

  test('"from" is inclusive and "to" exclusive', async () => {
    expect(ids(await list({ from: '2025-03-09T19:00:00Z', to: '2025-03-09T19:00:00.001Z' }))).toEqual([late]);
    expect(ids(await list({ from: '2025-03-09T18:00:00Z', to: '2025-03-09T19:00:00Z' }))).toEqual([early]);
    expect(ids(await list({ from: '2025-03-09T19:00:00+05:00', to: '2025-03-10T00:00:00.000+05:00' }))).toEqual([early]);
  });

  test('dateFrom/dateTo are inclusive calendar days in Asia/Tashkent by default', async () => {
    const day = await list({ dateFrom: '2025-03-10', dateTo: '2025-03-10' });
    expect(day.totalElements).toBe(3); // local 00:00:00 … 23:59:59.999; not the 18:59:59.999Z before, not the 19:00Z after
    expect(ids(day)).toContain(late);
    expect(ids(day)).not.toContain(early);
    expect((await list({ dateFrom: '2025-03-10', dateTo: '2025-03-11' })).totalElements).toBe(4);
    expect((await list({ dateTo: '2025-03-09' })).items.map((e: { id: string }) => e.id)).toContain(early);
    expect(ids(await list({ dateTo: '2025-03-09', dateFrom: '2025-03-09' }))).toEqual([early]);
  });

  test('another zone moves the day: UTC, and a 23-hour DST day in America/New_York', async () => {
    expect((await list({ dateFrom: '2025-03-10', dateTo: '2025-03-10', timezone: 'UTC' })).totalElements).toBe(3);
    // 2025-03-09 in New York: 05:00Z to 04:00Z next day (clocks spring forward).
    expect(ids(await list({ dateFrom: '2025-03-09', dateTo: '2025-03-09', timezone: 'America/New_York' }))).toEqual([late, early]);
  });

  test.each<[string, Record<string, string>]>([
    ['dateFrom with from', { dateFrom: '2025-03-10', from: '2025-03-10T00:00:00Z' }],
    ['dateTo with to', { dateTo: '2025-03-10', to: '2025-03-10T00:00:00Z' }],
    ['dateFrom with to', { dateFrom: '2025-03-10', to: '2025-03-11T00:00:00Z' }],
    ['dateFrom after dateTo', { dateFrom: '2025-03-11', dateTo: '2025-03-10' }],
    ['an unknown timezone', { timezone: 'Mars/Olympus_Mons' }],
    ['a timezone of the wrong case', { timezone: 'asia/tashkent' }],
    ['an impossible date', { dateFrom: '2025-02-30' }],
    ['a date-time for a date', { dateFrom: '2025-03-10T00:00:00Z' }],
    ['a malformed from', { from: 'yesterday' }],
    ['a non-uuid actor', { actorMembershipId: 'me' }],
    ['size 101', { size: '101' }],
  ])('when the query has %s, then 400 validation', async (_name, query) => {
    const res = await api(stack).get('/api/v1/audit-events').query(query).set(...bearer(who.accessToken)).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });

  test('paging splits the newest-first order', async () => {
    const all = ids(await list({ from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }));
    const pages = [0, 1, 2].map((page) => list({ from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z', size: 2, page }));
    const got = (await Promise.all(pages)).flatMap(ids);
    expect(got).toEqual(all);
    expect((await pages[0]).totalPages).toBe(3);
  });
});

describe('audit events are immutable', () => {
  test('the application role can neither UPDATE nor DELETE them', async () => {
    await expect(
      withTenant(stack.db, who.me.tenantId, (tx) => stack.db.query("UPDATE audit_events SET details = 'edited'", { transaction: tx })),
    ).rejects.toThrow(/permission denied|append-only/);
    await expect(withTenant(stack.db, who.me.tenantId, (tx) => stack.db.query('DELETE FROM audit_events', { transaction: tx }))).rejects.toThrow(
      /permission denied|append-only/,
    );
    expect((await list({ subjectId })).items[0].details).toBe('');
  });
});

describe('GET /audit-events/actions (listAuditActions)', () => {
  test('lists the one catalogue, by category then code', async () => {
    const res = await api(stack).get('/api/v1/audit-events/actions').set(...bearer(who.accessToken)).expect(200);
    expect(res.body).toEqual(expect.arrayContaining([
      { category: 'ACCOUNTING', code: 'accounting.account.created', label: 'Company account created' },
      { category: 'ACCOUNTING', code: 'accounting.settings.saved', label: 'Accounting settings saved' },
      { category: 'AUTHENTICATION', code: 'auth.logout', label: 'Logged out' },
      { category: 'WORKSPACE', code: 'workspace.registered', label: 'Workspace registered' },
    ]));
    const keys = res.body.map((o: { category: string; code: string }) => `${o.category} ${o.code}`);
    expect(keys).toEqual([...keys].sort());
  });
});
