import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi, waitForClose } from '../../helpers/ledger';
import { storeCbuRate } from '../../helpers/currency';

// Foreign-currency lines: the rate comes from the stored CBU rate of the entry date unless the client gives a
// BANK or MANUAL one, the UZS amount must be the conversion (half-up, two decimals), and the database keeps
// the same rules. This file's CBU rates are dated in 2015 and 2016 (the rates are shared by every file).

let stack: TestStack;
let owner: Registered;
let ledger: ReturnType<typeof ledgerApi>;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  ledger = ledgerApi(stack, owner);
  await storeCbuRate(stack, 'USD', '2015-03-02', '8123.45');
  await storeCbuRate(stack, 'USD', '2015-03-05', '8150.10');
  await storeCbuRate(stack, 'EUR', '2015-03-02', '9012.3456');
  // A rate published per 100 units (Nominal 100): stored per unit, as the refresh divides it.
  await storeCbuRate(stack, 'JPY', '2015-03-02', '67.8912');
  // Per 10 units (Nominal 10), with a quotient of many decimals.
  await storeCbuRate(stack, 'KRW', '2015-03-02', '7.1234567891');
  await storeCbuRate(stack, 'KWD', '2015-03-02', '27001.5');
});
afterAll(async () => {
  await stack.stop();
});

const usdLine = (side: 'debit' | 'credit', uzs: string, extra: Record<string, unknown> = {}) => ({
  accountCode: '5210',
  [side]: uzs,
  currency: 'USD',
  currencyAmount: '100.00',
  ...extra,
});

async function entryCount(): Promise<number> {
  return (await ledger.list({ size: 1 }).expect(200)).body.totalElements;
}

