import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { allEntries, ledgerApi, waitForClose } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, salesBody, saveTaxSettings } from '../../helpers/invoices';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

async function commissioned(who: Registered, body: Record<string, unknown>, date: string): Promise<string> {
  const base = `/api/v1/fixed-assets/${who.me.company.id}`;
  const created = (await api(stack).post(base).set(...bearer(who.accessToken)).send(body).expect(201)).body;
  await api(stack).post(`${base}/${created.id}/commissioning`).set(...bearer(who.accessToken)).send({ date, expectedVersion: 1 }).expect(200);
  return created.id as string;
}

const register = (who: Registered, asOf: string, page = {}) =>
  api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/fixed-assets`).query({ asOf, ...page }).set(...bearer(who.accessToken)).expect(200);

const asset = (who: Registered, id: string) => api(stack).get(`/api/v1/fixed-assets/${who.me.company.id}/${id}`).set(...bearer(who.accessToken)).expect(200).then((r) => r.body);

/** The balance (credit − debit) of each 02xx account and the register's accumulated depreciation, from the database. */
async function ties(who: Registered) {
  const [ledger] = await stack.admin.query<{ credit: string }>(
    "SELECT coalesce(sum(credit - debit), 0)::numeric(20, 2)::text AS credit FROM journal_lines WHERE tenant_id = :t AND account_code LIKE '02%'",
    { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
  );
  const [register] = await stack.admin.query<{ accumulated: string }>(
    'SELECT coalesce(sum(accumulated_depreciation), 0)::numeric(20, 2)::text AS accumulated FROM fixed_assets WHERE tenant_id = :t',
    { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
  );
  return { ledger: ledger!.credit, register: register!.accumulated };
}

describe('depreciation at the period close', () => {
  test('a quarter\'s first close charges each month since commissioning, one DEPRECIATION entry per month dated its last day; the next close the last month\'s rounding; a repeated close nothing; the register ties to 02xx', async () => {
    const who = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, who);
    const small = await commissioned(who, { inventoryNumber: 'A-1', name: 'Chair', assetAccount: '0140', cost: '1000.00', usefulLifeMonths: 3 }, '2026-01-10');
    const laptop = await commissioned(who, { inventoryNumber: 'A-2', name: 'Laptop', assetAccount: '0150', cost: '12000000', usefulLifeMonths: 60, expenseAccount: '9410' }, '2026-01-31');
    // Commissioned in the quarter's last month: charged from April.
    const late = await commissioned(who, { inventoryNumber: 'A-3', name: 'Van', assetAccount: '0160', cost: '60000000', salvageValue: '6000000', usefulLifeMonths: 36 }, '2026-03-15');

    const first = await ledger.close('2026-03-31').expect(202);
    expect((await waitForClose(ledger, first.body.id)).status).toBe('COMPLETED');
    const depreciation = (await allEntries(ledger)).filter((e) => e.kind === 'DEPRECIATION');
    expect(depreciation.map((e) => e.entryDate)).toEqual(['2026-02-28', '2026-03-31']);
    for (const entry of depreciation) {
      const full = (await ledger.get(entry.id).expect(200)).body;
      // A debit per expense account, then a credit per asset.
      expect(full.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.memo])).toEqual([
        ['9410', '200000.00', '0.00', 'Depreciation charge'],
        ['9420', '333.33', '0.00', 'Depreciation charge'],
        ['0240', '0.00', '333.33', 'A-1 Chair'],
        ['0250', '0.00', '200000.00', 'A-2 Laptop'],
      ]);
      expect(full).toMatchObject({ kind: 'DEPRECIATION', postedByMembershipId: null, totalDebit: '200333.33' });
    }
    expect(await asset(who, small)).toMatchObject({ status: 'IN_SERVICE', depreciatedThrough: '2026-03', accumulatedDepreciation: '666.66', netBookValue: '333.34' });
    expect(await asset(who, laptop)).toMatchObject({ depreciatedThrough: '2026-03', accumulatedDepreciation: '400000.00' });
    expect(await asset(who, late)).toMatchObject({ depreciatedThrough: null, accumulatedDepreciation: '0.00' });
    expect(await ties(who)).toEqual({ ledger: '400666.66', register: '400666.66' });
    // The register report at the close's date ties to the ledger and to Form 1; in January only the chair was on the books.
    expect((await register(who, '2026-03-31')).body).toMatchObject({
      totals: { cost: '72001000.00', accumulatedDepreciation: '400666.66', netBookValue: '71600333.34' },
      ledger: { cost: '72001000.00', accumulatedDepreciation: '400666.66' },
      balanceSheet: { '010': '72001000.00', '011': '400666.66', '012': '71600333.34' },
      ties: true,
      totalElements: 3,
    });
    expect((await register(who, '2026-01-20')).body).toMatchObject({
      items: [{ assetId: small, inventoryNumber: 'A-1', cost: '1000.00', accumulatedDepreciation: '0.00', netBookValue: '1000.00', commissionedOn: '2026-01-10' }],
      totals: { cost: '1000.00', accumulatedDepreciation: '0.00' },
      ties: true,
    });
    const schedule = (await api(stack).get(`/api/v1/fixed-assets/${who.me.company.id}/${small}/schedule`).set(...bearer(who.accessToken)).expect(200)).body;
    expect(schedule.months.map((m: { charged: boolean }) => m.charged)).toEqual([true, true, false]);
    // A depreciation entry is not reversed.
    expect((await ledger.reverse(depreciation[0]!.id, { requestId: crypto.randomUUID(), entryDate: '2026-04-01', reason: 'charged twice?' }).expect(409)).body.type).toBe('/problems/entry-not-reversible');

    const second = await ledger.close('2026-04-30').expect(202);
    expect((await waitForClose(ledger, second.body.id)).status).toBe('COMPLETED');
    const april = (await allEntries(ledger)).filter((e) => e.kind === 'DEPRECIATION' && e.entryDate === '2026-04-30');
    expect(april).toHaveLength(1);
    const aprilLines = (await ledger.get(april[0]!.id).expect(200)).body.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit]);
    expect(aprilLines).toEqual([
      ['9410', '200000.00', '0.00'],
      ['9420', '1500333.34', '0.00'],
      ['0240', '0.00', '333.34'],
      ['0250', '0.00', '200000.00'],
      ['0260', '0.00', '1500000.00'],
    ]);
    expect(await asset(who, small)).toMatchObject({ status: 'FULLY_DEPRECIATED', accumulatedDepreciation: '1000.00', netBookValue: '0.00' });
    expect(await ties(who)).toEqual({ ledger: '2101000.00', register: '2101000.00' });
    // A mid-month close charges the months that ended by its date: May is charged by the close of May's end.
    const mid = await ledger.close('2026-05-15').expect(202);
    expect((await waitForClose(ledger, mid.body.id)).status).toBe('COMPLETED');
    expect((await allEntries(ledger)).filter((e) => e.kind === 'DEPRECIATION')).toHaveLength(3);
    const audit = await stack.admin.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :t AND action = 'fixed-asset.depreciated'", {
      replacements: { t: who.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(audit).toEqual([{ n: 3 }]);
  });

  test('a company without assets closes as before: no DEPRECIATION entry', async () => {
    const who = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, who);
    const close = await ledger.close('2026-01-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    expect((await allEntries(ledger)).filter((e) => e.kind === 'DEPRECIATION')).toEqual([]);
  });
});

const dispose = (who: Registered, id: string, body: Record<string, unknown>) =>
  api(stack).post(`/api/v1/fixed-assets/${who.me.company.id}/${id}/disposal`).set(...bearer(who.accessToken)).send(body);

describe('disposeFixedAsset: POST /api/v1/fixed-assets/{legalEntityId}/{assetId}/disposal', () => {
  test('when an asset is disposed of after a close, then one entry charges the disposal month and takes it off the books; the next close leaves it out; the register ties before and after', async () => {
    const who = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, who);
    const laptop = await commissioned(who, { inventoryNumber: 'D-1', name: 'Laptop', assetAccount: '0150', cost: '12000000', usefulLifeMonths: 60, expenseAccount: '9410' }, '2026-01-31');
    const desk = await commissioned(who, { inventoryNumber: 'D-2', name: 'Desk', assetAccount: '0140', cost: '1200.00', usefulLifeMonths: 12 }, '2026-01-15');
    expect((await waitForClose(ledger, (await ledger.close('2026-03-31').expect(202)).body.id)).status).toBe('COMPLETED');

    const before = await asset(who, laptop);
    // Not before the commissioning, not at an old version.
    expect((await dispose(who, laptop, { date: '2026-01-30', expectedVersion: before.version }).expect(400)).body.type).toBe('/problems/validation');
    expect((await dispose(who, laptop, { date: '2026-04-10', expectedVersion: before.version - 1 }).expect(409)).body.type).toBe('/problems/stale-version');
    // Not in the closed period.
    expect((await dispose(who, laptop, { date: '2026-03-20', expectedVersion: before.version }).expect(409)).body.type).toBe('/problems/period-closed');
    expect(await asset(who, laptop)).toEqual(before);

    const disposed = (await dispose(who, laptop, { date: '2026-04-10', expectedVersion: before.version }).expect(200)).body;
    expect(disposed).toMatchObject({
      status: 'DISPOSED',
      disposedOn: '2026-04-10',
      disposalAccount: '9210',
      depreciatedThrough: '2026-04',
      accumulatedDepreciation: '600000.00',
      netBookValue: '11400000.00',
      version: before.version + 1,
    });
    const entry = (await ledger.get(disposed.disposalEntryId).expect(200)).body;
    expect(entry).toMatchObject({ entryDate: '2026-04-10', kind: 'POSTING', source: { type: 'FIXED_ASSET', id: laptop }, totalDebit: '12200000.00' });
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['9410', '200000.00', '0.00'],
      ['0250', '0.00', '200000.00'],
      ['0250', '600000.00', '0.00'],
      ['9210', '11400000.00', '0.00'],
      ['0150', '0.00', '12000000.00'],
    ]);
    // Once only.
    expect((await dispose(who, laptop, { date: '2026-04-11', expectedVersion: disposed.version }).expect(409)).body.type).toBe('/problems/document-state');

    // April's close charges the desk only.
    expect((await waitForClose(ledger, (await ledger.close('2026-04-30').expect(202)).body.id)).status).toBe('COMPLETED');
    const april = (await allEntries(ledger)).filter((e) => e.kind === 'DEPRECIATION' && e.entryDate === '2026-04-30');
    expect((await ledger.get(april[0]!.id).expect(200)).body.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['9420', '100.00', '0.00'],
      ['0240', '0.00', '100.00'],
    ]);
    expect(await asset(who, desk)).toMatchObject({ depreciatedThrough: '2026-04', accumulatedDepreciation: '300.00' });

    // On the books until the disposal's day, with what the entries dated by then charged.
    const onTheNinth = (await register(who, '2026-04-09')).body;
    expect(onTheNinth.items.map((i: Record<string, unknown>) => [i.inventoryNumber, i.accumulatedDepreciation])).toEqual([
      ['D-1', '400000.00'],
      ['D-2', '200.00'],
    ]);
    expect(onTheNinth).toMatchObject({ ties: true, totals: { cost: '12001200.00', accumulatedDepreciation: '400200.00' } });
    expect((await register(who, '2026-04-30')).body).toMatchObject({
      items: [{ inventoryNumber: 'D-2', cost: '1200.00', accumulatedDepreciation: '300.00', netBookValue: '900.00' }],
      totals: { cost: '1200.00', accumulatedDepreciation: '300.00', netBookValue: '900.00' },
      balanceSheet: { '010': '1200.00', '011': '300.00', '012': '900.00' },
      ties: true,
    });
    // The register pages, its totals over all of them.
    expect((await register(who, '2026-04-09', { page: 1, size: 1 })).body).toMatchObject({
      items: [{ inventoryNumber: 'D-2' }],
      totals: { cost: '12001200.00' },
      page: 1,
      size: 1,
      totalElements: 2,
      totalPages: 2,
    });
    const audit = await stack.admin.query<{ details: string }>("SELECT details FROM audit_events WHERE tenant_id = :t AND action = 'fixed-asset.disposed'", {
      replacements: { t: who.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(audit).toHaveLength(1);
  });

  test('when an asset is disposed of in its commissioning month, then it leaves at cost to the account named, with no charge', async () => {
    const who = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, who);
    const id = await commissioned(who, { inventoryNumber: 'E-1', name: 'Printer', assetAccount: '0150', cost: '900.00', usefulLifeMonths: 3 }, '2026-02-03');
    const disposed = (await dispose(who, id, { date: '2026-02-20', disposalAccount: '9430', expectedVersion: 2 }).expect(200)).body;
    expect(disposed).toMatchObject({ status: 'DISPOSED', depreciatedThrough: null, accumulatedDepreciation: '0.00', netBookValue: '900.00', disposalAccount: '9430' });
    const entry = (await ledger.get(disposed.disposalEntryId).expect(200)).body;
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['9430', '900.00', '0.00'],
      ['0150', '0.00', '900.00'],
    ]);
    expect((await register(who, '2026-02-20')).body).toMatchObject({ items: [], totals: { cost: '0.00' }, ties: true });
  });

  test('when the asset is a DRAFT, the disposal account is not in the chart, or the asset is unknown, then nothing is posted', async () => {
    const who = await registerWorkspace(stack);
    const base = `/api/v1/fixed-assets/${who.me.company.id}`;
    const draft = (await api(stack).post(base).set(...bearer(who.accessToken)).send({ inventoryNumber: 'F-1', name: 'Shelf', assetAccount: '0140', cost: '500.00', usefulLifeMonths: 10 }).expect(201)).body;
    expect((await dispose(who, draft.id, { date: '2026-02-20', expectedVersion: 1 }).expect(409)).body.type).toBe('/problems/document-state');
    const id = await commissioned(who, { inventoryNumber: 'F-2', name: 'Cabinet', assetAccount: '0140', cost: '500.00', usefulLifeMonths: 10 }, '2026-02-03');
    const unknown = (await dispose(who, id, { date: '2026-02-20', disposalAccount: '9999', expectedVersion: 2 }).expect(400)).body;
    expect(unknown).toMatchObject({ type: '/problems/unknown-account', errors: [{ path: '/body/disposalAccount' }] });
    await dispose(who, crypto.randomUUID(), { date: '2026-02-20', expectedVersion: 1 }).expect(404);
    expect(await asset(who, id)).toMatchObject({ status: 'IN_SERVICE', version: 2 });
  });
});

describe('the result of disposals at the period close', () => {
  test('when an asset is sold above its net book value, then the close moves the gain from 9210 to 9310; an asset scrapped later, the loss to 9430; nothing moves twice', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const ledger = ledgerApi(stack, who);
    const invoices = invoicesApi(stack, who);
    const sold = await commissioned(who, { inventoryNumber: 'G-1', name: 'Van', assetAccount: '0160', cost: '1200.00', usefulLifeMonths: 12 }, '2026-01-15');
    const scrapped = await commissioned(who, { inventoryNumber: 'G-2', name: 'Printer', assetAccount: '0150', cost: '600.00', usefulLifeMonths: 6 }, '2026-01-15');
    expect((await waitForClose(ledger, (await ledger.close('2026-01-31').expect(202)).body.id)).status).toBe('COMPLETED');
    // Sold in February for 1 500.00: its net book value 1 100.00 to 9210, the proceeds credited to 9210.
    await dispose(who, sold, { date: '2026-02-10', expectedVersion: 2 }).expect(200);
    const buyer = await aCounterparty(stack, who);
    const sale = (await invoices.create(salesBody(buyer, '2026-02-10', { lines: [{ description: 'Van G-1', quantity: '1', unitPrice: '1500.00', account: '9210', vatRate: null }] })).expect(201)).body;
    await invoices.post(sale.id).expect(200);
    expect((await waitForClose(ledger, (await ledger.close('2026-02-28').expect(202)).body.id)).status).toBe('COMPLETED');
    const gain = (await allEntries(ledger)).filter((e) => e.kind === 'DISPOSAL');
    expect(gain.map((e) => e.entryDate)).toEqual(['2026-02-28']);
    expect((await ledger.get(gain[0]!.id).expect(200)).body.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['9210', '400.00', '0.00'],
      ['9310', '0.00', '400.00'],
    ]);
    expect((await ledger.reverse(gain[0]!.id, { requestId: crypto.randomUUID(), entryDate: '2026-03-01', reason: 'undo?' }).expect(409)).body.type).toBe('/problems/entry-not-reversible');

    // Scrapped in March with no proceeds: a loss of its net book value.
    const printer = await asset(who, scrapped);
    await dispose(who, scrapped, { date: '2026-03-05', expectedVersion: printer.version }).expect(200);
    expect((await waitForClose(ledger, (await ledger.close('2026-03-31').expect(202)).body.id)).status).toBe('COMPLETED');
    const results = (await allEntries(ledger)).filter((e) => e.kind === 'DISPOSAL').sort((a, b) => a.entryDate.localeCompare(b.entryDate));
    expect(results.map((e) => e.entryDate)).toEqual(['2026-02-28', '2026-03-31']);
    expect((await ledger.get(results[1]!.id).expect(200)).body.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['9430', '400.00', '0.00'],
      ['9210', '0.00', '400.00'],
    ]);
    // 9210 is empty after each close; a later close has nothing to move.
    const balance = await stack.admin.query<{ balance: string }>(
      "SELECT coalesce(sum(debit - credit), 0)::numeric(20, 2)::text AS balance FROM journal_lines WHERE tenant_id = :t AND account_code = '9210'",
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(balance).toEqual([{ balance: '0.00' }]);
    expect((await waitForClose(ledger, (await ledger.close('2026-04-30').expect(202)).body.id)).status).toBe('COMPLETED');
    expect((await allEntries(ledger)).filter((e) => e.kind === 'DISPOSAL')).toHaveLength(2);
  });
});
