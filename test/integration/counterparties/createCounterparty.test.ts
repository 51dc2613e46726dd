import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import {
  BANK_ACCOUNT,
  counterpartiesOf,
  counterpartyEvents,
  createCounterparty,
  getCounterparty,
  storedCounterparties,
  updateCounterparty,
} from '../../helpers/counterparties';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
/** A workspace whose register every create refuses: it stays empty. */
let carol: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob, carol] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack), registerWorkspace(stack)]);
});
afterAll(async () => {
  await stack.stop();
});

const create = (who: Registered, body: Record<string, unknown>) => createCounterparty(stack, who, body);

describe('POST /counterparties/{legalEntityId} (createCounterparty)', () => {
  test('when every field is given, then 201 with the counterparty at version 1, active, the name trimmed; GET answers the same; one audit event', async () => {
    const who = await registerWorkspace(stack);
    const second = { bankCode: '00873', accountNumber: '20208000400500002002' };
    const res = await create(who, {
      name: '  Toshkent Savdo LLC ',
      tin: '301234567',
      vatRegistrationCode: '326010012345',
      bankAccounts: [BANK_ACCOUNT, second],
      address: ' Tashkent, Amir Temur 1 ',
      paymentTermsDays: 30,
    }).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Toshkent Savdo LLC',
      tin: '301234567',
      pinfl: null,
      vatRegistrationCode: '326010012345',
      bankAccounts: [BANK_ACCOUNT, second],
      address: 'Tashkent, Amir Temur 1',
      paymentTermsDays: 30,
      archived: false,
      version: 1,
    });
    expect((await getCounterparty(stack, who, res.body.id).expect(200)).body).toEqual(res.body);
    expect(await counterpartyEvents(stack, who)).toEqual([
      { action: 'counterparty.created', category: 'COUNTERPARTIES', subject_type: 'COUNTERPARTY', subject_id: res.body.id, details: 'version 1' },
    ]);
  });

  test('when only a name is given (a foreign customer), then no TIN or PINFL, no bank accounts, no address and terms of 0 days', async () => {
    const res = await create(alice, { name: 'Foreign Buyer GmbH' }).expect(201);
    expect(res.body).toMatchObject({ tin: null, pinfl: null, vatRegistrationCode: null, bankAccounts: [], address: null, paymentTermsDays: 0, archived: false, version: 1 });
  });

  test('when an individual is given with a PINFL, and null for what is absent, then 201', async () => {
    const res = await create(alice, { name: 'Karimov Anvar', tin: null, pinfl: '31234567890123', vatRegistrationCode: null, address: null }).expect(201);
    expect(res.body).toMatchObject({ tin: null, pinfl: '31234567890123' });
  });

  test('the limits are inclusive: a name of 200 characters, an address of 500, 10 bank accounts, terms of 365 days', async () => {
    const accounts = Array.from({ length: 10 }, (_, i) => ({ bankCode: '00014', accountNumber: `2020800090010000101${i}` }));
    const res = await create(alice, { name: 'n'.repeat(200), address: 'a'.repeat(500), bankAccounts: accounts, paymentTermsDays: 365 }).expect(201);
    expect(res.body).toMatchObject({ name: 'n'.repeat(200), paymentTermsDays: 365 });
    expect(res.body.bankAccounts).toEqual(accounts);
  });

  const validationCases: Array<[string, Record<string, unknown>]> = [
    ['no name', { tin: '301234567' }],
    ['an empty name', { name: '' }],
    ['"a name that is blank once trimmed"', { name: ' \t\u00a0 ' }],
    ['a name of 201 characters', { name: 'n'.repeat(201) }],
    ['"a TIN of 8 digits"', { name: 'x', tin: '30123456' }],
    ['"a TIN of 10 digits"', { name: 'x', tin: '3012345678' }],
    ['a TIN with a letter', { name: 'x', tin: '30123456A' }],
    ['a TIN of full-width digits', { name: 'x', tin: '３０１２３４５６７' }],
    ['a TIN as a number', { name: 'x', tin: 301234567 }],
    ['"a PINFL of 13 digits"', { name: 'x', pinfl: '3123456789012' }],
    ['"a PINFL of 15 digits"', { name: 'x', pinfl: '312345678901234' }],
    ['"both a TIN and a PINFL"', { name: 'x', tin: '301234567', pinfl: '31234567890123' }],
    ['a VAT registration code of 11 digits', { name: 'x', vatRegistrationCode: '32601001234' }],
    ['a bank code of 4 digits', { name: 'x', bankAccounts: [{ ...BANK_ACCOUNT, bankCode: '0001' }] }],
    ['an account number of 19 digits', { name: 'x', bankAccounts: [{ ...BANK_ACCOUNT, accountNumber: '2020800090010000101' }] }],
    ['a bank account without its number', { name: 'x', bankAccounts: [{ bankCode: '00014' }] }],
    ['a bank account with another member', { name: 'x', bankAccounts: [{ ...BANK_ACCOUNT, currency: 'UZS' }] }],
    ['"the same bank account twice"', { name: 'x', bankAccounts: [BANK_ACCOUNT, { accountNumber: BANK_ACCOUNT.accountNumber, bankCode: BANK_ACCOUNT.bankCode }] }],
    ['"11 bank accounts"', { name: 'x', bankAccounts: Array.from({ length: 11 }, (_, i) => ({ bankCode: '00014', accountNumber: `202080009001000010${String(i).padStart(2, '0')}` })) }],
    ['an address of 501 characters', { name: 'x', address: 'a'.repeat(501) }],
    ['"payment terms of -1 days"', { name: 'x', paymentTermsDays: -1 }],
    ['"payment terms of 366 days"', { name: 'x', paymentTermsDays: 366 }],
    ['payment terms of 1.5 days', { name: 'x', paymentTermsDays: 1.5 }],
    ['archived (a new counterparty is active)', { name: 'x', archived: true }],
    ['a member the document does not have', { name: 'x', kind: 'CUSTOMER' }],
  ];

  test.each(validationCases)('when the body has %s, then 400 validation and nothing is stored', async (_case, body) => {
    const res = await create(carol, body).expect(400);
    expect(res.body.type).toBe('/problems/validation');
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(await storedCounterparties(stack, carol)).toEqual([]);
    expect(await counterpartyEvents(stack, carol)).toEqual([]);
  });

  test('"a TIN is unique per company": the same TIN again is 409 counterparty-tin-exists naming it, archived or not; nothing more is stored', async () => {
    const who = await registerWorkspace(stack);
    const first = await create(who, { name: 'Original LLC', tin: '302000001' }).expect(201);
    const dup = await create(who, { name: 'Copy LLC', tin: '302000001' }).expect(409);
    expect(dup.body).toMatchObject({ type: '/problems/counterparty-tin-exists', status: 409, tin: '302000001' });
    await updateCounterparty(stack, who, first.body.id, { name: 'Original LLC', tin: '302000001', archived: true, expectedVersion: 1 }).expect(200);
    expect((await create(who, { name: 'After the archive', tin: '302000001' }).expect(409)).body.tin).toBe('302000001');
    expect(await storedCounterparties(stack, who)).toHaveLength(1);
    expect((await counterpartyEvents(stack, who)).map((e) => e.action)).toEqual(['counterparty.created', 'counterparty.archived']);
  });

  test('"a PINFL is unique per company": the same PINFL again is 409 counterparty-tin-exists naming the PINFL', async () => {
    const who = await registerWorkspace(stack);
    await create(who, { name: 'Karimov Anvar', pinfl: '41234567890123' }).expect(201);
    const dup = await create(who, { name: 'Karimov A.', pinfl: '41234567890123' }).expect(409);
    expect(dup.body).toMatchObject({ type: '/problems/counterparty-tin-exists', pinfl: '41234567890123' });
  });

  test('the same TIN in another workspace is another counterparty; many counterparties without a TIN may share a name', async () => {
    await create(bob, { name: 'Shared LLC', tin: '303000003' }).expect(201);
    await create(alice, { name: 'Shared LLC', tin: '303000003' }).expect(201);
    await create(alice, { name: 'No Number Ltd' }).expect(201);
    await create(alice, { name: 'No Number Ltd' }).expect(201);
  });

  test('100 concurrent creates with the same TIN: exactly one 201, 99 409 counterparty-tin-exists, one row, one audit event', async () => {
    const who = await registerWorkspace(stack);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => create(who, { name: `Racer ${i}`, tin: '304000004' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(99);
    for (const r of refused) expect(r.body).toMatchObject({ type: '/problems/counterparty-tin-exists', tin: '304000004' });
    const stored = await storedCounterparties(stack, who);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: results.find((r) => r.status === 201)!.body.id, tin: '304000004' });
    expect(await counterpartyEvents(stack, who)).toHaveLength(1);
  });

  test('when the company is archived, then 409 company-archived and nothing is stored', async () => {
    const who = await registerWorkspace(stack);
    await archiveCompany(stack, who.me.company.id);
    expect((await create(who, { name: 'Too late' }).expect(409)).body.type).toBe('/problems/company-archived');
    expect(await storedCounterparties(stack, who)).toEqual([]);
  });

  test("when the company is another tenant's, or none, then 404 and nothing is stored there", async () => {
    const who = await registerWorkspace(stack);
    const res = await api(stack).post(counterpartiesOf(who)).set(...bearer(bob.accessToken)).send({ name: 'Planted' }).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    await api(stack).post(counterpartiesOf(bob, randomUUID())).set(...bearer(bob.accessToken)).send({ name: 'Nowhere' }).expect(404);
    expect(await storedCounterparties(stack, who)).toEqual([]);
  });
});