describe('postJournalEntry with foreign-currency lines', () => {
  test('when a USD line names no rate, then the CBU rate of the entry date (the latest on or before it) converts it, and the line shows its provenance', async () => {
    // Posted on 2015-03-04: the latest publication on or before it is 2015-03-02's.
    const res = await ledger
      .post(entryBody('2015-03-04', [usdLine('debit', '812345.00'), { accountCode: '9010', credit: '812345.00' }] as never))
      .expect(201);
    expect(res.body.kind).toBe('POSTING');
    expect(res.body.lines[0]).toMatchObject({
      accountCode: '5210',
      debit: '812345.00',
      credit: '0.00',
      currency: 'USD',
      currencyAmount: '100.00',
      rate: '8123.45',
      rateSource: 'CBU',
      rateDate: '2015-03-02',
    });
    expect(res.body.lines[1]).toMatchObject({ currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null });
    // As stored, read back.
    expect((await ledger.get(res.body.id).expect(200)).body.lines).toEqual(res.body.lines);
    // On 2015-03-05 the new publication applies.
    const later = await ledger.post(entryBody('2015-03-05', [usdLine('debit', '815010.00'), { accountCode: '9010', credit: '815010.00' }] as never)).expect(201);
    expect(later.body.lines[0]).toMatchObject({ rate: '8150.1', rateDate: '2015-03-05' });
  });

  test('when the UZS amount is not the conversion, then 400 conversion-mismatch with the expected amount per line, and nothing is posted', async () => {
    const before = await entryCount();
    const res = await ledger
      .post(
        entryBody('2015-03-04', [
          usdLine('debit', '812345.01'),
          { accountCode: '5210', credit: '901234.00', currency: 'EUR', currencyAmount: '100' },
          { accountCode: '9010', debit: '88888.99' },
        ] as never),
      )
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.type).toBe('/problems/conversion-mismatch');
    expect(res.body.errors).toEqual([
      { path: '/body/lines/0/debit', message: expect.stringContaining('must be 812345.00'), expectedAmount: '812345.00' },
      // 100 × 9012.3456 = 901234.56 exactly.
      { path: '/body/lines/1/credit', message: expect.stringContaining('must be 901234.56'), expectedAmount: '901234.56' },
    ]);
    expect(await entryCount()).toBe(before);
  });

  test('when no CBU rate is stored on or before the entry date, then 409 rate-unavailable naming the currency, and nothing is posted', async () => {
    const before = await entryCount();
    // Rates are shared by every file, and some store USD years before this file's (the browser test: 2011),
    // so "no rate on or before the date" is asked of a date before any file's.
    const res = await ledger.post(entryBody('2001-03-01', [usdLine('debit', '812345.00'), { accountCode: '9010', credit: '812345.00' }] as never)).expect(409);
    expect(res.body).toMatchObject({ type: '/problems/rate-unavailable', currencies: ['USD'], date: '2001-03-01' });
    // A currency no test file stores a rate of (the overview's test stores GBP in 2013).
    const chf = await ledger
      .post(entryBody('2015-03-04', [{ accountCode: '5210', debit: '1.00', currency: 'CHF', currencyAmount: '1' }, { accountCode: '9010', credit: '1.00' }] as never))
      .expect(409);
    expect(chf.body.currencies).toEqual(['CHF']);
    expect(await entryCount()).toBe(before);
  });

  test('when the client gives a BANK or MANUAL rate, then that rate converts and the line says so, dated the entry date; without a rate it is 400', async () => {
    const res = await ledger
      .post(
        entryBody('2015-03-04', [
          { accountCode: '5210', debit: '820000.00', currency: 'USD', currencyAmount: '100', rate: '8200', rateSource: 'BANK' },
          { accountCode: '6810', credit: '1234.57', currency: 'EUR', currencyAmount: '0.10', rate: '12345.678', rateSource: 'MANUAL' },
          { accountCode: '9010', credit: '818765.43' },
        ] as never),
      )
      .expect(201);
    expect(res.body.lines[0]).toMatchObject({ currencyAmount: '100.00', rate: '8200', rateSource: 'BANK', rateDate: '2015-03-04' });
    // 0.10 × 12345.678 = 1234.5678 → 1234.57 (half-up).
    expect(res.body.lines[1]).toMatchObject({ credit: '1234.57', currencyAmount: '0.10', rate: '12345.678', rateSource: 'MANUAL', rateDate: '2015-03-04' });
    const missing = await ledger
      .post(entryBody('2015-03-04', [{ accountCode: '5210', debit: '1.00', currency: 'USD', currencyAmount: '1', rateSource: 'MANUAL' }, { accountCode: '9010', credit: '1.00' }] as never))
      .expect(400);
    expect(missing.body.errors).toEqual([{ path: '/body/lines/0/rate', message: 'is required with rateSource MANUAL' }]);
    // A CBU line may name the stored rate, not another.
    await ledger.post(entryBody('2015-03-04', [usdLine('debit', '812345.00', { rate: '8123.4500', rateSource: 'CBU' }), { accountCode: '9010', credit: '812345.00' }] as never)).expect(201);
    const wrong = await ledger.post(entryBody('2015-03-04', [usdLine('debit', '812345.00', { rate: '8123.46' }), { accountCode: '9010', credit: '812345.00' }] as never)).expect(400);
    expect(wrong.body.errors).toEqual([{ path: '/body/lines/0/rate', message: 'the CBU rate of USD for 2015-03-04 is 8123.45', expectedAmount: null }]);
  });

  test.each([
    ['a UZS line with a currencyAmount', { accountCode: '5110', debit: '1.00', currencyAmount: '1' }, '/body/lines/0/currencyAmount'],
    ['currency UZS with a rate', { accountCode: '5110', debit: '1.00', currency: 'UZS', rate: '1' }, '/body/lines/0/rate'],
    ['an unknown currency code', { accountCode: '5210', debit: '1.00', currency: 'XYZ', currencyAmount: '1' }, '/body/lines/0/currency'],
    ['a foreign line without its amount', { accountCode: '5210', debit: '1.00', currency: 'USD' }, '/body/lines/0/currencyAmount'],
    ['a zero foreign amount', { accountCode: '5210', debit: '1.00', currency: 'USD', currencyAmount: '0.00' }, '/body/lines/0/currencyAmount'],
    ['more decimals than the currency has (JPY has none)', { accountCode: '5210', debit: '1.00', currency: 'JPY', currencyAmount: '1.5' }, '/body/lines/0/currencyAmount'],
    ['a floating-point-looking amount ("1e3")', { accountCode: '5210', debit: '1.00', currency: 'USD', currencyAmount: '1e3' }, '/body/lines/0/currencyAmount'],
    ['a floating-point-looking rate ("8.1e3")', { accountCode: '5210', debit: '1.00', currency: 'USD', currencyAmount: '1', rate: '8.1e3', rateSource: 'MANUAL' }, '/body/lines/0/rate'],
    ['a negative rate', { accountCode: '5210', debit: '1.00', currency: 'USD', currencyAmount: '1', rate: '-1', rateSource: 'MANUAL' }, '/body/lines/0/rate'],
    ['a lower-case currency', { accountCode: '5210', debit: '1.00', currency: 'usd', currencyAmount: '1' }, '/body/lines/0/currency'],
    ['an unknown rate source', { accountCode: '5210', debit: '1.00', currency: 'USD', currencyAmount: '1', rate: '1', rateSource: 'ECB' }, '/body/lines/0/rateSource'],
  ])('when a line has %s, then 400 pointing at it, and nothing is posted', async (_name, line, path) => {
    const before = await entryCount();
    const res = await ledger.post(entryBody('2015-03-04', [line, { accountCode: '9010', credit: '1.00' }] as never)).expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await entryCount()).toBe(before);
  });

  test('a UZS line may say currency UZS and nothing else: it is a UZS line', async () => {
    const res = await ledger.post(entryBody('2015-03-04', [{ accountCode: '5110', debit: '5.00', currency: 'UZS' }, { accountCode: '9010', credit: '5.00' }] as never)).expect(201);
    expect(res.body.lines[0]).toMatchObject({ currency: null, currencyAmount: null, rate: null });
  });

  test('conversion edge cases: per-unit rates of Nominal 10 and 100, three-decimal and zero-decimal currencies, and half-up at .005', async () => {
    const res = await ledger
      .post(
        entryBody('2015-03-04', [
          // 1234 JPY × 67.8912 = 83777.7408 → 83777.74
          { accountCode: '5210', debit: '83777.74', currency: 'JPY', currencyAmount: '1234' },
          // 1000 KRW × 7.1234567891 = 7123.4567891 → 7123.46
          { accountCode: '5210', debit: '7123.46', currency: 'KRW', currencyAmount: '1000' },
          // 0.001 KWD × 27001.5 = 27.0015 → 27.00
          { accountCode: '5210', debit: '27.00', currency: 'KWD', currencyAmount: '0.001' },
          // 0.01 USD × 0.5 = 0.005 → 0.01 (half-up, not half-even)
          { accountCode: '5210', debit: '0.01', currency: 'USD', currencyAmount: '0.01', rate: '0.5', rateSource: 'MANUAL' },
          // 0.05 USD × 0.5 = 0.025 → 0.03 half-up (half-even would make it 0.02)
          { accountCode: '5210', debit: '0.03', currency: 'USD', currencyAmount: '0.05', rate: '0.5', rateSource: 'MANUAL' },
          { accountCode: '9010', credit: '90928.24' },
        ] as never),
      )
      .expect(201);
    expect(res.body.lines.map((l: { currencyAmount: string | null }) => l.currencyAmount)).toEqual(['1234', '1000', '0.001', '0.01', '0.05', null]);
    const halfEven = await ledger
      .post(entryBody('2015-03-04', [{ accountCode: '5210', debit: '0.02', currency: 'USD', currencyAmount: '0.05', rate: '0.5', rateSource: 'MANUAL' }, { accountCode: '9010', credit: '0.02' }] as never))
      .expect(400);
    expect(halfEven.body.errors[0]).toMatchObject({ expectedAmount: '0.03' });
  });

  test('the largest amounts: a foreign amount whose conversion fills an amount posts; one that exceeds it is 400 with the reason, not 500', async () => {
    const max = '9999999999999999.99';
    await ledger
      .post(entryBody('2015-03-04', [{ accountCode: '5210', debit: max, currency: 'USD', currencyAmount: max, rate: '1', rateSource: 'MANUAL' }, { accountCode: '9010', credit: max }] as never))
      .expect(201);
    const over = await ledger
      .post(entryBody('2015-03-04', [{ accountCode: '5210', debit: max, currency: 'USD', currencyAmount: max, rate: '2', rateSource: 'MANUAL' }, { accountCode: '9010', credit: max }] as never))
      .expect(400);
    expect(over.body).toMatchObject({ type: '/problems/conversion-mismatch' });
    expect(over.body.errors[0]).toMatchObject({ path: '/body/lines/0/debit', expectedAmount: null, message: expect.stringContaining('more than an amount can hold') });
  });

  test('500 foreign lines post in one entry, each converted at the stored rate', async () => {
    const lines = Array.from({ length: 499 }, (_, i) => ({ accountCode: '5210', debit: '8123.45', currency: 'USD', currencyAmount: '1', memo: `line ${i + 1}` }));
    const total = (812345n * 499n).toString();
    const res = await ledger.post(entryBody('2015-03-04', [...lines, { accountCode: '9010', credit: `${total.slice(0, -2)}.${total.slice(-2)}` }] as never)).expect(201);
    expect(res.body.lines).toHaveLength(500);
    expect(res.body.lines.slice(0, 499).every((l: { rate: string; rateDate: string }) => l.rate === '8123.45' && l.rateDate === '2015-03-02')).toBe(true);
  });

  test('a repeated requestId with the same foreign body returns the same entry; with another amount it is 409', async () => {
    const body = entryBody('2015-03-04', [usdLine('debit', '812345.00'), { accountCode: '9010', credit: '812345.00' }] as never);
    const first = await ledger.post(body).expect(201);
    expect((await ledger.post(body).expect(201)).body.id).toBe(first.body.id);
    const other = { ...body, lines: [usdLine('debit', '1624690.00', { currencyAmount: '200', credit: '0' }), { accountCode: '9010', credit: '1624690.00', debit: '0' }] };
    expect((await ledger.post(other).expect(409)).body.type).toBe('/problems/request-id-reused');
  });

  test('a reversal keeps each foreign line\'s currency, amount and original rate, sides swapped', async () => {
    const posted = await ledger.post(entryBody('2015-03-04', [usdLine('debit', '812345.00'), { accountCode: '9010', credit: '812345.00' }] as never)).expect(201);
    // Reversed on a day with another CBU rate: the original's rate stays.
    const reversal = await ledger.reverse(posted.body.id, { requestId: randomUUID(), entryDate: '2015-03-06', reason: 'wrong account' }).expect(201);
    expect(reversal.body.lines[0]).toMatchObject({ debit: '0.00', credit: '812345.00', currency: 'USD', currencyAmount: '100.00', rate: '8123.45', rateSource: 'CBU', rateDate: '2015-03-02' });
  });
});

