import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';

// PostgreSQL text cannot hold U+0000: any text with it (body at any depth, query, path) is a 400
// validation problem naming where it is, for every operation, and nothing is stored.

let stack: TestStack;
let alice: Registered;
let ledger: ReturnType<typeof ledgerApi>;
beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
  ledger = ledgerApi(stack, alice);
});
afterAll(async () => {
  await stack.stop();
});

const NUL = '\u0000';
const accounts = () => `/api/v1/accounting-settings/${alice.me.company.id}/accounts`;

async function count(table: string): Promise<number> {
  const [row] = await stack.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = :t`, {
    replacements: { t: alice.me.tenantId },
    type: QueryTypes.SELECT,
  });
  return row!.n;
}

function expectNulProblem(res: { status: number; body: Record<string, any> }, path: string): void {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ type: '/problems/validation', errors: [{ path, message: expect.stringContaining('U+0000') }] });
}

describe('postJournalEntry: text with U+0000', () => {
  test('when the description contains U+0000, then 400 naming /body/description, and no entry is stored', async () => {
    const [entries, lines] = [await count('journal_entries'), await count('journal_lines')];
    const body = entryBody('2025-03-01', [{ accountCode: '5110', debit: '10.00' }, { accountCode: '9010', credit: '10.00' }], { description: `Rent${NUL}March` });
    expectNulProblem(await ledger.post(body), '/body/description');
    expect([await count('journal_entries'), await count('journal_lines')]).toEqual([entries, lines]);
  });

  test('when a line memo deep in the body contains U+0000, then 400 naming /body/lines/1/memo, and no entry is stored', async () => {
    const before = await count('journal_entries');
    const body = entryBody('2025-03-01', [{ accountCode: '5110', debit: '10.00' }, { accountCode: '9010', credit: '10.00', memo: `${NUL}` }]);
    expectNulProblem(await ledger.post(body), '/body/lines/1/memo');
    expect(await count('journal_entries')).toBe(before);
  });

  test('when a member name contains U+0000, then 400 naming the object that holds it', async () => {
    const body = entryBody('2025-03-01', [{ accountCode: '5110', debit: '10.00' }, { accountCode: '9010', credit: '10.00' }]);
    (body.lines[0] as Record<string, unknown>)[`memo${NUL}`] = 'x';
    expectNulProblem(await ledger.post(body), '/body/lines/0');
  });

  test('when the same entry is sent without U+0000, then 201: the check refuses only the NUL', async () => {
    const body = entryBody('2025-03-01', [{ accountCode: '5110', debit: '10.00' }, { accountCode: '9010', credit: '10.00' }], { description: 'Rent March' });
    await ledger.post(body).expect(201);
  });
});

describe('createCompanyAccount: text with U+0000', () => {
  test('when the name contains U+0000, then 400 naming /body/name, and no account is created', async () => {
    const before = await count('company_accounts');
    const res = await api(stack).post(accounts()).set(...bearer(alice.accessToken)).send({ code: '5170', name: `Wallet${NUL}`, type: 'ASSET', enabled: true });
    expectNulProblem(res, '/body/name');
    expect(await count('company_accounts')).toBe(before);
    await api(stack).get(`${accounts()}/5170`).set(...bearer(alice.accessToken)).expect(404);
  });
});

describe('createCompanySubaccount: text with U+0000', () => {
  test('when the name contains U+0000, then 400 naming /body/name, and no subaccount is created', async () => {
    const before = await count('company_subaccounts');
    const res = await api(stack).post(`${accounts()}/5110/subaccounts`).set(...bearer(alice.accessToken)).send({ code: 'NUL-1', name: `Bank${NUL}`, enabled: true });
    expectNulProblem(res, '/body/name');
    expect(await count('company_subaccounts')).toBe(before);
  });
});

describe('listCompanyAccounts: a query parameter with U+0000', () => {
  test('when q is %00 or holds one, then 400 naming /query/q', async () => {
    for (const q of ['%00', 'cash%00', '%00%00']) {
      expectNulProblem(await api(stack).get(`${accounts()}?q=${q}`).set(...bearer(alice.accessToken)), '/query/q');
    }
  });
});

describe('getCompanyAccount: a path parameter with U+0000', () => {
  test('when the code in the path holds %00, then 400 naming /path/code', async () => {
    expectNulProblem(await api(stack).get(`${accounts()}/51%0010`).set(...bearer(alice.accessToken)), '/path/code');
  });
});

describe('login: a public operation, text with U+0000', () => {
  test('when the password contains U+0000, then 400 naming /body/password, and the answer does not echo it', async () => {
    const password = `secret-${NUL}-password`;
    const res = await api(stack).post('/api/v1/auth/login').send({ email: alice.email, password });
    expectNulProblem(res, '/body/password');
    expect(res.text).not.toContain('secret-');
  });
});
