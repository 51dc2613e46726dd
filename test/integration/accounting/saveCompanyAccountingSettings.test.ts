import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import { withShortLockWaits } from '../../helpers/schema-changes';

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

const settingsOf = (who: Registered) => `/api/v1/accounting-settings/${who.me.company.id}`;
const body = (over: Record<string, unknown> = {}) => ({
  depreciationMethod: 'STRAIGHT_LINE',
  inventoryValuationMethod: 'FIFO',
  taxRegime: 'GENERAL',
  vatRate: 12,
  expectedVersion: 0,
  ...over,
});

/** Sends the body text as written, so number literals reach the server unchanged. */
const putRaw = (who: Registered, json: string) =>
  api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).set('Content-Type', 'application/json').send(json);

async function count(sql: string, replacements: Record<string, unknown>): Promise<number> {
  const [{ n }] = await stack.admin.query<{ n: number }>(sql, { replacements, type: QueryTypes.SELECT });
  return n;
}

describe('GET /accounting-options (getAccountingOptions)', () => {
  test('lists the six account types and the allowed settings values', async () => {
    const res = await api(stack).get('/api/v1/accounting-options').set(...bearer(alice.accessToken)).expect(200);
    expect(res.body).toEqual({
      accountTypes: ['ASSET', 'CONTRA_ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE'],
      depreciationMethods: ['STRAIGHT_LINE'],
      inventoryValuationMethods: ['FIFO'],
      taxRegimes: ['GENERAL', 'SIMPLIFIED'],
    });
  });
});

describe('GET /accounting-settings/{legalEntityId} (getCompanyAccountingSettings)', () => {
  test('"before first save: FIFO, STRAIGHT_LINE, null taxRegime and vatRate, version 0"', async () => {
    const res = await api(stack).get(settingsOf(bob)).set(...bearer(bob.accessToken)).expect(200);
    expect(res.body).toEqual({
      legalEntityId: bob.me.company.id,
      depreciationMethod: 'STRAIGHT_LINE',
      inventoryValuationMethod: 'FIFO',
      taxRegime: null,
      vatRate: null,
      requireCounterpartyOnSettlements: false,
      version: 0,
    });
  });

  test("another tenant's or an unknown company is 404", async () => {
    await api(stack).get(settingsOf(bob)).set(...bearer(alice.accessToken)).expect(404);
    await api(stack).get('/api/v1/accounting-settings/00000000-0000-4000-8000-000000000000').set(...bearer(alice.accessToken)).expect(404);
  });
});

describe('PUT /accounting-settings/{legalEntityId} (saveCompanyAccountingSettings)', () => {
  test('the first save (expectedVersion 0) gives version 1; the next needs 1; the settings and one audit event commit together', async () => {
    const who = await registerWorkspace(stack);
    const saved = await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body({ vatRate: 12.5, taxRegime: 'SIMPLIFIED' })).expect(200);
    expect(saved.body).toEqual({
      legalEntityId: who.me.company.id,
      depreciationMethod: 'STRAIGHT_LINE',
      inventoryValuationMethod: 'FIFO',
      taxRegime: 'SIMPLIFIED',
      vatRate: 12.5,
      requireCounterpartyOnSettlements: false,
      version: 1,
    });
    expect((await api(stack).get(settingsOf(who)).set(...bearer(who.accessToken)).expect(200)).body).toEqual(saved.body);
    const again = await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body({ vatRate: 0, expectedVersion: 1 })).expect(200);
    expect(again.body).toMatchObject({ vatRate: 0, taxRegime: 'GENERAL', version: 2 });
    expect(
      await count("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'accounting.settings.saved' AND subject_id = :le", {
        t: who.me.tenantId,
        le: who.me.company.id,
      }),
    ).toBe(2);
  });

  test('a stale expectedVersion is 409 stale-version and changes nothing', async () => {
    const who = await registerWorkspace(stack);
    await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body()).expect(200);
    for (const expectedVersion of [0, 2, 99]) {
      const res = await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body({ vatRate: 20, expectedVersion })).expect(409);
      expect(res.body.type).toBe('/problems/stale-version');
    }
    expect((await api(stack).get(settingsOf(who)).set(...bearer(who.accessToken)).expect(200)).body).toMatchObject({ vatRate: 12, version: 1 });
  });

  test.each(['0', '100', '12', '12.5', '12.34', '0.01', '99.99', '12.30', '12.300', '1.25e1'])('vatRate %s is accepted', async (literal) => {
    const who = await registerWorkspace(stack);
    const json = JSON.stringify(body()).replace('"vatRate":12', `"vatRate":${literal}`);
    const res = await putRaw(who, json).expect(200);
    expect(res.body.vatRate).toBe(Number(literal));
  });

  test.each(['12.345', '12.3400000000000001', '0.001', '-0.01', '100.01', '101', '1e-7', '100.000000000000000001', '"12"', 'null'])(
    'vatRate %s is 400 validation, never rounded',
    async (literal) => {
      const json = JSON.stringify(body()).replace('"vatRate":12', `"vatRate":${literal}`);
      const res = await putRaw(alice, json).expect(400);
      expect(res.body.type).toBe('/problems/validation');
    },
  );

  test('a repeated vatRate member is judged by the value JSON keeps (the last)', async () => {
    await putRaw(alice, '{"vatRate":12,"depreciationMethod":"STRAIGHT_LINE","inventoryValuationMethod":"FIFO","taxRegime":"GENERAL","expectedVersion":0,"vatRate":12.345}').expect(400);
  });

  test.each([
    ['no taxRegime', { taxRegime: undefined }],
    ['no expectedVersion', { expectedVersion: undefined }],
    ['no depreciationMethod', { depreciationMethod: undefined }],
    ['no inventoryValuationMethod', { inventoryValuationMethod: undefined }],
    ['no vatRate', { vatRate: undefined }],
    ['taxRegime MIXED', { taxRegime: 'MIXED' }],
    ['depreciationMethod DECLINING_BALANCE', { depreciationMethod: 'DECLINING_BALANCE' }],
    ['inventoryValuationMethod AVERAGE', { inventoryValuationMethod: 'AVERAGE' }],
    ['a negative expectedVersion', { expectedVersion: -1 }],
    ['an unknown field', { currency: 'UZS' }],
  ])('when the body has %s, then 400 validation', async (_name, over) => {
    const res = await api(stack).put(settingsOf(alice)).set(...bearer(alice.accessToken)).send(body(over)).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });

  test('when the company is archived, then 409 company-archived and nothing is saved', async () => {
    const who = await registerWorkspace(stack);
    await archiveCompany(stack, who.me.company.id);
    const res = await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body()).expect(409);
    expect(res.body.type).toBe('/problems/company-archived');
    expect((await api(stack).get(settingsOf(who)).set(...bearer(who.accessToken)).expect(200)).body.version).toBe(0);
  });

  test("when the company is another tenant's, then 404 and its settings stay unsaved", async () => {
    await api(stack).put(settingsOf(bob)).set(...bearer(alice.accessToken)).send(body()).expect(404);
    expect((await api(stack).get(settingsOf(bob)).set(...bearer(bob.accessToken)).expect(200)).body.version).toBe(0);
  });

  test('100 concurrent PUTs with the same expectedVersion: exactly one 200, the rest 409, one audit event', async () => {
    const who = await registerWorkspace(stack);
    await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body()).expect(200);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body({ vatRate: i, expectedVersion: 1 }))),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(99);
    const winner = results.find((r) => r.status === 200)!.body;
    expect((await api(stack).get(settingsOf(who)).set(...bearer(who.accessToken)).expect(200)).body).toEqual(winner);
    expect(
      await count("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'accounting.settings.saved'", { t: who.me.tenantId }),
    ).toBe(2);
  });
});

