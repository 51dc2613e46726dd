import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings } from '../../helpers/invoices';
import { withTenant } from '../../../db/connection';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

function assetsApi(who: Registered) {
  const base = `/api/v1/fixed-assets/${who.me.company.id}`;
  const auth = bearer(who.accessToken);
  return {
    list: (query: Record<string, string> = {}) => api(stack).get(base).query(query).set(...auth),
    create: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send(body),
    get: (id: string) => api(stack).get(`${base}/${id}`).set(...auth),
    update: (id: string, body: Record<string, unknown>) => api(stack).put(`${base}/${id}`).set(...auth).send(body),
    commission: (id: string, body: Record<string, unknown>) => api(stack).post(`${base}/${id}/commissioning`).set(...auth).send(body),
    schedule: (id: string, query: Record<string, string> = {}) => api(stack).get(`${base}/${id}/schedule`).query(query).set(...auth),
  };
}

const LAPTOP = { inventoryNumber: 'IT-001', name: 'Laptop', assetAccount: '0150', cost: '12000000', usefulLifeMonths: 60 };

describe('fixed assets: the register', () => {
  test('a draft registered with the chart\'s defaults, its monthly charge, its audit event; changed at its version; listed by status', async () => {
    const who = await registerWorkspace(stack);
    const assets = assetsApi(who);
    const created = (await assets.create(LAPTOP).expect(201)).body;
    expect(created).toMatchObject({
      inventoryNumber: 'IT-001',
      assetAccount: '0150',
      depreciationAccount: '0250',
      expenseAccount: '9420',
      sourceAccount: '0820',
      cost: '12000000.00',
      salvageValue: '0.00',
      usefulLifeMonths: 60,
      monthlyCharge: '200000.00',
      status: 'DRAFT',
      commissionedOn: null,
      depreciatedThrough: null,
      accumulatedDepreciation: '0.00',
      netBookValue: '12000000.00',
      version: 1,
    });
    expect((await assets.get(created.id).expect(200)).body).toEqual(created);
    const [event] = await stack.admin.query<{ actor_membership_id: string; details: string }>(
      "SELECT actor_membership_id, details FROM audit_events WHERE tenant_id = :t AND action = 'fixed-asset.created'",
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(event).toEqual({ actor_membership_id: who.me.membershipId, details: 'IT-001 "Laptop": cost 12000000.00 on 0150, 60 months' });

    const changed = (await assets.update(created.id, { ...LAPTOP, name: '  Laptop, 16 GB  ', cost: '1000', usefulLifeMonths: 3, salvageValue: '0', expectedVersion: 1 }).expect(200)).body;
    expect(changed).toMatchObject({ name: 'Laptop, 16 GB', cost: '1000.00', monthlyCharge: '333.33', version: 2 });
    expect((await assets.update(created.id, { ...LAPTOP, expectedVersion: 1 }).expect(409)).body.type).toBe('/problems/stale-version');
    await assets.create({ ...LAPTOP, inventoryNumber: 'IT-002' }).expect(201);
    expect((await assets.list().expect(200)).body.items.map((a: { inventoryNumber: string }) => a.inventoryNumber)).toEqual(['IT-001', 'IT-002']);
    expect((await assets.list({ status: 'IN_SERVICE' }).expect(200)).body.totalElements).toBe(0);
  });

  test('bad registrations are refused at their field and store nothing', async () => {
    const who = await registerWorkspace(stack);
    const assets = assetsApi(who);
    const refused = async (body: Record<string, unknown>, status: number, type: string, path?: string) => {
      const res = await assets.create(body).expect(status);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.type).toBe(`/problems/${type}`);
      if (path) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    };
    await refused({ ...LAPTOP, assetAccount: '0110' }, 400, 'validation', '/body/assetAccount');
    await refused({ ...LAPTOP, assetAccount: '0510' }, 400, 'validation', '/body/assetAccount');
    await refused({ ...LAPTOP, salvageValue: '12000000.01' }, 400, 'validation', '/body/salvageValue');
    await refused({ ...LAPTOP, cost: '0' }, 400, 'validation', '/body/cost');
    await refused({ ...LAPTOP, cost: '1.005' }, 400, 'validation');
    await refused({ ...LAPTOP, usefulLifeMonths: 0 }, 400, 'validation');
    await refused({ ...LAPTOP, expenseAccount: '9999' }, 400, 'unknown-account', '/body/expenseAccount');
    await refused({ ...LAPTOP, expenseAccount: '9400' }, 400, 'header-account', '/body/expenseAccount');
    await refused({ ...LAPTOP, colour: 'grey' }, 400, 'validation');
    expect((await assets.list().expect(200)).body.totalElements).toBe(0);
    await assets.create(LAPTOP).expect(201);
    const taken = await assets.create({ ...LAPTOP, name: 'Another' }).expect(409);
    expect(taken.body).toMatchObject({ type: '/problems/inventory-number-exists', inventoryNumber: 'IT-001' });
    // Another company's asset is not there.
    const other = await registerWorkspace(stack);
    const mine = (await assets.list().expect(200)).body.items[0];
    await api(stack).get(`/api/v1/fixed-assets/${other.me.company.id}/${mine.id}`).set(...bearer(other.accessToken)).expect(404);
  });

  test('commissioning posts Dr the asset account / Cr the source for the cost in the same commit; the figures are frozen after, in the database too; the schedule starts the month after', async () => {
    const who = await registerWorkspace(stack);
    const assets = assetsApi(who);
    const asset = (await assets.create({ ...LAPTOP, cost: '1000.00', usefulLifeMonths: 3 }).expect(201)).body;
    // A draft's schedule is a preview from the date asked for.
    const preview = (await assets.schedule(asset.id, { commissionedOn: '2026-01-31' }).expect(200)).body;
    expect(preview).toMatchObject({ status: 'DRAFT', commissionedOn: '2026-01-31', monthlyCharge: '333.33' });
    expect(preview.months.map((m: Record<string, unknown>) => [m.month, m.date, m.charge, m.netBookValue, m.charged])).toEqual([
      ['2026-02', '2026-02-28', '333.33', '666.67', false],
      ['2026-03', '2026-03-31', '333.33', '333.34', false],
      ['2026-04', '2026-04-30', '333.34', '0.00', false],
    ]);
    expect((await assets.commission(asset.id, { date: '2026-01-31', expectedVersion: 9 }).expect(409)).body.type).toBe('/problems/stale-version');

    const inService = (await assets.commission(asset.id, { date: '2026-01-31', expectedVersion: 1 }).expect(200)).body;
    expect(inService).toMatchObject({ status: 'IN_SERVICE', commissionedOn: '2026-01-31', commissioningEntryId: expect.any(String), version: 2 });
    const entry = (await ledgerApi(stack, who).get(inService.commissioningEntryId).expect(200)).body;
    expect(entry).toMatchObject({ entryDate: '2026-01-31', source: { type: 'FIXED_ASSET', id: asset.id }, reference: 'IT-001', postedByMembershipId: who.me.membershipId });
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['0150', '1000.00', '0.00'],
      ['0820', '0.00', '1000.00'],
    ]);
    expect((await assets.schedule(asset.id, { commissionedOn: '2030-01-01' }).expect(200)).body.months[0].month).toBe('2026-02');

    expect((await assets.commission(asset.id, { date: '2026-02-01', expectedVersion: 2 }).expect(409)).body).toMatchObject({ type: '/problems/document-state', documentStatus: 'IN_SERVICE' });
    expect((await assets.update(asset.id, { ...LAPTOP, expectedVersion: 2 }).expect(409)).body.type).toBe('/problems/document-state');
    // The database keeps the figures too, whoever writes.
    await expect(
      withTenant(stack.db, who.me.tenantId, (tx) => stack.db.query("UPDATE fixed_assets SET cost = 2000 WHERE tenant_id = :t", { replacements: { t: who.me.tenantId }, transaction: tx })),
    ).rejects.toThrow(/document-frozen/);
    const entries = await stack.admin.query<{ n: number }>("SELECT count(*)::int AS n FROM journal_entries WHERE tenant_id = :t AND source_type = 'FIXED_ASSET'", {
      replacements: { t: who.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(entries).toEqual([{ n: 1 }]);
  });
});

describe('fixed assets: the purchase a cost comes from', () => {
  test('an asset names a line of a posted purchase on 0820: its cost the line\'s net in UZS, its source account the line\'s; one asset per line; the purchase cannot be cancelled under it', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const assets = assetsApi(who);
    const invoices = invoicesApi(stack, who);
    const supplier = await aCounterparty(stack, who);
    const lines = [
      { description: 'Laptop Dell Latitude', quantity: '2', unitPrice: '6000000.00', account: '0820' },
      { description: 'Paper', quantity: '10', unitPrice: '50000.00', account: '1010' },
    ];
    const purchase = (await invoices.create(purchaseBody(supplier, '2026-02-05', 'INV-77', { lines })).expect(201)).body as { id: string };
    const source = { invoiceId: purchase.id, lineNo: 1 };
    const fromLine = { inventoryNumber: 'IT-010', name: 'Laptops', assetAccount: '0150', usefulLifeMonths: 36, sourceInvoiceLine: source };
    // A draft purchase is not a cost yet.
    expect((await assets.create(fromLine).expect(409)).body).toMatchObject({ type: '/problems/document-state' });
    await invoices.post(purchase.id).expect(200);

    const created = (await assets.create(fromLine).expect(201)).body;
    expect(created).toMatchObject({ cost: '12000000.00', sourceAccount: '0820', sourceInvoiceLine: source, status: 'DRAFT' });
    // One asset per line; the paper's line is no capital investment; a line that is not there; another source account.
    expect((await assets.create({ ...fromLine, inventoryNumber: 'IT-011' }).expect(409)).body.type).toBe('/problems/conflict');
    const paper = (await assets.create({ ...fromLine, inventoryNumber: 'IT-012', sourceInvoiceLine: { invoiceId: purchase.id, lineNo: 2 } }).expect(400)).body;
    expect(paper).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/sourceInvoiceLine' }] });
    expect(paper.errors[0].message).toContain('1010');
    await assets.create({ ...fromLine, inventoryNumber: 'IT-013', sourceInvoiceLine: { invoiceId: purchase.id, lineNo: 3 } }).expect(400);
    expect((await assets.create({ ...fromLine, inventoryNumber: 'IT-014', sourceAccount: '0810', sourceInvoiceLine: source }).expect(400)).body.errors[0].path).toBe('/body/sourceAccount');
    // Without a line, a cost is required.
    expect((await assets.create({ ...LAPTOP, cost: undefined }).expect(400)).body.errors[0].path).toBe('/body/cost');
    // A cost given with the line stands (delivery and installation capitalised too).
    const replaced = (await assets.update(created.id, { ...fromLine, cost: '12300000.00', expectedVersion: 1 }).expect(200)).body;
    expect(replaced).toMatchObject({ cost: '12300000.00', sourceInvoiceLine: source, version: 2 });

    // The purchase cannot be cancelled while an asset comes from it.
    const refused = (await invoices.cancel(purchase.id, { requestId: crypto.randomUUID(), date: '2026-02-10', reason: 'wrong supplier' }).expect(409)).body;
    expect(refused.type).toBe('/problems/document-state');
    expect(refused.detail).toContain('line 1 is the cost of fixed asset IT-010');

    // Commissioning credits the line's account for the cost: the purchase's 12 000 000.00 and 300 000.00 capitalised besides.
    await assets.commission(created.id, { date: '2026-02-20', expectedVersion: 2 }).expect(200);
    const tb = (await ledgerApi(stack, who).trialBalance('2026-02-28').expect(200)).body as { lines: Array<{ code: string; debit: string; credit: string }> };
    expect(tb.lines.filter((l) => ['0150', '0820'].includes(l.code)).map((l) => [l.code, l.debit, l.credit])).toEqual([
      ['0150', '12300000.00', '0.00'],
      ['0820', '12000000.00', '12300000.00'],
    ]);
  });
});