describe('balances per currency', () => {
  let company: Registered;
  let books: ReturnType<typeof ledgerApi>;
  beforeAll(async () => {
    company = await registerWorkspace(stack);
    books = ledgerApi(stack, company);
    await storeCbuRate(stack, 'USD', '2016-01-04', '2900.00');
    await storeCbuRate(stack, 'EUR', '2016-01-04', '3150.00');
    // A receivable in USD and one in EUR, a USD bank receipt, and a UZS sale.
    await books.post(entryBody('2016-01-05', [{ accountCode: '4010', debit: '290000.00', currency: 'USD', currencyAmount: '100' }, { accountCode: '9010', credit: '290000.00' }] as never)).expect(201);
    await books.post(entryBody('2016-01-05', [{ accountCode: '4010', debit: '157500.00', currency: 'EUR', currencyAmount: '50' }, { accountCode: '9010', credit: '157500.00' }] as never)).expect(201);
    await books
      .post(
        entryBody('2016-01-06', [
          { accountCode: '5210', debit: '116000.00', currency: 'USD', currencyAmount: '40' },
          { accountCode: '4010', credit: '116000.00', currency: 'USD', currencyAmount: '40' },
        ] as never),
      )
      .expect(201);
    await books.post(entryBody('2016-01-06', [{ accountCode: '4010', debit: '1000.00' }, { accountCode: '9010', credit: '1000.00' }])).expect(201);
  });

  test('the trial balance shows each account\'s foreign balances with their carrying amounts, and balances in UZS', async () => {
    const res = await books.trialBalance('2016-01-31').expect(200);
    expect(res.body.currency).toBeNull();
    expect(res.body.totalDebit).toBe(res.body.totalCredit);
    const line = (code: string) => res.body.lines.find((l: { code: string }) => l.code === code);
    expect(line('4010')).toMatchObject({
      debit: '448500.00',
      credit: '116000.00',
      balance: '332500.00',
      currencies: [
        { currency: 'EUR', balance: '50.00', carryingAmount: '157500.00' },
        { currency: 'USD', balance: '60.00', carryingAmount: '174000.00' },
      ],
    });
    expect(line('5210').currencies).toEqual([{ currency: 'USD', balance: '40.00', carryingAmount: '116000.00' }]);
    expect(line('9010')).toMatchObject({ balance: '448500.00', currencies: [] });
  });

  test('asked for one currency, the trial balance covers only its lines; UZS covers the UZS lines', async () => {
    const byCurrency = (currency: string) => stackGet(`${books.base}/trial-balance`, { asOf: '2016-01-31', currency });
    const usd = (await byCurrency('USD')).body;
    expect(usd.currency).toBe('USD');
    expect(usd.lines.map((l: { code: string }) => l.code)).toEqual(['4010', '5210']);
    expect(usd.lines[0]).toMatchObject({ debit: '290000.00', credit: '116000.00', currencies: [{ currency: 'USD', balance: '60.00' }] });
    const uzs = (await byCurrency('UZS')).body;
    expect(uzs.lines.map((l: { code: string; debit: string; credit: string }) => [l.code, l.debit, l.credit])).toEqual([
      ['4010', '1000.00', '0.00'],
      ['9010', '0.00', '448500.00'],
    ]);
    await stackGet(`${books.base}/trial-balance`, { asOf: '2016-01-31', currency: 'usd' }, 400);
  });

  test('listJournalEntries takes a currency: entries with a line in it (UZS: with a UZS line)', async () => {
    const numbers = async (currency: string) => (await books.list({ currency }).expect(200)).body.items.map((e: { number: number }) => e.number);
    expect(await numbers('EUR')).toEqual([2]);
    expect(await numbers('USD')).toEqual([1, 3]);
    expect(await numbers('UZS')).toEqual([1, 2, 4]);
    expect(await numbers('GBP')).toEqual([]);
  });

  test('a close snapshot keeps a row per account, subaccount and currency, with the foreign balance on the normal side', async () => {
    const close = await books.close('2016-01-31').expect(202);
    const done = await waitForClose(books, close.body.id);
    expect(done.status).toBe('COMPLETED');
    const rows = done.balances.filter((b: { accountCode: string }) => b.accountCode === '4010');
    expect(rows).toEqual([
      { accountCode: '4010', subaccountId: null, currency: null, currencyBalance: null, debitTotal: '1000.00', creditTotal: '0.00', balance: '1000.00', normalSide: 'DEBIT' },
      { accountCode: '4010', subaccountId: null, currency: 'EUR', currencyBalance: '50.00', debitTotal: '157500.00', creditTotal: '0.00', balance: '157500.00', normalSide: 'DEBIT' },
      { accountCode: '4010', subaccountId: null, currency: 'USD', currencyBalance: '60.00', debitTotal: '290000.00', creditTotal: '116000.00', balance: '174000.00', normalSide: 'DEBIT' },
    ]);
    // The trial balance after the close reads the snapshot and shows the same.
    const after = await books.trialBalance('2016-02-01').expect(200);
    expect(after.body.basedOnCloseId).toBe(close.body.id);
    expect(after.body.lines.find((l: { code: string }) => l.code === '4010').currencies).toEqual([
      { currency: 'EUR', balance: '50.00', carryingAmount: '157500.00' },
      { currency: 'USD', balance: '60.00', carryingAmount: '174000.00' },
    ]);
  });

  function stackGet(path: string, query: Record<string, string>, status = 200) {
    return api(stack).get(path).query(query).set(...bearer(company.accessToken)).expect(status);
  }
});

