import fc from 'fast-check';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { allEntries, hledgerDailyUzs, ledgerApi, waitForClose } from '../../helpers/ledger';
import { toHledgerJournal } from '../../../tools/hledger-journal';
import { accumulatedThrough, addMonths, lastDayOf, monthOf } from '../../../core/fixed-assets/depreciation';
import { formatMinorUnits, numericToMinorUnits, toMinorUnits } from '../../../core/ledger/money';
import { lastMonthClosedBy } from '../../../activities/fixed-assets/post-depreciation';

// Random assets (cost, salvage value, useful life, account, commissioning day), random period closes (month
// ends and mid-months, up to a year and a half on) and disposals between them, through the real app and the
// close workflow. Afterwards, at every date the run used: the register ties to the ledger and to Form 1 (its
// own `ties`), and its totals equal hledger's balances of 01xx and 02xx in the exported journal. Each
// asset's charges in the depreciation subledger add up to its accumulated depreciation, never pass cost −
// salvage, and equal it when the asset is fully depreciated; and that accumulated depreciation is what the
// closed-form schedule gives through the last month closed (or through the disposal month).

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

// In the past, so that every close date is (a close of a day to come is refused).
const START = '2024-01-01';
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

const assetArb = fc.record({
  costMinor: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 10_000, max: 2_000_000_000 })),
  salvagePercent: fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.integer({ min: 1, max: 100 }), weight: 1 }),
  life: fc.integer({ min: 1, max: 18 }),
  account: fc.constantFrom('0130', '0140', '0150', '0160'),
  commissionDay: fc.integer({ min: 0, max: 150 }),
});
const runArb = fc.record({
  assets: fc.array(assetArb, { minLength: 1, maxLength: 4 }),
  closes: fc.uniqueArray(fc.record({ month: fc.integer({ min: 0, max: 18 }), midMonth: fc.boolean() }), { minLength: 1, maxLength: 4, selector: (c) => c.month }),
  disposals: fc.array(fc.record({ asset: fc.nat(), slot: fc.nat(), day: fc.nat() }), { maxLength: 2 }),
});

type RunSpec = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

interface Commissioned {
  id: string;
  cost: string;
  salvageValue: string;
  usefulLifeMonths: number;
  commissionedOn: string;
}