describe('"mutation and actor audit commit together"', () => {
  // A deferred constraint trigger fails the commit itself, after both the mutation row and its audit
  // event were written: if they were not in one transaction, one of them would survive.
  async function failCommitsOf(table: string, tenantId: string): Promise<() => Promise<void>> {
    const fn = `fail_commit_${table}`;
    await withShortLockWaits(stack.admin, (transaction) =>
      stack.admin.query(
        `
      CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.tenant_id = '${tenantId}' THEN RAISE EXCEPTION 'injected failure at commit'; END IF;
        RETURN NEW;
      END $$;
      CREATE CONSTRAINT TRIGGER ${fn} AFTER INSERT OR UPDATE ON ${table}
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${fn}();
    `,
        { transaction },
      ),
    );
    return async () => {
      await withShortLockWaits(stack.admin, (transaction) => stack.admin.query(`DROP TRIGGER ${fn} ON ${table}; DROP FUNCTION ${fn}();`, { transaction }));
    };
  }

  test('a settings save that fails at commit leaves neither settings nor an audit event', async () => {
    const who = await registerWorkspace(stack);
    const restore = await failCommitsOf('company_accounting_settings', who.me.tenantId);
    try {
      const res = await api(stack).put(settingsOf(who)).set(...bearer(who.accessToken)).send(body()).expect(500);
      expect(res.body.type).toBe('/problems/internal');
    } finally {
      await restore();
    }
    expect(await count('SELECT count(*)::int AS n FROM company_accounting_settings WHERE tenant_id = :t', { t: who.me.tenantId })).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action LIKE 'accounting.%'", { t: who.me.tenantId })).toBe(0);
  });

  test('an account creation that fails at commit leaves neither the account nor an audit event', async () => {
    const who = await registerWorkspace(stack);
    const restore = await failCommitsOf('company_accounts', who.me.tenantId);
    try {
      await api(stack).post(`${settingsOf(who)}/accounts`).set(...bearer(who.accessToken)).send({ code: '0198', name: 'x', type: 'ASSET', enabled: true }).expect(500);
      await api(stack).put(`${settingsOf(who)}/accounts/0110`).set(...bearer(who.accessToken)).send({ name: 'x', enabled: true, expectedVersion: 0 }).expect(500);
    } finally {
      await restore();
    }
    expect(await count('SELECT count(*)::int AS n FROM company_accounts WHERE tenant_id = :t', { t: who.me.tenantId })).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action LIKE 'accounting.%'", { t: who.me.tenantId })).toBe(0);
  });

  test('a subaccount creation that fails at commit leaves neither the subaccount nor an audit event', async () => {
    const who = await registerWorkspace(stack);
    const restore = await failCommitsOf('company_subaccounts', who.me.tenantId);
    try {
      await api(stack).post(`${settingsOf(who)}/accounts/5110/subaccounts`).set(...bearer(who.accessToken)).send({ code: 'x', name: 'x', enabled: true }).expect(500);
    } finally {
      await restore();
    }
    expect(await count('SELECT count(*)::int AS n FROM company_subaccounts WHERE tenant_id = :t', { t: who.me.tenantId })).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action LIKE 'accounting.%'", { t: who.me.tenantId })).toBe(0);
  });
});
