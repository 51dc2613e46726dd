import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import { BANK_ACCOUNT, counterpartiesOf, createCounterparty, getCounterparty, updateCounterparty } from '../../helpers/counterparties';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
let supplier: Record<string, unknown> & { id: string };
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  supplier = (await createCounterparty(stack, alice, { name: 'Samarkand Cotton JSC', tin: '206000006', bankAccounts: [BANK_ACCOUNT], paymentTermsDays: 14 }).expect(201)).body;
});
afterAll(async () => {
  await stack.stop();
});

describe('GET /counterparties/{legalEntityId}/{counterpartyId} (getCounterparty)', () => {
  test('200 with the counterparty as created', async () => {
    expect((await getCounterparty(stack, alice, supplier.id).expect(200)).body).toEqual(supplier);
  });

  test('an archived counterparty is still read by its id', async () => {
    const created = await createCounterparty(stack, alice, { name: 'Closed Partner LLC' }).expect(201);
    await updateCounterparty(stack, alice, created.body.id, { name: 'Closed Partner LLC', archived: true, expectedVersion: 1 }).expect(200);
    expect((await getCounterparty(stack, alice, created.body.id).expect(200)).body).toMatchObject({ archived: true, version: 2 });
  });

  test('when the id is unknown, then 404 not-found', async () => {
    expect((await getCounterparty(stack, alice, randomUUID()).expect(404)).body.type).toBe('/problems/not-found');
  });

  test("when the counterparty is another tenant's, then 404 under the caller's company and under the other's, and no data", async () => {
    const underOwn = await getCounterparty(stack, bob, supplier.id).expect(404);
    expect(underOwn.body).toMatchObject({ type: '/problems/not-found' });
    expect(JSON.stringify(underOwn.body)).not.toContain('Samarkand');
    const underTheirs = await api(stack).get(`${counterpartiesOf(bob, alice.me.company.id)}/${supplier.id}`).set(...bearer(bob.accessToken)).expect(404);
    expect(JSON.stringify(underTheirs.body)).not.toContain('Samarkand');
  });

  test('an archived company still answers reads', async () => {
    const who = await registerWorkspace(stack);
    const created = await createCounterparty(stack, who, { name: 'Kept LLC' }).expect(201);
    await archiveCompany(stack, who.me.company.id);
    await getCounterparty(stack, who, created.body.id).expect(200);
  });

  test('when the id is no UUID, then 400 validation', async () => {
    expect((await getCounterparty(stack, alice, 'not-a-uuid').expect(400)).body.type).toBe('/problems/validation');
  });
});
