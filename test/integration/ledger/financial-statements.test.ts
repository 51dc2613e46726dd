import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi, waitForClose } from '../../helpers/ledger';
import { numericToMinorUnits } from '../../../core/ledger/money';

// Form No. 1 and Form No. 2 from their templates, through the API.

let stack: TestStack;
let owner: Registered;
let ledger: ReturnType<typeof ledgerApi>;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  ledger = ledgerApi(stack, owner);
  const post = (body: unknown) => ledger.post(body).expect(201);
  await post(entryBody('2023-02-01', [{ accountCode: '5110', debit: '1000.00' }, { accountCode: '8330', credit: '1000.00' }]));
  await post(entryBody('2023-03-01', [{ accountCode: '2910', debit: '300.00' }, { accountCode: '6010', credit: '300.00' }]));
  await post(entryBody('2023-04-01', [{ accountCode: '4010', debit: '600.00' }, { accountCode: '9010', credit: '600.00' }]));
  await post(entryBody('2023-04-02', [{ accountCode: '9110', debit: '250.00' }, { accountCode: '2910', credit: '250.00' }]));
  await post(entryBody('2023-05-01', [{ accountCode: '9410', debit: '100.00' }, { accountCode: '5110', credit: '100.00' }]));
  // A customer paid in advance more than it owes: 4010 of that subaccount-less account stays a receivable overall.
  await post(entryBody('2023-05-10', [{ accountCode: '5110', debit: '50.00' }, { accountCode: '6310', credit: '50.00' }]));
});
afterAll(async () => {
  await stack.stop();
});

type Row = { code: string; amount: string | null; priorAmount: string | null; accounts: Array<{ accountCode: string; amount: string; priorAmount: string }> };
const row = (rows: Row[], code: string) => rows.find((r) => r.code === code)!;
const get = (path: string, query: Record<string, string>, status = 200) =>
  api(stack).get(`${ledger.base}/reports/${path}`).query(query).set(...bearer(owner.accessToken)).expect(status);

describe('getBalanceSheet: GET /api/v1/ledger/{legalEntityId}/reports/balance-sheet', () => {
  test('Form 1 balances: total assets (400) equal total liabilities and equity (780), the current result included; rows drill down to accounts', async () => {
    const res = (await get('balance-sheet', { asOf: '2023-06-30' })).body;
    expect(res).toMatchObject({ form: 'FORM_1', to: '2023-06-30', priorTo: '2022-12-31', version: expect.any(String), source: expect.stringContaining('No. 140') });
    const rows: Row[] = res.rows;
    // Assets: cash 950, inventory 50, receivable 600 = 1600; equity 1000 + result 250 (600 − 250 − 100), payables 300 + advance 50.
    expect(row(rows, '400').amount).toBe('1600.00');
    expect(row(rows, '780').amount).toBe('1600.00');
    expect(row(rows, '400').priorAmount).toBe('0.00');
    const drilled = rows.flatMap((r) => r.accounts.map((a) => [r.code, a.accountCode, a.amount]));
    expect(drilled).toEqual(expect.arrayContaining([expect.arrayContaining(['4010', '600.00']), expect.arrayContaining(['5110', '950.00']), expect.arrayContaining(['6010', '300.00'])]));
    // Each row read from accounts is the sum of its drill-down.
    for (const r of rows.filter((x) => x.accounts.length > 0)) {
      expect(r.accounts.reduce((sum, a) => sum + numericToMinorUnits(a.amount), 0n)).toBe(numericToMinorUnits(r.amount!));
    }
  });
});

describe('getFinancialResults: GET /api/v1/ledger/{legalEntityId}/reports/financial-results', () => {
  test('Form 2: revenue, cost of sales and expenses; net profit (270) is income less expenses, and the year-end close changes nothing in it', async () => {
    const half = (await get('financial-results', { from: '2023-01-01', to: '2023-06-30' })).body;
    expect(half).toMatchObject({ form: 'FORM_2', from: '2023-01-01', to: '2023-06-30', priorFrom: '2022-01-01', priorTo: '2022-06-30' });
    expect(row(half.rows, '010').amount).toBe('600.00');
    expect(row(half.rows, '270').amount).toBe('250.00');
    expect(row(half.rows, '270').priorAmount).toBe('0.00');

    const close = await ledger.close('2023-12-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    const year = (await get('financial-results', { from: '2023-01-01', to: '2023-12-31' })).body;
    expect(row(year.rows, '270').amount).toBe('250.00');
    // …which is what moved into retained earnings (8710), and Form 1 still balances after the close.
    const tb = (await ledger.trialBalance('2023-12-31').expect(200)).body;
    expect(tb.lines.find((l: { code: string }) => l.code === '8710').balance).toBe('250.00');
    const sheet = (await get('balance-sheet', { asOf: '2023-12-31' })).body;
    expect(row(sheet.rows, '400').amount).toBe(row(sheet.rows, '780').amount);
    // The next year's balance sheet shows 2023's end in its prior column.
    const next = (await get('balance-sheet', { asOf: '2024-03-31' })).body;
    expect(row(next.rows, '400').priorAmount).toBe(row(sheet.rows, '400').amount);
  });

  test("another workspace's company is 404 for every report, and nothing of it is shown", async () => {
    const other = await registerWorkspace(stack);
    const reports: Array<[string, Record<string, string>]> = [
      ['balance-sheet', { asOf: '2023-06-30' }],
      ['financial-results', { from: '2023-01-01', to: '2023-06-30' }],
      ['account-statement', { accountCode: '5110', from: '2023-01-01', to: '2023-06-30' }],
      ['turnover-sheet', { from: '2023-01-01', to: '2023-06-30' }],
    ];
    for (const [path, query] of reports) {
      const res = await api(stack).get(`${ledger.base}/reports/${path}`).query(query).set(...bearer(other.accessToken)).expect(404);
      expect(res.body.type).toBe('/problems/not-found');
    }
  });

  test('a bad period is 400', async () => {
    await get('financial-results', { from: '2023-06-30', to: '2023-01-01' }, 400);
    await get('financial-results', { from: '2022-01-01', to: '2023-06-30' }, 400);
    await get('balance-sheet', { asOf: '2023-02-30' }, 400);
  });
});
