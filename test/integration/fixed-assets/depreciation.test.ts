import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { allEntries, ledgerApi, waitForClose } from '../../helpers/ledger';

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
      expect(full.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.memo])).toEqual([
        ['9420', '333.33', '0.00', 'A-1 Chair'],
        ['0240', '0.00', '333.33', 'A-1 Chair'],
        ['9410', '200000.00', '0.00', 'A-2 Laptop'],
        ['0250', '0.00', '200000.00', 'A-2 Laptop'],
      ]);
      expect(full).toMatchObject({ kind: 'DEPRECIATION', postedByMembershipId: null, totalDebit: '200333.33' });
    }
    expect(await asset(who, small)).toMatchObject({ status: 'IN_SERVICE', depreciatedThrough: '2026-03', accumulatedDepreciation: '666.66', netBookValue: '333.34' });
    expect(await asset(who, laptop)).toMatchObject({ depreciatedThrough: '2026-03', accumulatedDepreciation: '400000.00' });
    expect(await asset(who, late)).toMatchObject({ depreciatedThrough: null, accumulatedDepreciation: '0.00' });
    expect(await ties(who)).toEqual({ ledger: '400666.66', register: '400666.66' });
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
      ['9420', '333.34', '0.00'],
      ['0240', '0.00', '333.34'],
      ['9410', '200000.00', '0.00'],
      ['0250', '0.00', '200000.00'],
      ['9420', '1500000.00', '0.00'],
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