describe('the currency rules in the database itself', () => {
  async function insertEntry(lines: Array<Record<string, unknown>>, kind = 'POSTING') {
    const [company] = await stack.admin.query<{ id: string; tenant_id: string }>(
      'SELECT id, tenant_id FROM legal_entities WHERE tenant_id = :tenantId',
      { replacements: { tenantId: owner.me.tenantId }, type: QueryTypes.SELECT },
    );
    const entryId = randomUUID();
    const total = lines.reduce((sum, l) => sum + Number(l.debit), 0).toFixed(2);
    await stack.admin.transaction(async (transaction) => {
      const [state] = await stack.admin.query<{ n: string }>(
        `UPDATE ledger_states SET next_entry_number = next_entry_number + 1 WHERE tenant_id = :t AND legal_entity_id = :c RETURNING next_entry_number - 1 AS n`,
        { replacements: { t: company!.tenant_id, c: company!.id }, type: QueryTypes.SELECT, transaction },
      );
      await stack.admin.query(
        `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id, kind)
         VALUES (:t, :id, :c, :n, '2015-06-01', 'by hand', gen_random_uuid(), 'x', :total, :total, :count, gen_random_uuid(), :kind)`,
        { replacements: { t: company!.tenant_id, id: entryId, c: company!.id, n: state!.n, total, count: lines.length, kind }, transaction },
      );
      for (const [i, l] of lines.entries()) {
        await stack.admin.query(
          `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit, currency, currency_amount, rate, rate_source, rate_date, system_line)
           VALUES (:t, :id, :n, :no, :c, '2015-06-01', :account, :debit, :credit, :currency, :amount, :rate, :source, :rateDate, :revaluation)`,
          {
            replacements: {
              t: company!.tenant_id,
              id: entryId,
              n: state!.n,
              no: i + 1,
              c: company!.id,
              account: l.account,
              debit: l.debit ?? '0',
              credit: l.credit ?? '0',
              currency: l.currency ?? null,
              amount: l.amount ?? null,
              rate: l.rate ?? null,
              source: l.currency ? 'MANUAL' : null,
              rateDate: l.currency ? '2015-06-01' : null,
              revaluation: l.revaluation ?? false,
            },
            transaction,
          },
        );
      }
    });
  }

  test('a foreign line whose UZS amount is not its conversion is refused, even written by a superuser', async () => {
    await expect(
      insertEntry([
        { account: '5210', debit: '100.01', currency: 'USD', amount: '1', rate: '100' },
        { account: '9010', debit: '0', credit: '100.01' },
      ]),
    ).rejects.toThrow(/journal_lines_conversion/);
  });

  test('a line with some of the currency fields but not all is refused', async () => {
    await expect(
      insertEntry([
        { account: '5210', debit: '100.00', currency: 'USD', amount: '1', rate: null },
        { account: '9010', debit: '0', credit: '100.00' },
      ]),
    ).rejects.toThrow(/journal_lines_foreign_complete|journal_lines_conversion/);
  });

  test('a revaluation line (a foreign amount of zero) in an ordinary entry cannot commit', async () => {
    await expect(
      insertEntry([
        { account: '5210', debit: '100.00', currency: 'USD', amount: '0', rate: '100', revaluation: true },
        { account: '9540', debit: '0', credit: '100.00', revaluation: true },
      ]),
    ).rejects.toThrow(/system lines/);
    // Without the mark, the line breaks the conversion rule instead.
    await expect(
      insertEntry([
        { account: '5210', debit: '100.00', currency: 'USD', amount: '0', rate: '100' },
        { account: '9010', debit: '0', credit: '100.00' },
      ]),
    ).rejects.toThrow(/journal_lines_conversion/);
  });

  test('foreign lines stay append-only like every line', async () => {
    await expect(stack.admin.query("UPDATE journal_lines SET rate = rate * 2 WHERE currency = 'USD'")).rejects.toThrow();
  });
});
