import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { MAIN_ACCOUNT, bankAccountsOf, createBankAccount, updateBankAccount } from '../../helpers/bank-accounts';

let stack: TestStack;
let who: Registered;
let bob: Registered;
const ids: Record<string, string> = {};
beforeAll(async () => {
  stack = await startTestStack();
  [who, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  const register: Array<[string, string, string]> = [
    ['Charlie', '20208000100100003001', 'UZS'],
    ['Alfa', '20208000100100003002', 'UZS'],
    ['Bravo', '20214840100100003003', 'USD'],
    ['Delta archived', '20208000100100003004', 'UZS'],
  ];
  for (const [name, accountNumber, currency] of register) {
    ids[name] = (await createBankAccount(stack, who, { ...MAIN_ACCOUNT, name, accountNumber, currency }).expect(201)).body.id;
  }
  await updateBankAccount(stack, who, ids['Delta archived']!, { ...MAIN_ACCOUNT, name: 'Delta archived', accountNumber: '20208000100100003004', archived: true, expectedVersion: 1 }).expect(200);
  // Bob's register holds the same number under the same name: it never shows in the other workspace.
  await createBankAccount(stack, bob, { ...MAIN_ACCOUNT, name: 'Alfa', accountNumber: '20208000100100003002' }).expect(201);
});
afterAll(async () => {
  await stack.stop();
});

const list = async (query: Record<string, string | number> = {}, as: Registered = who) =>
  (await api(stack).get(bankAccountsOf(as)).query(query).set(...bearer(as.accessToken)).expect(200)).body;
const names = async (query: Record<string, string | number> = {}) => (await list(query)).items.map((a: { name: string }) => a.name);

describe('GET /bank-accounts/{legalEntityId} (listBankAccounts)', () => {
  test('"ordered by name then id", the page envelope; the active accounts by default, each as GET answers it', async () => {
    const body = await list();
    expect(body).toMatchObject({ page: 0, size: 50, totalElements: 3, totalPages: 1 });
    expect(body.items.map((a: { name: string }) => a.name)).toEqual(['Alfa', 'Bravo', 'Charlie']);
    expect(body.items[1]).toEqual({
      id: ids.Bravo,
      bankCode: MAIN_ACCOUNT.bankCode,
      accountNumber: '20214840100100003003',
      currency: 'USD',
      accountCode: '5210',
      name: 'Bravo',
      archived: false,
      version: 1,
    });
  });

  test('"archive instead of delete": archived=true lists the archived ones only, archived=all both', async () => {
    expect(await names({ archived: 'true' })).toEqual(['Delta archived']);
    expect(await names({ archived: 'all' })).toEqual(['Alfa', 'Bravo', 'Charlie', 'Delta archived']);
  });

  test('pages: size 2 gives two pages of the same order; a page past the end is empty with the total', async () => {
    expect(await list({ size: 2, page: 0 })).toMatchObject({ totalElements: 3, totalPages: 2, items: [{ name: 'Alfa' }, { name: 'Bravo' }] });
    expect(await list({ size: 2, page: 1 })).toMatchObject({ totalElements: 3, items: [{ name: 'Charlie' }] });
    expect(await list({ size: 2, page: 5 })).toMatchObject({ totalElements: 3, items: [] });
  });

  test("another workspace's register is its own", async () => {
    expect((await list({ archived: 'all' }, bob)).items.map((a: { id: string }) => a.id)).not.toContain(ids.Alfa);
    expect(await list({}, bob)).toMatchObject({ totalElements: 1 });
  });

  test("when the company is another tenant's, then 404", async () => {
    const res = await api(stack).get(bankAccountsOf(bob, who.me.company.id)).set(...bearer(bob.accessToken)).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
  });

  test.each([
    ['archived=maybe', { archived: 'maybe' }],
    ['size=0', { size: 0 }],
    ['page=-1', { page: -1 }],
  ])('when the query has %s, then 400 validation', async (_case, query) => {
    const res = await api(stack).get(bankAccountsOf(who)).query(query).set(...bearer(who.accessToken)).expect(400);
    expect(res.body.type).toBe('/problems/validation');
  });
});
