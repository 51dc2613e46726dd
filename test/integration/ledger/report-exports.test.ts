import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { allEntries, entryBody, hledgerViews, ledgerApi, trialBalanceViews, type LineSpec } from '../../helpers/ledger';
import { toHledgerJournal } from '../../../core/ledger/hledger';
import { EXPORT_BATCH } from '../../../api/ledger/exports';
import { guardCsvCell } from '../../../api/http/table-export';

// The reports (Forms 1 and 2 among them) and the journal as CSV, XLSX and (the journal) an hledger journal, chosen by Accept, against
// their JSON answers. The foreign lines take MANUAL rates, so this file stores no CBU rates; its entries are
// dated in 2023.

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** A line amount of 18 significant digits: more than a double holds. */
const HUGE = '1234567890123456.78';
/** Entries of 300 lines each on 9410, more lines than two export batches. */
const BIG_ENTRIES = 7;
const BIG_LINES = 300;

let stack: TestStack;
let owner: Registered;
let ledger: ReturnType<typeof ledgerApi>;
let subaccountId: string;
let formulaEntryId: string;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  ledger = ledgerApi(stack, owner);
  const sub = await api(stack)
    .post(`/api/v1/accounting-settings/${owner.me.company.id}/accounts/5110/subaccounts`)
    .set(...bearer(owner.accessToken))
    .send({ code: 'KAPITALBANK', name: 'Kapitalbank', enabled: true })
    .expect(201);
  subaccountId = sub.body.id;
  const post = async (date: string, lines: LineSpec[], extra: Record<string, unknown> = {}) => {
    const res = await ledger.post(entryBody(date, lines, extra));
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    return res.body.id as string;
  };
  await post('2023-01-10', [{ accountCode: '5110', subaccountId, debit: '1000000.00' }, { accountCode: '8330', credit: '1000000.00' }], { description: 'Capital' });
  // Free text a spreadsheet would read as a formula, a comma and quotes in a memo, Cyrillic and a semicolon.
  formulaEntryId = await post(
    '2023-02-01',
    [{ accountCode: '4010', debit: '1500.50', memo: 'a, "quoted" memo' }, { accountCode: '9010', credit: '1500.50', memo: '-minus first' }],
    { description: '=HYPERLINK("http://example.com")', reference: '@ref-1' },
  );
  await post('2023-02-15', [{ accountCode: '5110', debit: '1500.50' }, { accountCode: '4010', credit: '1500.50' }], { description: 'Оплата от покупателя; kirim' });
  await post('2023-03-01', [
    { accountCode: '5210', debit: '1285012.00', currency: 'USD', currencyAmount: '100.00', rate: '12850.12', rateSource: 'MANUAL' },
    { accountCode: '8330', credit: '1285012.00' },
  ]);
  await post('2023-03-20', [
    { accountCode: '6010', credit: '643756.50', currency: 'USD', currencyAmount: '50.00', rate: '12875.13', rateSource: 'MANUAL' },
    { accountCode: '5210', debit: '643756.50', currency: 'USD', currencyAmount: '50.00', rate: '12875.13', rateSource: 'MANUAL' },
  ]);
  await post('2023-03-05', [{ accountCode: '0130', debit: HUGE }, { accountCode: '8330', credit: HUGE }], { description: 'Huge' });
  await ledger.reverse(formulaEntryId, { requestId: randomUUID(), entryDate: '2023-02-20', reason: 'wrong customer' }).expect(201);
  await post('2023-04-03', [{ accountCode: '9410', debit: '10.00' }, { accountCode: '5110', credit: '10.00' }], { description: 'Small, before the big ones of its day' });
  // Later numbers on earlier dates: journal order (date, number) is not number order.
  for (let k = 0; k < BIG_ENTRIES; k++) {
    const lines: LineSpec[] = [];
    let cents = 0n;
    for (let j = 1; j <= BIG_LINES; j++) {
      const amount = BigInt(((k * 7919 + j * 104729) % 100000) + 1);
      cents += amount;
      lines.push({ accountCode: '9410', debit: `${amount / 100n}.${String(amount % 100n).padStart(2, '0')}`, memo: `line ${j}` });
    }
    lines.push({ accountCode: '6010', credit: `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}` });
    await post(`2023-04-${String(7 - (k % 4)).padStart(2, '0')}`, lines, { description: `Payroll ${k}` });
  }
}, 120_000);
afterAll(async () => {
  await stack.stop();
});

