import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

// The account statement: one account's lines of a date range with a running balance kept across pages.
// Its foreign lines use MANUAL rates, so this file needs no stored rates.

let stack: TestStack;
let owner: Registered;
let ledger: ReturnType<typeof ledgerApi>;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  ledger = ledgerApi(stack, owner);
  const post = (body: unknown) => ledger.post(body).expect(201);
  await post(entryBody('2024-04-01', [{ accountCode: '5110', debit: '1000.00' }, { accountCode: '8330', credit: '1000.00' }]));
  // Twelve movements on 5110 in April, each against one or two accounts.
  for (let day = 2; day <= 13; day++) {
    const amount = `${day}.50`;
    const date = `2024-04-${String(day).padStart(2, '0')}`;
    if (day % 3 === 0) {
      await post(entryBody(date, [{ accountCode: '9410', debit: amount }, { accountCode: '5110', credit: amount }], { description: `Expense ${day}` }));
    } else {
      await post(
        entryBody(date, [{ accountCode: '5110', debit: amount }, { accountCode: '9010', credit: `${day}.00` }, { accountCode: '6410', credit: '0.50' }], { description: `Sale ${day}` }),
      );
    }
  }
  await post(entryBody('2024-05-02', [{ accountCode: '5110', debit: '7.00' }, { accountCode: '9010', credit: '7.00' }]));
  await post(
    entryBody('2024-04-20', [
      { accountCode: '6010', credit: '2570.00', currency: 'USD', currencyAmount: '0.20', rate: '12850', rateSource: 'MANUAL' },
      { accountCode: '9410', debit: '2570.00' },
    ] as never),
  );
  await post(
    entryBody('2024-04-25', [
      { accountCode: '6010', debit: '1290.00', currency: 'USD', currencyAmount: '0.10', rate: '12900', rateSource: 'MANUAL' },
      { accountCode: '5110', credit: '1290.00' },
    ] as never),
  );
});
afterAll(async () => {
  await stack.stop();
});

const statement = (query: Record<string, string | number>, status = 200) =>
  api(stack).get(`${ledger.base}/reports/account-statement`).query(query).set(...bearer(owner.accessToken)).expect(status);

type Line = { entryNumber: number; entryDate: string; description: string; counterAccounts: string[]; debit: string; credit: string; balance: string };