describe('"the rules live in the database as well": rows written around the API are refused', () => {
  const insert = (who: Registered, columns: Record<string, string>) => {
    const values = { name: "'Direct'", tin: 'NULL', pinfl: 'NULL', bank_accounts: "'[]'", payment_terms_days: '0', ...columns };
    return stack.admin.query(
      `INSERT INTO counterparties (tenant_id, id, legal_entity_id, name, tin, pinfl, bank_accounts, payment_terms_days, version)
       VALUES (:t, gen_random_uuid(), :l, ${values.name}, ${values.tin}, ${values.pinfl}, ${values.bank_accounts}::jsonb, ${values.payment_terms_days}, 1)`,
      { replacements: { t: who.me.tenantId, l: who.me.company.id } },
    );
  };
  const pair = (bankCode: string, accountNumber: string) => `{"bankCode":"${bankCode}","accountNumber":"${accountNumber}"}`;
  const good = pair(BANK_ACCOUNT.bankCode, BANK_ACCOUNT.accountNumber);

  test.each([
    ['a TIN of 8 digits', { tin: "'30123456'" }],
    ['a PINFL with a letter', { pinfl: "'3123456789012X'" }],
    ['both a TIN and a PINFL', { tin: "'301234567'", pinfl: "'31234567890123'" }],
    ['a blank name', { name: "''" }],
    ['an untrimmed name', { name: "' Padded '" }],
    ['payment terms of 366 days', { payment_terms_days: '366' }],
    ['bank accounts that are no list', { bank_accounts: `'${good}'` }],
    ['a bank account with a short bank code', { bank_accounts: `'[${pair('0001', BANK_ACCOUNT.accountNumber)}]'` }],
    ['a bank account with another member', { bank_accounts: `'[{"bankCode":"00014","accountNumber":"${BANK_ACCOUNT.accountNumber}","x":1}]'` }],
    ['a bank account whose number is a number', { bank_accounts: `'[{"bankCode":"00014","accountNumber":20208000900100001010}]'` }],
    ['the same bank account twice', { bank_accounts: `'[${good},${good}]'` }],
    ['11 bank accounts', { bank_accounts: `'[${Array.from({ length: 11 }, (_, i) => pair('00014', `202080009001000010${String(i).padStart(2, '0')}`)).join(',')}]'` }],
  ])('%s', async (_case, columns) => {
    await expect(insert(carol, columns)).rejects.toThrow(/violates check constraint/);
  });

  test('a second row with the same TIN in the company', async () => {
    const who = await registerWorkspace(stack);
    await insert(who, { tin: "'305000005'" });
    await expect(insert(who, { tin: "'305000005'" })).rejects.toMatchObject({ original: expect.objectContaining({ code: '23505', constraint: 'counterparties_tin_key' }) });
    await insert(who, { bank_accounts: `'[${good}]'` });
  });
});
