import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { createCounterparty, updateCounterparty } from '../../helpers/counterparties';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { withTenant } from '../../../db/connection';
import { postJournalEntryStatement } from '../../../db/repositories/ledger/journal';

let stack: TestStack;
let alice: Registered;
let ledger: ReturnType<typeof ledgerApi>;
let supplier: string;
let customer: string;
beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
  ledger = ledgerApi(stack, alice);
  supplier = (await createCounterparty(stack, alice, { name: 'Supplier LLC', tin: '301000001' }).expect(201)).body.id;
  customer = (await createCounterparty(stack, alice, { name: 'Customer LLC', tin: '301000002' }).expect(201)).body.id;
});
afterAll(async () => {
  await stack.stop();
});

const UZS_LINE = { memo: null, currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null };

/** The number of entries of the caller's company, read around row-level security. */
async function entryCount(who: Registered): Promise<number> {
  const [{ n }] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_entries WHERE tenant_id = :t', {
    replacements: { t: who.me.tenantId },
    type: QueryTypes.SELECT,
  });
  return n;
}

async function saveSetting(who: Registered, requireCounterpartyOnSettlements: boolean | undefined) {
  const path = `/api/v1/accounting-settings/${who.me.company.id}`;
  const current = await api(stack).get(path).set(...bearer(who.accessToken)).expect(200);
  return await api(stack)
    .put(path)
    .set(...bearer(who.accessToken))
    .send({
      depreciationMethod: 'STRAIGHT_LINE',
      inventoryValuationMethod: 'FIFO',
      taxRegime: 'GENERAL',
      vatRate: 12,
      expectedVersion: current.body.version,
      ...(requireCounterpartyOnSettlements === undefined ? {} : { requireCounterpartyOnSettlements }),
    })
    .expect(200);
}

/** A sale on credit to the counterparty: 4010 debit, 9010 credit. */
const sale = (date: string, amount: string, counterpartyId?: string | null) =>
  entryBody(date, [
    { accountCode: '4010', debit: amount, ...(counterpartyId === undefined ? {} : { counterpartyId }) } as never,
    { accountCode: '9010', credit: amount },
  ]);