async function run(who: Registered, spec: RunSpec): Promise<void> {
  const base = `/api/v1/fixed-assets/${who.me.company.id}`;
  const ledger = ledgerApi(stack, who);
  const assets: Commissioned[] = [];
  for (const [i, a] of spec.assets.entries()) {
    const cost = formatMinorUnits(BigInt(a.costMinor));
    const salvageValue = formatMinorUnits((BigInt(a.costMinor) * BigInt(a.salvagePercent)) / 100n);
    const commissionedOn = addDays(START, a.commissionDay);
    const created = await api(stack)
      .post(base)
      .set(...bearer(who.accessToken))
      .send({ inventoryNumber: `P-${i}`, name: `Asset ${i}`, assetAccount: a.account, cost, salvageValue, usefulLifeMonths: a.life })
      .expect(201);
    await api(stack).post(`${base}/${created.body.id}/commissioning`).set(...bearer(who.accessToken)).send({ date: commissionedOn, expectedVersion: 1 }).expect(200);
    assets.push({ id: created.body.id, cost, salvageValue, usefulLifeMonths: a.life, commissionedOn });
  }

  // The closes in date order; a disposal goes in a slot between two of them (or after the last).
  const closeDates = [...spec.closes]
    .sort((x, y) => x.month - y.month)
    .map((c) => {
      const month = addMonths(monthOf(START), c.month);
      return c.midMonth ? `${month}-15` : lastDayOf(month);
    });
  const events: Array<{ date: string; close?: true; asset?: Commissioned }> = closeDates.map((date) => ({ date, close: true as const }));
  const disposed = new Map<string, string>();
  for (const d of spec.disposals) {
    const asset = assets[d.asset % assets.length]!;
    if (disposed.has(asset.id)) continue;
    const slot = d.slot % (closeDates.length + 1);
    const after = slot === 0 ? null : closeDates[slot - 1]!;
    const lower = after && after >= asset.commissionedOn ? addDays(after, 1) : asset.commissionedOn;
    const upper = slot < closeDates.length ? closeDates[slot]! : addDays(lower, 90);
    if (lower >= upper) continue;
    const date = addDays(lower, d.day % daysBetween(lower, upper));
    disposed.set(asset.id, date);
    events.push({ date, asset });
  }
  // A disposal on a close's date goes before that close.
  events.sort((x, y) => (x.date === y.date ? (x.close ? 1 : 0) - (y.close ? 1 : 0) : x.date < y.date ? -1 : 1));

  for (const event of events) {
    if (event.close) {
      const close = await ledger.close(event.date).expect(202);
      expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    } else {
      const current = (await api(stack).get(`${base}/${event.asset!.id}`).set(...bearer(who.accessToken)).expect(200)).body;
      await api(stack).post(`${base}/${event.asset!.id}/disposal`).set(...bearer(who.accessToken)).send({ date: event.date, expectedVersion: current.version }).expect(200);
    }
  }

  // The register at every date the run used ties to the ledger, to Form 1 and to hledger.
  const dates = [...new Set([...events.map((e) => e.date), ...assets.map((a) => a.commissionedOn)])].sort();
  const hledger = hledgerDailyUzs(toHledgerJournal(await allEntries(ledger)), dates);
  for (const asOf of dates) {
    const register = (await api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/fixed-assets`).query({ asOf, size: 100 }).set(...bearer(who.accessToken)).expect(200)).body;
    const view = hledger.get(asOf)!;
    const sum = (prefix: string) => Object.entries(view).reduce((s, [account, amount]) => (account.startsWith(prefix) ? s + numericToMinorUnits(amount) : s), 0n);
    expect({ asOf, ties: register.ties }).toEqual({ asOf, ties: true });
    expect({ asOf, cost: register.totals.cost, accumulated: register.totals.accumulatedDepreciation }).toEqual({
      asOf,
      cost: formatMinorUnits(sum('01')),
      accumulated: formatMinorUnits(-sum('02')),
    });
    expect(register.balanceSheet['012']).toBe(register.totals.netBookValue);
  }

  // The subledger and the closed-form schedule.
  const lastThrough = lastMonthClosedBy(closeDates.at(-1)!);
  const rows = await stack.admin.query<{ id: string; status: string; accumulated: string; charged: string }>(
    `SELECT a.id, a.status, a.accumulated_depreciation::text AS accumulated, COALESCE(sum(c.amount), 0)::numeric(20, 2)::text AS charged
       FROM fixed_assets a LEFT JOIN fixed_asset_charges c ON c.tenant_id = a.tenant_id AND c.asset_id = a.id
      WHERE a.tenant_id = :t GROUP BY a.id, a.status, a.accumulated_depreciation`,
    { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
  );
  for (const asset of assets) {
    const row = rows.find((r) => r.id === asset.id)!;
    const depreciable = toMinorUnits(asset.cost) - toMinorUnits(asset.salvageValue);
    const disposal = disposed.get(asset.id);
    const through = disposal ? monthOf(disposal) : lastThrough;
    const expected = accumulatedThrough(asset, through);
    expect({ asset: asset.id, charged: row.charged, accumulated: row.accumulated }).toEqual({ asset: asset.id, charged: expected, accumulated: expected });
    expect(toMinorUnits(row.charged) <= depreciable).toBe(true);
    if (row.status === 'FULLY_DEPRECIATED') expect(toMinorUnits(row.charged)).toBe(depreciable);
    expect(row.status).toBe(disposal ? 'DISPOSED' : toMinorUnits(expected) === depreciable && through > monthOf(asset.commissionedOn) ? 'FULLY_DEPRECIATED' : 'IN_SERVICE');
  }
}

describe('fixed-asset properties', () => {
  test('random assets, closes and disposals: the register ties to the ledger, Form 1 and hledger at every date; the subledger adds up to the schedule, never past cost − salvage', async () => {
    const property = fc.asyncProperty(runArb, async (spec) => {
      await run(await registerWorkspace(stack), spec);
    });
    const everything = {
      assets: [
        { costMinor: 100_000, salvagePercent: 0, life: 3, account: '0140', commissionDay: 9 },
        { costMinor: 1_200_000_000, salvagePercent: 10, life: 12, account: '0150', commissionDay: 30 },
        { costMinor: 5, salvagePercent: 0, life: 10, account: '0160', commissionDay: 40 },
      ],
      closes: [
        { month: 2, midMonth: false },
        { month: 4, midMonth: true },
        { month: 14, midMonth: false },
      ],
      disposals: [{ asset: 1, slot: 2, day: 20 }],
    };
    await fc.assert(property, { numRuns: 6, examples: [[everything]], timeout: 90_000, interruptAfterTimeLimit: 200_000 });
  }, 300_000);
});
