import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import { MAIN_ACCOUNT, bankAccountsOf, createBankAccount, getBankAccount, updateBankAccount } from '../../helpers/bank-accounts';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
let account: Record<string, unknown> & { id: string };
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  account = (await createBankAccount(stack, alice, { ...MAIN_ACCOUNT, name: 'Samarkand branch account' }).expect(201)).body;
});
afterAll(async () => {
  await stack.stop();
});

describe('GET /bank-accounts/{legalEntityId}/{bankAccountId} (getBankAccount)', () => {
  test('200 with the account as created', async () => {
    expect((await getBankAccount(stack, alice, account.id).expect(200)).body).toEqual(account);
  });

  test('an archived account is still read by its id', async () => {
    const created = await createBankAccount(stack, alice, { ...MAIN_ACCOUNT, accountNumber: '20208000100100002002', name: 'Closed account' }).expect(201);
    await updateBankAccount(stack, alice, created.body.id, { ...MAIN_ACCOUNT, accountNumber: '20208000100100002002', name: 'Closed account', archived: true, expectedVersion: 1 }).expect(200);
    expect((await getBankAccount(stack, alice, created.body.id).expect(200)).body).toMatchObject({ archived: true, version: 2 });
  });

  test('when the id is unknown, then 404 not-found', async () => {
    expect((await getBankAccount(stack, alice, randomUUID()).expect(404)).body.type).toBe('/problems/not-found');
  });

  test("when the account is another company's, then 404 under the caller's company and under the other's, and no data", async () => {
    const underOwn = await getBankAccount(stack, bob, account.id).expect(404);
    expect(underOwn.body).toMatchObject({ type: '/problems/not-found' });
    expect(JSON.stringify(underOwn.body)).not.toContain(MAIN_ACCOUNT.accountNumber);
    const underTheirs = await api(stack).get(`${bankAccountsOf(bob, alice.me.company.id)}/${account.id}`).set(...bearer(bob.accessToken)).expect(404);
    expect(JSON.stringify(underTheirs.body)).not.toContain('Samarkand');
  });

  test('an archived company still answers reads', async () => {
    const who = await registerWorkspace(stack);
    const created = await createBankAccount(stack, who, MAIN_ACCOUNT).expect(201);
    await archiveCompany(stack, who.me.company.id);
    await getBankAccount(stack, who, created.body.id).expect(200);
  });

  test('when the id is no UUID, then 400 validation', async () => {
    expect((await getBankAccount(stack, alice, 'not-a-uuid').expect(400)).body.type).toBe('/problems/validation');
  });
});