const request = (path: string, query: Record<string, string | number>, accept?: string) => {
  const req = api(stack).get(`${ledger.base}${path}`).query(query).set(...bearer(owner.accessToken));
  return accept ? req.set('Accept', accept) : req;
};

function parseCsv(text: string): Promise<Record<string, string>[]> {
  return new Promise((resolve, reject) => parse(text, { columns: true }, (err, records: Record<string, string>[]) => (err ? reject(err) : resolve(records))));
}

/** The export as CSV: its headers checked, its rows as records of strings (an empty cell is ''). */
async function csvOf(path: string, query: Record<string, string | number>, filename: string) {
  const res = await request(path, query, CSV).expect(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toBe(`attachment; filename="${filename}.csv"`);
  return parseCsv(res.text);
}

/** superagent's parser for a binary body: the bytes as they came. */
const binary = (res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

/** A cell as the spreadsheet shows it: a number with the decimals of its format, text as is, empty as ''. */
function cellText(cell: ExcelJS.Cell): string {
  const value = cell.value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    const decimals = /\.(0+)$/.exec(cell.numFmt ?? '')?.[1]?.length ?? 0;
    return value.toFixed(decimals);
  }
  return String(value);
}

/** The export as XLSX, read back with ExcelJS: every sheet's rows after its header, as records of strings, and the cells themselves. */
async function xlsxOf(path: string, query: Record<string, string | number>, filename: string) {
  const res = await request(path, query, XLSX).buffer(true).parse(binary as never).expect(200);
  expect(res.headers['content-type']).toBe(XLSX);
  expect(res.headers['content-disposition']).toBe(`attachment; filename="${filename}.xlsx"`);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(res.body as never);
  const records: Record<string, string>[] = [];
  const cells: Array<Record<string, ExcelJS.Cell>> = [];
  for (const sheet of workbook.worksheets) {
    const headers = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
    for (let r = 2; r <= sheet.rowCount; r++) {
      const row = sheet.getRow(r);
      records.push(Object.fromEntries(headers.map((h, i) => [h, cellText(row.getCell(i + 1))])));
      cells.push(Object.fromEntries(headers.map((h, i) => [h, row.getCell(i + 1)])));
    }
  }
  return { sheets: workbook.worksheets.map((s) => s.name), records, cells, workbook };
}

/** JSON values as the export's cells: null is empty, numbers and strings as text. */
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
/** What CSV makes of free text a spreadsheet would run as a formula (the rule's cases: test/unit/service/table-export.test.ts). */
const guarded = (value: unknown) => text(typeof value === 'string' ? guardCsvCell('text', value) : value);

const trialBalanceRecords = (tb: any, free: (v: unknown) => string) =>
  tb.lines.flatMap((line: any) => [
    {
      code: line.code,
      name: free(line.name),
      type: line.type,
      debit: line.debit,
      credit: line.credit,
      balance: line.balance,
      'currencies.currency': '',
      'currencies.balance': '',
      'currencies.carryingAmount': '',
    },
    ...line.currencies.map((c: any) => ({
      code: line.code,
      name: free(line.name),
      type: line.type,
      debit: '',
      credit: '',
      balance: '',
      'currencies.currency': c.currency,
      'currencies.balance': c.balance,
      'currencies.carryingAmount': c.carryingAmount,
    })),
  ]);

const turnoverRecords = (sheet: any, free: (v: unknown) => string) =>
  sheet.rows.map((r: any) => ({
    accountCode: r.accountCode,
    name: free(r.name),
    type: r.type,
    subaccountId: text(r.subaccountId),
    openingDebit: r.openingDebit,
    openingCredit: r.openingCredit,
    turnoverDebit: r.turnoverDebit,
    turnoverCredit: r.turnoverCredit,
    closingDebit: r.closingDebit,
    closingCredit: r.closingCredit,
    'foreign.opening': text(r.foreign?.opening),
    'foreign.turnoverDebit': text(r.foreign?.turnoverDebit),
    'foreign.turnoverCredit': text(r.foreign?.turnoverCredit),
    'foreign.closing': text(r.foreign?.closing),
  }));

const statementRecords = (items: any[], free: (v: unknown) => string) =>
  items.map((l) => ({
    entryId: l.entryId,
    entryNumber: text(l.entryNumber),
    entryDate: l.entryDate,
    description: free(l.description),
    lineNo: text(l.lineNo),
    memo: free(l.memo),
    subaccountId: text(l.subaccountId),
    counterAccounts: l.counterAccounts.join(' '),
    debit: l.debit,
    credit: l.credit,
    balance: l.balance,
    currencyAmount: text(l.currencyAmount),
    currencyBalance: text(l.currencyBalance),
  }));

/** A row per statement row, then a row per account of its drill-down with the row's own amounts empty. */
const financialStatementRecords = (statement: any, free: (v: unknown) => string) =>
  statement.rows.flatMap((r: any) => {
    const own = { code: r.code, name: free(r.name), total: String(r.total), column: text(r.column), formula: text(r.formula) };
    return [
      { ...own, amount: text(r.amount), priorAmount: text(r.priorAmount), 'accounts.accountCode': '', 'accounts.amount': '', 'accounts.priorAmount': '' },
      ...r.accounts.map((a: any) => ({ ...own, amount: '', priorAmount: '', 'accounts.accountCode': a.accountCode, 'accounts.amount': a.amount, 'accounts.priorAmount': a.priorAmount })),
    ];
  });

/** Every entry's lines, in journal order (date, entry number, line): what the journal export must have. */
function journalRecords(entries: any[], free: (v: unknown) => string) {
  return [...entries]
    .sort((a, b) => (a.entryDate < b.entryDate ? -1 : a.entryDate > b.entryDate ? 1 : a.number - b.number))
    .flatMap((e) =>
      e.lines.map((l: any) => ({
        entryId: e.id,
        number: text(e.number),
        entryDate: e.entryDate,
        description: free(e.description),
        reference: free(e.reference),
        kind: e.kind,
        reversalOf: text(e.reversalOf),
        postedAt: e.postedAt,
        lineNo: text(l.lineNo),
        accountCode: l.accountCode,
        subaccountId: text(l.subaccountId),
        counterpartyId: text(l.counterpartyId),
        debit: l.debit,
        credit: l.credit,
        memo: free(l.memo),
        currency: text(l.currency),
        currencyAmount: text(l.currencyAmount),
        rate: text(l.rate),
        rateSource: text(l.rateSource),
        rateDate: text(l.rateDate),
      })),
    );
}

/** The lines of every page of the account statement's JSON, in journal order (date, entry number, line). */
async function statementItems(query: Record<string, string>) {
  const items: any[] = [];
  for (let page = 0; ; page++) {
    const body = (await request('/reports/account-statement', { ...query, page, size: 100 }).expect(200)).body;
    items.push(...body.items);
    if (page + 1 >= body.totalPages) break;
  }
  return items.sort((a, b) => (a.entryDate < b.entryDate ? -1 : a.entryDate > b.entryDate ? 1 : a.entryNumber - b.entryNumber || a.lineNo - b.lineNo));
}

describe('report exports: JSON, CSV and XLSX by Accept', () => {
  test('getTrialBalance: a row per account and per foreign currency, the same numbers as JSON; amounts a double holds are numbers in XLSX, a longer one text', async () => {
    const company = owner.me.company.id;
    const json = (await request('/trial-balance', { asOf: '2023-12-31' }, 'application/json').expect(200)).body;
    expect(json.lines.find((l: any) => l.code === '5210').currencies).toEqual([{ currency: 'USD', balance: '150.00', carryingAmount: '1928768.50' }]);
    const csv = await csvOf('/trial-balance', { asOf: '2023-12-31' }, `trial-balance-${company}-2023-12-31`);
    expect(csv).toEqual(trialBalanceRecords(json, guarded));
    const xlsx = await xlsxOf('/trial-balance', { asOf: '2023-12-31' }, `trial-balance-${company}-2023-12-31`);
    expect(xlsx.sheets).toEqual(['Trial balance']);
    expect(xlsx.records).toEqual(trialBalanceRecords(json, text));
    const cashRow = xlsx.cells.find((c) => c.code!.value === '5110')!;
    expect(typeof cashRow.debit!.value).toBe('number');
    expect(cashRow.debit!.numFmt).toBe('#,##0.00');
    const hugeRow = xlsx.cells.find((c) => c.code!.value === '0130')!;
    expect(hugeRow.debit!.value).toBe(HUGE);
    expect(hugeRow.debit!.numFmt).toBe('@');
    expect(hugeRow.debit!.alignment).toEqual({ horizontal: 'right' });
  });

  test('getTurnoverSheet: a row per sheet row, by subaccount and with a foreign currency', async () => {
    const company = owner.me.company.id;
    const queries: Array<Record<string, string>> = [{ from: '2023-02-01', to: '2023-06-30', detail: 'SUBACCOUNT' }, { from: '2023-01-01', to: '2023-12-31', currency: 'USD' }];
    for (const query of queries) {
      const json = (await request('/reports/turnover-sheet', query).expect(200)).body;
      expect(json.rows.length).toBeGreaterThan(1);
      const name = `turnover-sheet-${company}-${query.from}-${query.to}`;
      expect(await csvOf('/reports/turnover-sheet', query, name)).toEqual(turnoverRecords(json, guarded));
      expect((await xlsxOf('/reports/turnover-sheet', query, name)).records).toEqual(turnoverRecords(json, text));
    }
  });

  test('getAccountStatement: every line of the range, not a page, the running balance carried across the export\'s batches', async () => {
    const company = owner.me.company.id;
    const query = { accountCode: '9410', from: '2023-01-01', to: '2023-12-31' };
    const items = await statementItems(query);
    expect(items.length).toBe(BIG_ENTRIES * BIG_LINES + 1);
    expect(items.length).toBeGreaterThan(2 * EXPORT_BATCH);
    const name = `account-statement-${company}-9410-2023-01-01-2023-12-31`;
    // page and size are not the export's: it has every line whatever they say.
    expect(await csvOf('/reports/account-statement', { ...query, page: 3, size: 5 }, name)).toEqual(statementRecords(items, guarded));
    expect((await xlsxOf('/reports/account-statement', query, name)).records).toEqual(statementRecords(items, text));

    // A foreign currency's lines with their foreign amounts and running foreign balance; a range that opens after lines.
    const usd = { accountCode: '5210', from: '2023-03-10', to: '2023-12-31', currency: 'USD' };
    const usdItems = await statementItems(usd);
    expect(usdItems.map((l) => [l.currencyAmount, l.currencyBalance, l.balance])).toEqual([['50.00', '150.00', '1928768.50']]);
    const usdName = `account-statement-${company}-5210-2023-03-10-2023-12-31`;
    expect(await csvOf('/reports/account-statement', usd, usdName)).toEqual(statementRecords(usdItems, guarded));
    expect((await xlsxOf('/reports/account-statement', usd, usdName)).records).toEqual(statementRecords(usdItems, text));
  });

  test('getBalanceSheet and getFinancialResults: a row per statement row and per account of its drill-down, the same numbers as JSON', async () => {
    const company = owner.me.company.id;
    const forms = [
      ['/reports/balance-sheet', { asOf: '2023-12-31' }, `balance-sheet-${company}-2023-12-31`, 'Balance sheet'],
      ['/reports/financial-results', { from: '2023-01-01', to: '2023-12-31' }, `financial-results-${company}-2023-01-01-2023-12-31`, 'Financial results'],
    ] as const;
    for (const [path, query, name, sheetName] of forms) {
      const json = (await request(path, query, 'application/json').expect(200)).body;
      expect(json.rows.filter((r: any) => r.accounts.length > 0).length).toBeGreaterThan(0);
      const csv = await csvOf(path, query, name);
      expect(csv).toEqual(financialStatementRecords(json, guarded));
      // The statement rows themselves, in the form's order, are the rows without an account.
      const ownRows = csv.filter((r) => r['accounts.accountCode'] === '');
      expect(ownRows.map((r) => [r.code, r.amount, r.priorAmount])).toEqual(json.rows.map((r: any) => [r.code, text(r.amount), text(r.priorAmount)]));
      const xlsx = await xlsxOf(path, query, name);
      expect(xlsx.sheets).toEqual([sheetName]);
      expect(xlsx.records).toEqual(financialStatementRecords(json, text));
    }

    // The huge fixed asset makes the balance sheet's totals longer than a double holds: text cells, exact.
    const sheet = (await request('/reports/balance-sheet', { asOf: '2023-12-31' }).expect(200)).body;
    const totalAssets = sheet.rows.find((r: any) => r.code === '400').amount;
    expect(totalAssets.replace('.', '').length).toBeGreaterThan(15);
    const cells = (await xlsxOf('/reports/balance-sheet', { asOf: '2023-12-31' }, `balance-sheet-${company}-2023-12-31`)).cells;
    const assetsRow = cells.find((c) => c.code!.value === '400' && c['accounts.accountCode']!.value === null)!;
    expect(assetsRow.amount!.value).toBe(totalAssets);
    expect(typeof assetsRow.priorAmount!.value).toBe('number');

    // A loss is negative: its minus is a sign in CSV (no apostrophe) and a negative number in XLSX.
    const results = (await request('/reports/financial-results', { from: '2023-01-01', to: '2023-12-31' }).expect(200)).body;
    const netProfit = results.rows.find((r: any) => r.code === '270').amount;
    expect(netProfit).toMatch(/^-[0-9]+\.[0-9]{2}$/);
    const resultCells = (await xlsxOf('/reports/financial-results', { from: '2023-01-01', to: '2023-12-31' }, `financial-results-${company}-2023-01-01-2023-12-31`)).cells;
    const netRow = resultCells.find((c) => c.code!.value === '270' && c['accounts.accountCode']!.value === null)!;
    expect(netRow.amount!.value).toBe(Number(netProfit));
    expect(netRow.amount!.numFmt).toBe('#,##0.00');
  });

  test('listJournalEntries: the export has every line of the matching entries in journal order, across batches, whatever page and size say', async () => {
    const company = owner.me.company.id;
    const entries = await allEntries(ledger);
    const expected = journalRecords(entries, guarded);
    expect(expected.length).toBeGreaterThan(2 * EXPORT_BATCH);
    const csv = await csvOf('/entries', { page: 2, size: 3 }, `journal-${company}-start-end`);
    expect(csv.length).toBe(expected.length);
    expect(csv).toEqual(expected);
    // Free text that would be a formula is quoted with an apostrophe in CSV, and kept as text in XLSX.
    expect(csv.find((r) => r.entryId === formulaEntryId)).toMatchObject({ description: `'=HYPERLINK("http://example.com")`, reference: "'@ref-1" });
    const xlsx = await xlsxOf('/entries', {}, `journal-${company}-start-end`);
    expect(xlsx.sheets).toEqual(['Journal']);
    expect(xlsx.records).toEqual(journalRecords(entries, text));
    // The sheet as laid out: the header row frozen and bold, each column's width (its own, or its kind's).
    const sheet = xlsx.workbook.worksheets[0]!;
    expect(sheet.views).toEqual([expect.objectContaining({ state: 'frozen', ySplit: 1 })]);
    expect(sheet.columns.map((c) => c.width)).toEqual([38, 10, 14, 40, 40, 14, 38, 26, 10, 14, 38, 38, 18, 18, 40, 14, 18, 18, 14, 14]);
    expect(sheet.getRow(1).getCell(1).font).toMatchObject({ bold: true });
    // Cell kinds: integers and exact amounts are numbers, codes and free text strings, empty cells empty; no formula.
    const line = xlsx.cells.find((c) => c.entryId!.value === formulaEntryId && c.lineNo!.value === 1)!;
    expect([line.number!.value, line.debit!.value, line.credit!.value].map((v) => typeof v)).toEqual(['number', 'number', 'number']);
    expect(line.description!.value).toBe('=HYPERLINK("http://example.com")');
    expect(line.description!.type).toBe(ExcelJS.ValueType.String);
    expect(line.subaccountId!.value).toBeNull();
    expect(xlsx.cells.every((row) => Object.values(row).every((c) => c.type !== ExcelJS.ValueType.Formula))).toBe(true);

    // The filters are the JSON list's.
    const filter = { accountCode: '5110', dateFrom: '2023-02-01', dateTo: '2023-12-31' };
    const filtered = (await ledger.list({ ...filter, size: 100 }).expect(200)).body.items;
    expect(filtered.length).toBe(2);
    expect(await csvOf('/entries', filter, `journal-${company}-2023-02-01-2023-12-31`)).toEqual(journalRecords(filtered, guarded));
  });

  test('listJournalEntries as an hledger journal: the JSON entries written in journal order, and hledger balance equals the trial balance', async () => {
    const res = await request('/entries', {}, 'text/plain').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="journal-${owner.me.company.id}-start-end.journal"`);
    const entries = await allEntries(ledger);
    const inJournalOrder = [...entries].sort((a, b) => (a.entryDate < b.entryDate ? -1 : a.entryDate > b.entryDate ? 1 : a.number - b.number));
    expect(res.text).toBe(toHledgerJournal(inJournalOrder));
    for (const asOf of ['2023-03-31', '2023-12-31']) {
      const tb = (await ledger.trialBalance(asOf).expect(200)).body;
      expect(hledgerViews(res.text, asOf, ['USD'])).toEqual(trialBalanceViews(tb));
    }
  });

  test('Accept: 406 not-acceptable when it names none of the offered types; q-values choose; a refusal before the export starts is a problem document', async () => {
    const exports = [
      ['/trial-balance', { asOf: '2023-12-31' }],
      ['/reports/turnover-sheet', { from: '2023-01-01', to: '2023-12-31' }],
      ['/reports/account-statement', { accountCode: '5110', from: '2023-01-01', to: '2023-12-31' }],
      ['/reports/balance-sheet', { asOf: '2023-12-31' }],
      ['/reports/financial-results', { from: '2023-01-01', to: '2023-12-31' }],
      ['/entries', {}],
    ] as const;
    for (const [path, query] of exports) {
      const res = await request(path, query, 'text/html').expect(406);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['vary']).toMatch(/Accept/);
      expect(res.body).toMatchObject({ type: '/problems/not-acceptable', status: 406 });
      expect(res.body.available).toEqual(expect.arrayContaining(['application/json', CSV, XLSX]));
      // No Accept, */* and a preferred JSON answer JSON.
      for (const accept of [undefined, '*/*', `${CSV};q=0.5, application/json`]) {
        expect((await request(path, query, accept).expect(200)).headers['content-type']).toMatch(/^application\/json/);
      }
      expect((await request(path, query, `application/json;q=0.1, ${CSV}`).expect(200)).headers['content-type']).toBe('text/csv; charset=utf-8');
    }
    expect((await request('/entries', {}, 'text/*;q=0.9, text/plain').expect(200)).headers['content-type']).toBe('text/plain; charset=utf-8');
    // An operation that offers JSON alone answers it whatever Accept says, as before.
    expect((await request(`/entries/${formulaEntryId}`, {}, CSV).expect(200)).body.id).toBe(formulaEntryId);

    // Unknown account, too long a range: refused before the first byte, so a problem and no download.
    const unknown = await request('/reports/account-statement', { accountCode: '5999', from: '2023-01-01', to: '2023-12-31' }, CSV).expect(404);
    expect(unknown.headers['content-disposition']).toBeUndefined();
    expect(unknown.body.type).toBe('/problems/not-found');
    const long = await request('/reports/account-statement', { accountCode: '5110', from: '2022-01-01', to: '2023-12-31' }, XLSX).expect(400);
    expect(long.body.type).toBe('/problems/validation');
    const backwards = await request('/reports/financial-results', { from: '2023-12-31', to: '2023-01-01' }, CSV).expect(400);
    expect(backwards.headers['content-disposition']).toBeUndefined();
    expect(backwards.body.type).toBe('/problems/validation');
  });

  test('CSV: a formula after a list separator (`;` in the Uzbek and Russian settings), a comma, a tab or a line break in free text is defused too; amounts keep their sign', async () => {
    const res = await ledger.post(
      entryBody(
        '2023-05-02',
        [
          { accountCode: '4010', debit: '7.00', memo: 'a\t@SUM(1)' },
          { accountCode: '9010', credit: '7.00', memo: 'line one\n=1+1' },
        ],
        { description: 'x;=2+5;y', reference: 'a,+1' },
      ),
    );
    expect(res.status).toBe(201);
    const name = `journal-${owner.me.company.id}-2023-05-02-2023-05-02`;
    const rows = await csvOf('/entries', { dateFrom: '2023-05-02', dateTo: '2023-05-02' }, name);
    expect(rows.map((r) => [r.description, r.reference, r.memo, r.debit, r.credit])).toEqual([
      ["x;'=2+5;y", "a,'+1", "a\t'@SUM(1)", '7.00', '0.00'],
      ["x;'=2+5;y", "a,'+1", "line one\n'=1+1", '0.00', '7.00'],
    ]);
    // Split at `;` as Excel there does (ignoring the comma quoting), no piece of any line starts a formula.
    const raw = (await request('/entries', { dateFrom: '2023-05-02', dateTo: '2023-05-02' }, CSV).expect(200)).text;
    const cells = raw.split(/[;,\t\r\n]/).map((cell) => cell.replace(/^[ "]+/, ''));
    expect(cells.filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
    // XLSX keeps the text exactly: its cells are typed, none is a formula.
    const xlsx = await xlsxOf('/entries', { dateFrom: '2023-05-02', dateTo: '2023-05-02' }, name);
    expect(xlsx.records.map((r) => [r.description, r.reference, r.memo])).toEqual([
      ['x;=2+5;y', 'a,+1', 'a\t@SUM(1)'],
      ['x;=2+5;y', 'a,+1', 'line one\n=1+1'],
    ]);
  });
});
