import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import { MAIN_ACCOUNT, bankAccountEvents, bankAccountsOf, createBankAccount, getBankAccount, updateBankAccount } from '../../helpers/bank-accounts';

let stack: TestStack;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  bob = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const FULL = { bankCode: '00873', accountNumber: '20214840200100004001', currency: 'USD', accountCode: '5220', name: 'Dollar account abroad' };

async function registerWith(body: Record<string, unknown> = FULL): Promise<{ who: Registered; id: string }> {
  const who = await registerWorkspace(stack);
  const created = await createBankAccount(stack, who, body).expect(201);
  return { who, id: created.body.id };
}

describe('PUT /bank-accounts/{legalEntityId}/{bankAccountId} (updateBankAccount)', () => {
  test('"a full replacement": 200 at version 2 with the fields sent, currency and GL account left out back at their defaults; one audit event bank-account.updated', async () => {
    const { who, id } = await registerWith();
    const res = await updateBankAccount(stack, who, id, { bankCode: '00014', accountNumber: '20208000100100004002', name: ' Main account ', archived: false, expectedVersion: 1 }).expect(200);
    expect(res.body).toEqual({ id, bankCode: '00014', accountNumber: '20208000100100004002', currency: 'UZS', accountCode: '5110', name: 'Main account', archived: false, version: 2 });
    expect((await getBankAccount(stack, who, id).expect(200)).body).toEqual(res.body);
    expect(await bankAccountEvents(stack, who)).toEqual([
      expect.objectContaining({ action: 'bank-account.created' }),
      { action: 'bank-account.updated', category: 'BANK', subject_type: 'BANK_ACCOUNT', subject_id: id, details: 'version 2' },
    ]);
  });

  test('what GET answers, without id and version, plus expectedVersion, is a valid PUT body: a save changes nothing but the version', async () => {
    const { who, id } = await registerWith();
    const { id: _id, version, ...fields } = (await getBankAccount(stack, who, id).expect(200)).body;
    const res = await updateBankAccount(stack, who, id, { ...fields, expectedVersion: version }).expect(200);
    expect(res.body).toEqual({ id, ...fields, version: 2 });
  });

  test('"archive instead of delete": archived true archives it, it leaves the default list, false restores it; the audit events say so', async () => {
    const { who, id } = await registerWith();
    const archived = await updateBankAccount(stack, who, id, { ...FULL, archived: true, expectedVersion: 1 }).expect(200);
    expect(archived.body).toMatchObject({ ...FULL, archived: true, version: 2 });
    const listed = async (archivedFilter: string) =>
      (await api(stack).get(bankAccountsOf(who)).query({ archived: archivedFilter }).set(...bearer(who.accessToken)).expect(200)).body.items.map((a: { id: string }) => a.id);
    expect(await listed('false')).toEqual([]);
    expect(await listed('true')).toEqual([id]);
    const restored = await updateBankAccount(stack, who, id, { ...FULL, archived: false, expectedVersion: 2 }).expect(200);
    expect(restored.body).toMatchObject({ archived: false, version: 3 });
    expect(await listed('false')).toEqual([id]);
    expect(await bankAccountEvents(stack, who)).toEqual([
      expect.objectContaining({ action: 'bank-account.created' }),
      expect.objectContaining({ action: 'bank-account.updated', subject_id: id, details: 'version 2, archived' }),
      expect.objectContaining({ action: 'bank-account.updated', subject_id: id, details: 'version 3, restored from the archive' }),
    ]);
  });

  test('"stale expectedVersion": 409 stale-version, nothing changes, no audit event', async () => {
    const { who, id } = await registerWith();
    await updateBankAccount(stack, who, id, { ...FULL, name: 'Second', archived: false, expectedVersion: 1 }).expect(200);
    for (const expectedVersion of [1, 3, 99]) {
      const res = await updateBankAccount(stack, who, id, { ...FULL, name: 'Lost update', archived: true, expectedVersion }).expect(409);
      expect(res.body.type).toBe('/problems/stale-version');
    }
    expect((await getBankAccount(stack, who, id).expect(200)).body).toMatchObject({ name: 'Second', archived: false, version: 2 });
    expect(await bankAccountEvents(stack, who)).toHaveLength(2);
  });

  test('20 concurrent PUTs with the same expectedVersion: exactly one 200, the rest 409 stale-version', async () => {
    const { who, id } = await registerWith();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => updateBankAccount(stack, who, id, { ...FULL, name: `Writer ${i}`, archived: false, expectedVersion: 1 })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.type === '/problems/stale-version')).toHaveLength(19);
    const winner = results.find((r) => r.status === 200)!.body;
    expect((await getBankAccount(stack, who, id).expect(200)).body).toEqual(winner);
    expect(await bankAccountEvents(stack, who)).toHaveLength(2);
  });

  test('"unique per company": taking another account\'s number is 409 bank-account-number-exists naming it; keeping one\'s own is fine', async () => {
    const { who, id } = await registerWith();
    await createBankAccount(stack, who, MAIN_ACCOUNT).expect(201);
    const taken = await updateBankAccount(stack, who, id, { ...FULL, accountNumber: MAIN_ACCOUNT.accountNumber, archived: false, expectedVersion: 1 }).expect(409);
    expect(taken.body).toMatchObject({ type: '/problems/bank-account-number-exists', accountNumber: MAIN_ACCOUNT.accountNumber });
    expect((await getBankAccount(stack, who, id).expect(200)).body).toMatchObject({ accountNumber: FULL.accountNumber, version: 1 });
    await updateBankAccount(stack, who, id, { ...FULL, name: 'Same number', archived: false, expectedVersion: 1 }).expect(200);
  });

  test.each([
    ['no expectedVersion', { ...FULL, archived: false }, 'validation'],
    ['no archived', { ...FULL, expectedVersion: 1 }, 'validation'],
    ['expectedVersion 0', { ...FULL, archived: false, expectedVersion: 0 }, 'validation'],
    ['"a bank code (MFO) of 4 digits"', { ...FULL, bankCode: '0087', archived: false, expectedVersion: 1 }, 'validation'],
    ['"a bank code (MFO) of 6 digits"', { ...FULL, bankCode: '008730', archived: false, expectedVersion: 1 }, 'validation'],
    ['"an account number of 19 digits"', { ...FULL, accountNumber: '2021484020010000400', archived: false, expectedVersion: 1 }, 'validation'],
    ['"an account number of 21 digits"', { ...FULL, accountNumber: '202148402001000040011', archived: false, expectedVersion: 1 }, 'validation'],
    ['"a name that is blank once trimmed"', { ...FULL, name: '   ', archived: false, expectedVersion: 1 }, 'validation'],
    ['"a currency that is no ISO 4217 code"', { ...FULL, currency: 'XYZ', archived: false, expectedVersion: 1 }, 'validation'],
    ['"a GL account outside 5100–5290 (5020)"', { ...FULL, accountCode: '5020', archived: false, expectedVersion: 1 }, 'validation'],
    ['"a GL account outside 5100–5290 (5300)"', { ...FULL, accountCode: '5300', archived: false, expectedVersion: 1 }, 'validation'],
    ['"a header GL account (5200)"', { ...FULL, accountCode: '5200', archived: false, expectedVersion: 1 }, 'header-account'],
    ['"a GL account the chart does not have (5290)"', { ...FULL, accountCode: '5290', archived: false, expectedVersion: 1 }, 'unknown-account'],
    ['a version member (it is expectedVersion)', { ...FULL, archived: false, expectedVersion: 1, version: 1 }, 'validation'],
  ])('when the body has %s, then 400 and nothing changes', async (_case, body, type) => {
    const { who, id } = await registerWith();
    expect((await updateBankAccount(stack, who, id, body).expect(400)).body.type).toBe(`/problems/${type}`);
    expect((await getBankAccount(stack, who, id).expect(200)).body).toMatchObject({ ...FULL, version: 1 });
    expect(await bankAccountEvents(stack, who)).toHaveLength(1);
  });

  test('when the company is archived, then 409 company-archived and nothing changes; an unknown account there is 404', async () => {
    const { who, id } = await registerWith();
    await archiveCompany(stack, who.me.company.id);
    expect((await updateBankAccount(stack, who, id, { ...FULL, archived: true, expectedVersion: 1 }).expect(409)).body.type).toBe('/problems/company-archived');
    expect((await getBankAccount(stack, who, id).expect(200)).body).toMatchObject({ archived: false, version: 1 });
    await updateBankAccount(stack, who, randomUUID(), { ...FULL, archived: true, expectedVersion: 1 }).expect(404);
  });

  test("when the account is unknown or another company's, then 404 and it stays as it was", async () => {
    const { who, id } = await registerWith();
    expect((await updateBankAccount(stack, who, randomUUID(), { ...FULL, archived: false, expectedVersion: 1 }).expect(404)).body.type).toBe('/problems/not-found');
    await updateBankAccount(stack, bob, id, { ...FULL, name: 'Hijacked', archived: true, expectedVersion: 1 }).expect(404);
    await api(stack).put(`${bankAccountsOf(bob, who.me.company.id)}/${id}`).set(...bearer(bob.accessToken))
      .send({ ...FULL, name: 'Hijacked', archived: true, expectedVersion: 1 }).expect(404);
    expect((await getBankAccount(stack, who, id).expect(200)).body).toMatchObject({ name: FULL.name, archived: false, version: 1 });
  });
});