describe('getAccountStatement: GET /api/v1/ledger/{legalEntityId}/reports/account-statement', () => {
  test('opening balance, each line with its entry, counter-accounts and running balance, turnovers and closing balance', async () => {
    const res = await statement({ accountCode: '5110', from: '2024-04-02', to: '2024-04-30', size: 100 });
    const body = res.body;
    expect(body).toMatchObject({ accountCode: '5110', type: 'ASSET', normalSide: 'DEBIT', subaccountId: null, currency: null, openingBalance: '1000.00', page: 0, totalElements: 13 });
    expect(body.items[0]).toMatchObject({ entryNumber: 2, entryDate: '2024-04-02', description: 'Sale 2', counterAccounts: ['6410', '9010'], debit: '2.50', credit: '0.00', balance: '1002.50' });
    expect(body.items[1]).toMatchObject({ entryNumber: 3, description: 'Expense 3', counterAccounts: ['9410'], debit: '0.00', credit: '3.50', balance: '999.00' });
    expect(body.items[12]).toMatchObject({ entryDate: '2024-04-25', counterAccounts: ['6010'], credit: '1290.00' });
    // The running balance is the opening balance plus each line, in order.
    let running = numericToMinorUnits(body.openingBalance);
    for (const line of body.items as Line[]) {
      running += numericToMinorUnits(line.debit) - numericToMinorUnits(line.credit);
      expect(line.balance).toBe(formatMinorUnits(running));
    }
    expect(body.closingBalance).toBe(formatMinorUnits(running));
    expect(numericToMinorUnits(body.openingBalance) + numericToMinorUnits(body.turnoverDebit) - numericToMinorUnits(body.turnoverCredit)).toBe(running);
    // The closing balance is the trial balance's at the end date.
    const tb = (await ledger.trialBalance('2024-04-30').expect(200)).body;
    expect(tb.lines.find((l: { code: string }) => l.code === '5110').balance).toBe(body.closingBalance);
  });

  test('paged, each page carries on from the running balance before it, and the pages add up to the whole', async () => {
    const whole: Line[] = (await statement({ accountCode: '5110', from: '2024-04-02', to: '2024-04-30', size: 100 })).body.items;
    const pages: Line[] = [];
    for (let page = 0; page < 3; page++) {
      const res = (await statement({ accountCode: '5110', from: '2024-04-02', to: '2024-04-30', size: 5, page })).body;
      expect(res).toMatchObject({ totalElements: 13, totalPages: 3 });
      const before = pages.length === 0 ? res.openingBalance : pages[pages.length - 1]!.balance;
      expect(res.pageOpeningBalance).toBe(before);
      pages.push(...res.items);
    }
    expect(pages).toEqual(whole);
    // Beyond the last page: no lines, and the page opens at the closing balance.
    const beyond = (await statement({ accountCode: '5110', from: '2024-04-02', to: '2024-04-30', size: 5, page: 3 })).body;
    expect(beyond.items).toEqual([]);
    expect(beyond.pageOpeningBalance).toBe(beyond.closingBalance);
  });

  test('a credit-side account runs on its normal side; with a currency, the foreign amounts run too', async () => {
    const res = (await statement({ accountCode: '6010', from: '2024-04-01', to: '2024-04-30', currency: 'USD' })).body;
    expect(res).toMatchObject({ normalSide: 'CREDIT', currency: 'USD', openingBalance: '0.00', closingBalance: '1280.00', currencyOpeningBalance: '0.00', currencyClosingBalance: '0.10' });
    expect(res.items.map((l: Line & { currencyAmount: string; currencyBalance: string }) => [l.credit, l.debit, l.balance, l.currencyAmount, l.currencyBalance])).toEqual([
      ['2570.00', '0.00', '2570.00', '-0.20', '0.20'],
      ['0.00', '1290.00', '1280.00', '0.10', '0.10'],
    ]);
  });

  test('lines of one day are in entry-number order, #9 before #10 (numbers, not text)', async () => {
    const other = await registerWorkspace(stack);
    const books = ledgerApi(stack, other);
    for (let i = 1; i <= 8; i++) await books.post(entryBody(`2024-01-0${i}`, [{ accountCode: '9410', debit: '1.00' }, { accountCode: '6010', credit: '1.00' }])).expect(201);
    await books.post(entryBody('2024-01-20', [{ accountCode: '5110', debit: '9.00' }, { accountCode: '8330', credit: '9.00' }])).expect(201);
    await books.post(entryBody('2024-01-20', [{ accountCode: '5110', debit: '10.00' }, { accountCode: '8330', credit: '10.00' }])).expect(201);
    const res = await api(stack)
      .get(`${books.base}/reports/account-statement`)
      .query({ accountCode: '5110', from: '2024-01-01', to: '2024-01-31' })
      .set(...bearer(other.accessToken))
      .expect(200);
    expect(res.body.items.map((l: Line) => [l.entryNumber, l.balance])).toEqual([
      [9, '9.00'],
      [10, '19.00'],
    ]);
  });

  test('an account without lines in the range has its balances and no lines; an unknown account is 404; a bad range is 400', async () => {
    const quiet = (await statement({ accountCode: '8330', from: '2024-04-02', to: '2024-04-30' })).body;
    expect(quiet).toMatchObject({ openingBalance: '1000.00', closingBalance: '1000.00', turnoverDebit: '0.00', turnoverCredit: '0.00', items: [], totalElements: 0 });
    await statement({ accountCode: '1234', from: '2024-04-02', to: '2024-04-30' }, 404);
    await statement({ accountCode: '5110', from: '2024-04-30', to: '2024-04-01' }, 400);
    await statement({ accountCode: '51100', from: '2024-04-01', to: '2024-04-30' }, 400);
  });

  test('"an unknown subaccount id is 404, as an unknown account": a random id, another account\'s subaccount, another workspace\'s', async () => {
    const subaccounts = (who: Registered, code: string) => `/api/v1/accounting-settings/${who.me.company.id}/accounts/${code}/subaccounts`;
    const own = await api(stack).post(subaccounts(owner, '6010')).set(...bearer(owner.accessToken)).send({ code: 'SUP-1', name: 'Supplier one', enabled: true }).expect(201);
    const stranger = await registerWorkspace(stack);
    const theirs = await api(stack).post(subaccounts(stranger, '5110')).set(...bearer(stranger.accessToken)).send({ code: 'B-1', name: 'Bank', enabled: true }).expect(201);
    const range = { from: '2024-04-01', to: '2024-04-30' };
    for (const [accountCode, subaccountId] of [
      ['5110', '00000000-0000-4000-8000-000000000000'],
      ['5110', own.body.id],
      ['5110', theirs.body.id],
    ]) {
      const res = await statement({ accountCode: accountCode!, subaccountId: subaccountId!, ...range }, 404);
      expect(res.body.type).toBe('/problems/not-found');
    }
    const empty = await statement({ accountCode: '6010', subaccountId: own.body.id, ...range });
    expect(empty.body).toMatchObject({ subaccountId: own.body.id, items: [], openingBalance: '0.00' });
  });

  test('a line carries its entry\'s number, which the statement orders by: the database refuses a line that names another number', async () => {
    const rows = await stack.admin.query<{ entry_id: string; entry_number: string; number: string }>(
      `SELECT l.entry_id, l.entry_number::text, e.number::text FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
        WHERE l.tenant_id = :t`,
      { replacements: { t: owner.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) expect(row.entry_number).toBe(row.number);
    const entry = rows[0]!;
    const wrong = stack.admin.query(
      `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
       SELECT tenant_id, id, number + 1, 99, legal_entity_id, entry_date, '5110', 1, 0 FROM journal_entries WHERE tenant_id = :t AND id = :id`,
      { replacements: { t: owner.me.tenantId, id: entry.entry_id } },
    );
    await expect(wrong).rejects.toThrow(/journal_lines_entry_fkey/);
  });
});