describe('a journal line\'s counterpartyId', () => {
  test('posted with a counterparty, read back as posted (JSON, getJournalEntry, listJournalEntries); a line without one reads null', async () => {
    const res = await ledger.post(sale('2025-03-01', '500', customer)).expect(201);
    expect(res.body.lines).toEqual([
      { lineNo: 1, accountCode: '4010', subaccountId: null, counterpartyId: customer, debit: '500.00', credit: '0.00', ...UZS_LINE },
      { lineNo: 2, accountCode: '9010', subaccountId: null, counterpartyId: null, debit: '0.00', credit: '500.00', ...UZS_LINE },
    ]);
    expect((await ledger.get(res.body.id).expect(200)).body).toEqual(res.body);
    const listed = await ledger.list({ dateFrom: '2025-03-01', dateTo: '2025-03-01' }).expect(200);
    expect(listed.body.items.find((e: { id: string }) => e.id === res.body.id)).toEqual(res.body);
    const [stored] = await stack.admin.query<{ counterparty_id: string }>(
      'SELECT counterparty_id FROM journal_lines WHERE tenant_id = :t AND entry_id = :e AND line_no = 1',
      { replacements: { t: alice.me.tenantId, e: res.body.id }, type: QueryTypes.SELECT },
    );
    expect(stored!.counterparty_id).toBe(customer);
    // The journal export (CSV) carries it too, in its own column.
    const csv = await api(stack).get(`${ledger.base}/entries`).query({ dateFrom: '2025-03-01', dateTo: '2025-03-01' }).set('Accept', 'text/csv').set(...bearer(alice.accessToken)).expect(200);
    const [header, ...rows] = csv.text.trim().split('\n').map((line) => line.split(','));
    const column = header!.indexOf('counterpartyId');
    expect(column).toBeGreaterThan(header!.indexOf('subaccountId'));
    expect(rows.filter((r) => r[0] === res.body.id).map((r) => r[column])).toEqual([customer, '']);
  });

  test('a reversal keeps each line\'s counterparty, even once the counterparty is archived', async () => {
    const temporary = (await createCounterparty(stack, alice, { name: 'Once-off Buyer', tin: '301000003' }).expect(201)).body.id;
    const original = await ledger.post(sale('2025-03-02', '80', temporary)).expect(201);
    await updateCounterparty(stack, alice, temporary, { name: 'Once-off Buyer', tin: '301000003', archived: true, expectedVersion: 1 }).expect(200);
    const reversal = await ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-03-03', reason: 'returned' }).expect(201);
    expect(reversal.body.lines.map((l: { accountCode: string; counterpartyId: string | null; debit: string }) => [l.accountCode, l.counterpartyId, l.debit])).toEqual([
      ['4010', temporary, '0.00'],
      ['9010', null, '80.00'],
    ]);
    expect((await ledger.get(reversal.body.id).expect(200)).body.lines).toEqual(reversal.body.lines);
  });

  test('an unknown, another company\'s, another workspace\'s or an archived counterparty → 400 unknown-counterparty naming the line; nothing posted', async () => {
    const bob = await registerWorkspace(stack);
    const bobs = (await createCounterparty(stack, bob, { name: 'Bob Supplier', tin: '301000009' }).expect(201)).body.id;
    const archived = (await createCounterparty(stack, alice, { name: 'Closed Supplier', tin: '301000004' }).expect(201)).body.id;
    await updateCounterparty(stack, alice, archived, { name: 'Closed Supplier', tin: '301000004', archived: true, expectedVersion: 1 }).expect(200);
    const before = await entryCount(alice);
    for (const [counterpartyId, message] of [
      [randomUUID(), 'line 2: no counterparty with this id in this company'],
      [bobs, 'line 2: no counterparty with this id in this company'],
      [archived, 'line 2: the counterparty is archived'],
    ] as const) {
      const body = entryBody('2025-03-04', [
        { accountCode: '5110', debit: '10' },
        { accountCode: '6010', credit: '10', counterpartyId } as never,
      ]);
      const res = await ledger.post(body).expect(400);
      expect(res.body).toMatchObject({ type: '/problems/unknown-counterparty', status: 400 });
      expect(res.body.errors).toEqual([{ path: '/body/lines/1/counterpartyId', message }]);
    }
    expect(await entryCount(alice)).toBe(before);
    // Bob cannot reference Alice's counterparty either.
    const fromBob = await ledgerApi(stack, bob).post(sale('2025-03-04', '1', customer)).expect(400);
    expect(fromBob.body.type).toBe('/problems/unknown-counterparty');
    expect(await entryCount(bob)).toBe(0);
  });

  test('row-level security and the foreign key: a statement of tenant B naming tenant A\'s counterparty is refused by the database', async () => {
    const bob = await registerWorkspace(stack);
    const scope = { tenantId: bob.me.tenantId, legalEntityId: bob.me.company.id };
    const line = (lineNo: number, accountCode: string, debit: string, credit: string, counterpartyId: string | null) => ({
      lineNo, accountCode, subaccountId: null, counterpartyId, debit, credit, ...UZS_LINE,
    });
    const statement = postJournalEntryStatement(
      scope,
      { id: randomUUID(), entryDate: '2025-03-05', description: 'x', reference: null, requestId: randomUUID(), requestHash: 'x', reversalOf: null, total: '1.00', postedByMembershipId: null, correlationId: randomUUID() },
      [line(1, '4010', '1.00', '0.00', customer), line(2, '9010', '0.00', '1.00', null)],
    );
    await expect(
      withTenant(stack.db, bob.me.tenantId, (tx) => stack.db.query(statement.sql, { replacements: statement.replacements, transaction: tx })),
    ).rejects.toThrow(/journal_lines_counterparty_fkey/);
    expect(await entryCount(bob)).toBe(0);
    // Tenant B cannot see tenant A's counterparty at all.
    const seen = await withTenant(stack.db, bob.me.tenantId, (tx) =>
      stack.db.query('SELECT count(*)::int AS n FROM counterparties WHERE id = :id', { transaction: tx, replacements: { id: customer }, type: QueryTypes.SELECT }),
    );
    expect(seen).toEqual([{ n: 0 }]);
  });

  test('the same requestId with and without a counterparty is a different request (409); a body without one replays (201, same entry)', async () => {
    const body = sale('2025-03-06', '25');
    const first = await ledger.post(body).expect(201);
    expect(first.body.lines.map((l: { counterpartyId: string | null }) => l.counterpartyId)).toEqual([null, null]);
    // The same body again, and with an explicit null: the same request.
    expect((await ledger.post(body).expect(201)).body).toEqual(first.body);
    const explicitNull = { ...body, lines: body.lines.map((l) => ({ ...l, counterpartyId: null })) };
    expect((await ledger.post(explicitNull).expect(201)).body).toEqual(first.body);
    const withCounterparty = { ...body, lines: body.lines.map((l, i) => (i === 0 ? { ...l, counterpartyId: customer } : l)) };
    const other = await ledger.post(withCounterparty).expect(409);
    expect(other.body.type).toBe('/problems/request-id-reused');
    // And the other way round.
    const withFirst = sale('2025-03-06', '26', supplier);
    await ledger.post(withFirst).expect(201);
    expect((await ledger.post({ ...withFirst, lines: withFirst.lines.map((l) => ({ ...l, counterpartyId: undefined })) }).expect(409)).body.type).toBe(
      '/problems/request-id-reused',
    );
  });

  test('the entry\'s stored request hash of a body without counterparties is the hash of the format before them (an existing request replays)', async () => {
    const body = sale('2025-03-07', '12.5');
    const res = await ledger.post(body).expect(201);
    const [row] = await stack.admin.query<{ request_hash: string }>('SELECT request_hash FROM journal_entries WHERE tenant_id = :t AND id = :id', {
      replacements: { t: alice.me.tenantId, id: res.body.id },
      type: QueryTypes.SELECT,
    });
    const { createHash } = await import('node:crypto');
    const before = createHash('sha256')
      .update(
        JSON.stringify({
          entryDate: '2025-03-07',
          description: body.description,
          reference: null,
          lines: [
            { lineNo: 1, accountCode: '4010', subaccountId: null, debit: '12.50', credit: '0.00', memo: null },
            { lineNo: 2, accountCode: '9010', subaccountId: null, debit: '0.00', credit: '12.50', memo: null },
          ],
        }),
      )
      .digest('hex');
    expect(row!.request_hash).toBe(before);
  });

  test('requireCounterpartyOnSettlements: off by default (201); on: 4010 without a counterparty → 400 counterparty-required, 9010 alone and 4010 with one → 201; GET/PUT round-trip', async () => {
    const carol = await registerWorkspace(stack);
    const carolsLedger = ledgerApi(stack, carol);
    const path = `/api/v1/accounting-settings/${carol.me.company.id}`;
    expect((await api(stack).get(path).set(...bearer(carol.accessToken)).expect(200)).body.requireCounterpartyOnSettlements).toBe(false);
    await carolsLedger.post(sale('2025-04-01', '10')).expect(201);
    // A save that leaves the field out keeps it false; then on; a save that leaves it out keeps it on.
    expect((await saveSetting(carol, undefined)).body).toMatchObject({ requireCounterpartyOnSettlements: false, version: 1 });
    const on = await saveSetting(carol, true);
    expect(on.body).toMatchObject({ requireCounterpartyOnSettlements: true, version: 2 });
    expect((await api(stack).get(path).set(...bearer(carol.accessToken)).expect(200)).body).toEqual(on.body);
    expect((await saveSetting(carol, undefined)).body).toMatchObject({ requireCounterpartyOnSettlements: true, version: 3 });
    const buyer = (await createCounterparty(stack, carol, { name: 'Buyer', tin: '301000005' }).expect(201)).body.id;

    const before = await entryCount(carol);
    const refused = await carolsLedger
      .post(entryBody('2025-04-02', [{ accountCode: '5110', debit: '10' }, { accountCode: '4010', debit: '5' }, { accountCode: '9010', credit: '15' }]))
      .expect(400);
    expect(refused.body).toMatchObject({ type: '/problems/counterparty-required', status: 400 });
    expect(refused.body.errors).toEqual([{ path: '/body/lines/1/counterpartyId', message: "line 2: 4010 is a settlement account; name the line's counterparty" }]);
    expect(await entryCount(carol)).toBe(before);
    // 9010 (and 5110) need none; 4010 with one passes; budget 6410 and payroll 6710 need none.
    await carolsLedger.post(entryBody('2025-04-02', [{ accountCode: '5110', debit: '10' }, { accountCode: '9010', credit: '10' }])).expect(201);
    await carolsLedger.post(sale('2025-04-02', '10', buyer)).expect(201);
    await carolsLedger.post(entryBody('2025-04-02', [{ accountCode: '6410', debit: '1' }, { accountCode: '6710', debit: '1' }, { accountCode: '5110', credit: '2' }])).expect(201);
    // Off again: 201 without a counterparty.
    expect((await saveSetting(carol, false)).body.requireCounterpartyOnSettlements).toBe(false);
    await carolsLedger.post(sale('2025-04-03', '10')).expect(201);
  });
});
