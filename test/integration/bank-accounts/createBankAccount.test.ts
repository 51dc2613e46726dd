import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import {
  MAIN_ACCOUNT,
  bankAccountEvents,
  bankAccountsOf,
  createBankAccount,
  getBankAccount,
  storedBankAccounts,
  updateBankAccount,
} from '../../helpers/bank-accounts';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
/** A workspace whose register every create refuses: it stays empty. */
let carol: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob, carol] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack), registerWorkspace(stack)]);
  // A custom detail account of carol's chart inside the bank range, and one outside it.
  const chart = `/api/v1/accounting-settings/${carol.me.company.id}/accounts`;
  await api(stack).post(chart).set(...bearer(carol.accessToken)).send({ code: '5130', name: 'Deposit account', type: 'ASSET', enabled: true }).expect(201);
});
afterAll(async () => {
  await stack.stop();
});

const create = (who: Registered, body: Record<string, unknown>) => createBankAccount(stack, who, body);
/** A fresh twenty-digit account number per call, so the cases below never collide with each other. */
let serial = 0;
const freshNumber = () => `2020800010010000${String(++serial).padStart(4, '0')}`;

describe('POST /bank-accounts/{legalEntityId} (createBankAccount)', () => {
  test('when every field is given, then 201 with the account at version 1, active, the name trimmed; GET answers the same; one audit event', async () => {
    const who = await registerWorkspace(stack);
    const res = await create(who, { bankCode: '00873', accountNumber: '20214840200100001001', currency: 'USD', accountCode: '5220', name: '  Dollar account abroad ' }).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      bankCode: '00873',
      accountNumber: '20214840200100001001',
      currency: 'USD',
      accountCode: '5220',
      name: 'Dollar account abroad',
      archived: false,
      version: 1,
    });
    expect((await getBankAccount(stack, who, res.body.id).expect(200)).body).toEqual(res.body);
    expect(await bankAccountEvents(stack, who)).toEqual([
      { action: 'bank-account.created', category: 'BANK', subject_type: 'BANK_ACCOUNT', subject_id: res.body.id, details: 'version 1' },
    ]);
  });

  test('"UZS default, 5110 for UZS": without a currency or GL account, the account is in UZS on 5110', async () => {
    const res = await create(alice, { ...MAIN_ACCOUNT, accountNumber: freshNumber() }).expect(201);
    expect(res.body).toMatchObject({ currency: 'UZS', accountCode: '5110' });
  });

  test('"5210 for foreign by default": a foreign currency without a GL account is kept on 5210', async () => {
    const res = await create(alice, { ...MAIN_ACCOUNT, accountNumber: freshNumber(), currency: 'EUR' }).expect(201);
    expect(res.body).toMatchObject({ currency: 'EUR', accountCode: '5210' });
  });

  test('a custom detail account of the company inside 5100–5290 may hold a bank account', async () => {
    const res = await create(carol, { ...MAIN_ACCOUNT, accountNumber: freshNumber(), accountCode: '5130' }).expect(201);
    expect(res.body.accountCode).toBe('5130');
    await updateBankAccount(stack, carol, res.body.id, { ...MAIN_ACCOUNT, accountNumber: res.body.accountNumber, accountCode: '5130', archived: true, expectedVersion: 1 }).expect(200);
  });

  test('the limits are inclusive: a name of 200 characters', async () => {
    const res = await create(alice, { ...MAIN_ACCOUNT, accountNumber: freshNumber(), name: 'n'.repeat(200) }).expect(201);
    expect(res.body.name).toBe('n'.repeat(200));
  });

  const validationCases: Array<[string, Record<string, unknown>]> = [
    ['"a bank code (MFO) of 4 digits"', { ...MAIN_ACCOUNT, bankCode: '0001' }],
    ['"a bank code (MFO) of 6 digits"', { ...MAIN_ACCOUNT, bankCode: '000140' }],
    ['a bank code with a letter', { ...MAIN_ACCOUNT, bankCode: '0001A' }],
    ['a bank code as a number', { ...MAIN_ACCOUNT, bankCode: 14 }],
    ['"an account number of 19 digits"', { ...MAIN_ACCOUNT, accountNumber: '2020800010010000100' }],
    ['"an account number of 21 digits"', { ...MAIN_ACCOUNT, accountNumber: '202080001001000010011' }],
    ['an account number of full-width digits', { ...MAIN_ACCOUNT, accountNumber: '２０２０８０００１００１００００１００１' }],
    ['no bank code', { accountNumber: MAIN_ACCOUNT.accountNumber, name: 'x' }],
    ['no account number', { bankCode: MAIN_ACCOUNT.bankCode, name: 'x' }],
    ['no name', { bankCode: MAIN_ACCOUNT.bankCode, accountNumber: MAIN_ACCOUNT.accountNumber }],
    ['"a name that is blank once trimmed"', { ...MAIN_ACCOUNT, name: ' \t\u00a0 ' }],
    ['a name of 201 characters', { ...MAIN_ACCOUNT, name: 'n'.repeat(201) }],
    ['a currency in lower case', { ...MAIN_ACCOUNT, currency: 'usd' }],
    ['"a currency that is no ISO 4217 code"', { ...MAIN_ACCOUNT, currency: 'XYZ' }],
    ['"a GL account below 5100 (cash on hand, 5010)"', { ...MAIN_ACCOUNT, accountCode: '5010' }],
    ['"a GL account above 5290 (letters of credit, 5510)"', { ...MAIN_ACCOUNT, accountCode: '5510' }],
    ['"a GL account far outside the range (revenue, 9010)"', { ...MAIN_ACCOUNT, accountCode: '9010' }],
    ['a GL account of 3 digits', { ...MAIN_ACCOUNT, accountCode: '511' }],
    ['archived (a new account is active)', { ...MAIN_ACCOUNT, archived: true }],
    ['a member the document does not have', { ...MAIN_ACCOUNT, iban: 'UZ00' }],
  ];

  test.each(validationCases)('when the body has %s, then 400 validation and nothing is stored', async (_case, body) => {
    const res = await create(carol, body).expect(400);
    expect(res.body.type).toBe('/problems/validation');
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(await storedBankAccounts(stack, carol)).toHaveLength(1); // only the one on 5130 above
    expect((await bankAccountEvents(stack, carol)).map((e) => e.action)).toEqual(['bank-account.created', 'bank-account.updated']);
  });

  test.each([
    ['"a header account (5100)"', '5100', 'header-account', '5110'],
    ['"a header account (5200)"', '5200', 'header-account', '5210, 5220'],
    ['a GL account in the range that the chart does not have (5150)', '5150', 'unknown-account', '5150'],
  ])('when the GL account is %s, then 400 and nothing is stored', async (_case, accountCode, type, named) => {
    const who = await registerWorkspace(stack);
    const res = await create(who, { ...MAIN_ACCOUNT, accountCode }).expect(400);
    expect(res.body).toMatchObject({ type: `/problems/${type}`, errors: [{ path: '/body/accountCode' }] });
    expect(res.body.detail).toContain(named);
    expect(await storedBankAccounts(stack, who)).toEqual([]);
    expect(await bankAccountEvents(stack, who)).toEqual([]);
  });

  test('"unique per company": the same account number again is 409 bank-account-number-exists naming it, archived or not; nothing more is stored', async () => {
    const who = await registerWorkspace(stack);
    const first = await create(who, MAIN_ACCOUNT).expect(201);
    const dup = await create(who, { ...MAIN_ACCOUNT, bankCode: '00873', name: 'Copy' }).expect(409);
    expect(dup.body).toMatchObject({ type: '/problems/bank-account-number-exists', status: 409, accountNumber: MAIN_ACCOUNT.accountNumber });
    await updateBankAccount(stack, who, first.body.id, { ...MAIN_ACCOUNT, archived: true, expectedVersion: 1 }).expect(200);
    expect((await create(who, MAIN_ACCOUNT).expect(409)).body.accountNumber).toBe(MAIN_ACCOUNT.accountNumber);
    expect(await storedBankAccounts(stack, who)).toHaveLength(1);
    expect((await bankAccountEvents(stack, who)).map((e) => e.action)).toEqual(['bank-account.created', 'bank-account.updated']);
  });

  test('the same account number in another workspace is another account', async () => {
    const number = freshNumber();
    await create(bob, { ...MAIN_ACCOUNT, accountNumber: number }).expect(201);
    await create(alice, { ...MAIN_ACCOUNT, accountNumber: number }).expect(201);
  });

  test('"concurrent creates: exactly one wins": 50 creates of one number give one 201, 49 409 bank-account-number-exists, one row, one audit event', async () => {
    const who = await registerWorkspace(stack);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => create(who, { ...MAIN_ACCOUNT, name: `Racer ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(49);
    for (const r of refused) expect(r.body).toMatchObject({ type: '/problems/bank-account-number-exists', accountNumber: MAIN_ACCOUNT.accountNumber });
    const stored = await storedBankAccounts(stack, who);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: results.find((r) => r.status === 201)!.body.id, account_number: MAIN_ACCOUNT.accountNumber });
    expect(await bankAccountEvents(stack, who)).toHaveLength(1);
  });

  test('when the company is archived, then 409 company-archived and nothing is stored', async () => {
    const who = await registerWorkspace(stack);
    await archiveCompany(stack, who.me.company.id);
    expect((await create(who, MAIN_ACCOUNT).expect(409)).body.type).toBe('/problems/company-archived');
    expect(await storedBankAccounts(stack, who)).toEqual([]);
  });

  test("when the company is another tenant's, or none, then 404 and nothing is stored there", async () => {
    const who = await registerWorkspace(stack);
    const res = await api(stack).post(bankAccountsOf(who)).set(...bearer(bob.accessToken)).send(MAIN_ACCOUNT).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    await api(stack).post(bankAccountsOf(bob, randomUUID())).set(...bearer(bob.accessToken)).send(MAIN_ACCOUNT).expect(404);
    expect(await storedBankAccounts(stack, who)).toEqual([]);
  });
});

describe('"every rule also as a constraint": rows written around the API are refused', () => {
  const insert = (who: Registered, columns: Record<string, string>) => {
    const values = { bank_code: "'00014'", account_number: `'${MAIN_ACCOUNT.accountNumber}'`, currency: "'UZS'", account_code: "'5110'", name: "'Direct'", version: '1', ...columns };
    return stack.admin.query(
      `INSERT INTO bank_accounts (tenant_id, id, legal_entity_id, bank_code, account_number, currency, account_code, name, version)
       VALUES (:t, gen_random_uuid(), :l, ${values.bank_code}, ${values.account_number}, ${values.currency}, ${values.account_code}, ${values.name}, ${values.version})`,
      { replacements: { t: who.me.tenantId, l: who.me.company.id } },
    );
  };

  test.each([
    ['a bank code of 4 digits', { bank_code: "'0001'" }],
    ['a bank code of 6 digits', { bank_code: "'000140'" }],
    ['an account number of 19 digits', { account_number: "'2020800010010000100'" }],
    ['an account number of 21 digits', { account_number: "'202080001001000010011'" }],
    ['a currency in lower case', { currency: "'uzs'" }],
    ['a GL account below 5100', { account_code: "'5010'" }],
    ['a GL account above 5290', { account_code: "'5510'" }],
    ['a blank name', { name: "''" }],
    ['an untrimmed name', { name: "' Padded '" }],
    ['version 0', { version: '0' }],
  ])('%s', async (_case, columns) => {
    await expect(insert(carol, columns)).rejects.toThrow(/violates check constraint/);
  });

  test('a header GL account, or one the chart does not have', async () => {
    await expect(insert(carol, { account_code: "'5200'", account_number: "'20208000100100009991'" })).rejects.toThrow(/header account/);
    await expect(insert(carol, { account_code: "'5150'", account_number: "'20208000100100009992'" })).rejects.toThrow(/no account 5150/);
  });

  test('a second row with the same account number in the company', async () => {
    const who = await registerWorkspace(stack);
    await insert(who, {});
    await expect(insert(who, { bank_code: "'00873'" })).rejects.toMatchObject({ original: expect.objectContaining({ code: '23505', constraint: 'bank_accounts_account_number_key' }) });
  });
});
