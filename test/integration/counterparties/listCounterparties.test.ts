import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { counterpartiesOf, createCounterparty, updateCounterparty } from '../../helpers/counterparties';

let stack: TestStack;
let who: Registered;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [who, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  const register: Array<Record<string, unknown>> = [
    { name: 'Alpha 100% Foods' },
    { name: 'Alpha 1000 Foods' },
    { name: 'Net_Works' },
    { name: 'NetsWorks' },
    { name: 'Back\\Office' },
    { name: 'Beta Supply LLC', tin: '301234567' },
    { name: 'Gamma Karimov', pinfl: '31234567890123' },
    { name: 'Omega 3012 Trading' },
  ];
  for (const body of register) await createCounterparty(stack, who, body).expect(201);
  const archived = await createCounterparty(stack, who, { name: 'Delta Archived', tin: '309999999' }).expect(201);
  await updateCounterparty(stack, who, archived.body.id, { name: 'Delta Archived', tin: '309999999', archived: true, expectedVersion: 1 }).expect(200);
  // Bob's register holds a namesake: it never shows in the other workspace.
  await createCounterparty(stack, bob, { name: 'Alpha 100% Foods', tin: '301234999' }).expect(201);
});
afterAll(async () => {
  await stack.stop();
});

const list = async (query: Record<string, string | number> = {}, as: Registered = who) =>
  (await api(stack).get(counterpartiesOf(as)).query(query).set(...bearer(as.accessToken)).expect(200)).body;
const names = async (query: Record<string, string | number> = {}) => (await list(query)).items.map((c: { name: string }) => c.name);

describe('GET /counterparties/{legalEntityId} (listCounterparties)', () => {
  test('"ordered by name then id", the page envelope; the active counterparties by default', async () => {
    const ordered = await registerWorkspace(stack);
    const ids: Record<string, string[]> = {};
    for (const name of ['Charlie', 'Bravo', 'Echo', 'Bravo', 'Alfa']) {
      (ids[name] ??= []).push((await createCounterparty(stack, ordered, { name }).expect(201)).body.id);
    }
    const body = await list({}, ordered);
    expect(body.items.map((c: { name: string; id: string }) => [c.name, c.id])).toEqual([
      ['Alfa', ids.Alfa![0]],
      ...[...ids.Bravo!].sort().map((id) => ['Bravo', id]),
      ['Charlie', ids.Charlie![0]],
      ['Echo', ids.Echo![0]],
    ]);
    expect(body).toMatchObject({ page: 0, size: 50, totalElements: 5, totalPages: 1 });
    const pages = [await list({ size: 2, page: 0 }, ordered), await list({ size: 2, page: 1 }, ordered), await list({ size: 2, page: 2 }, ordered)];
    expect(pages.flatMap((p) => p.items)).toEqual(body.items);
    expect(pages[0]).toMatchObject({ size: 2, totalElements: 5, totalPages: 3 });
    expect(await list({ size: 2, page: 3 }, ordered)).toMatchObject({ items: [], totalElements: 5 });
  });

  test('the default leaves the archived counterparty out', async () => {
    const all = await names();
    expect(all).toHaveLength(8);
    expect(all).not.toContain('Delta Archived');
  });

  test('"search by name fragment", case-insensitive', async () => {
    expect(await names({ q: 'foods' })).toEqual(['Alpha 100% Foods', 'Alpha 1000 Foods']);
    expect(await names({ q: 'ALPHA 100' })).toEqual(['Alpha 100% Foods', 'Alpha 1000 Foods']);
    expect(await names({ q: 'supply' })).toEqual(['Beta Supply LLC']);
    expect(await names({ q: 'nobody' })).toEqual([]);
  });

  test('"literal: %, _ and \\ match themselves"', async () => {
    expect(await names({ q: '%' })).toEqual(['Alpha 100% Foods']);
    expect(await names({ q: '0%' })).toEqual(['Alpha 100% Foods']);
    expect(await names({ q: '_' })).toEqual(['Net_Works']);
    expect(await names({ q: 't_W' })).toEqual(['Net_Works']);
    expect(await names({ q: '\\' })).toEqual(['Back\\Office']);
    expect(await names({ q: '_%' })).toEqual([]);
  });

  test('"an exact-prefix search over tin and pinfl": digits find the numbers that start with them, and names that contain them', async () => {
    expect(await names({ q: '3012' })).toEqual(['Beta Supply LLC', 'Omega 3012 Trading']);
    expect(await names({ q: '301234567' })).toEqual(['Beta Supply LLC']);
    expect(await names({ q: '3123' })).toEqual(['Gamma Karimov']);
    expect(await names({ q: '31234567890123' })).toEqual(['Gamma Karimov']);
    // Inside a number is no prefix: neither TIN 301234567 nor PINFL 31234567890123 starts with 1234.
    expect(await names({ q: '1234' })).toEqual([]);
  });

  test('"archived filter": true lists only the archived ones, all lists both; q applies to either', async () => {
    expect(await names({ archived: 'true' })).toEqual(['Delta Archived']);
    expect(await names({ archived: 'all' })).toHaveLength(9);
    expect(await names({ archived: 'false', q: 'delta' })).toEqual([]);
    expect(await names({ archived: 'all', q: '3099' })).toEqual(['Delta Archived']);
    const archived = (await list({ archived: 'true' })).items[0];
    expect(archived).toMatchObject({ archived: true, version: 2, tin: '309999999' });
  });

  test.each([
    ['archived=yes', { archived: 'yes' }],
    ['a q of 101 characters', { q: 'x'.repeat(101) }],
    ['size=0', { size: 0 }],
    ['size=101', { size: 101 }],
    ['page=-1', { page: -1 }],
  ])('when the query has %s, then 400 validation', async (_case, query) => {
    const res = await api(stack).get(counterpartiesOf(who)).query(query).set(...bearer(who.accessToken)).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });

  test("another tenant's counterparties are never listed; its company is 404, with no data", async () => {
    expect((await list({ q: 'Alpha 100%' })).items.map((c: { tin: string | null }) => c.tin)).toEqual([null]);
    expect((await list({ q: '301234999' })).items).toEqual([]);
    expect((await list({ archived: 'all' }, bob)).items.map((c: { name: string }) => c.name)).toEqual(['Alpha 100% Foods']);
    const res = await api(stack).get(counterpartiesOf(bob, who.me.company.id)).set(...bearer(bob.accessToken)).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    expect(res.body.items).toBeUndefined();
  });
});
