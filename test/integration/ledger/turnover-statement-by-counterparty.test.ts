import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { createCounterparty, updateCounterparty } from '../../helpers/counterparties';
import { entryBody, ledgerApi, waitForClose, type LineSpec } from '../../helpers/ledger';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';
import { guardCsvCell } from '../../../api/http/table-export';

// The counterparty as an analytic dimension of the turnover sheet and the account statement: a statement of
// 4010 for one customer, a sheet of 4010 by customer (detail=COUNTERPARTY), a sheet of one counterparty
// (counterpartyId), across a completed period close (whose snapshot has no counterparty), and their CSV and
// XLSX exports. Foreign lines use MANUAL rates, so this file needs no stored rates.

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FEBRUARY = { from: '2024-02-01', to: '2024-02-29' };

let stack: TestStack;
let owner: Registered;
let ledger: ReturnType<typeof ledgerApi>;
/** Customers on 4010 and a supplier on 6010; Beta's and Gamma's names need quoting and a formula guard in CSV. */
let alpha: string;
let beta: string;
let gamma: string;
let supplier: string;

const ALPHA = 'Alpha Trading';
const BETA = 'Beta Foods, "LLC"';
const GAMMA = '=Gamma Advance';
const SUPPLIER = 'Supplier Co';

/** A line with a counterparty (LineSpec has no counterpartyId field). */
const withCounterparty = (line: LineSpec, counterpartyId: string) => ({ ...line, counterpartyId }) as LineSpec;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  ledger = ledgerApi(stack, owner);
  const create = async (name: string, tin: string) => (await createCounterparty(stack, owner, { name, tin }).expect(201)).body.id as string;
  alpha = await create(ALPHA, '302000001');
  beta = await create(BETA, '302000002');
  gamma = await create(GAMMA, '302000003');
  supplier = await create(SUPPLIER, '302000004');
  const post = async (date: string, lines: LineSpec[]) => {
    const res = await ledger.post(entryBody(date, lines));
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
  };
  // January (closed below): Alpha owes 1000 and pays 300, Beta owes 400, a sale without a counterparty.
  await post('2024-01-10', [withCounterparty({ accountCode: '4010', debit: '1000.00' }, alpha), { accountCode: '9010', credit: '1000.00' }]);
  await post('2024-01-15', [withCounterparty({ accountCode: '4010', debit: '400.00' }, beta), { accountCode: '9010', credit: '400.00' }]);
  await post('2024-01-20', [{ accountCode: '4010', debit: '50.00' }, { accountCode: '9010', credit: '50.00' }]);
  await post('2024-01-25', [{ accountCode: '5110', debit: '300.00' }, withCounterparty({ accountCode: '4010', credit: '300.00' }, alpha)]);
  // February.
  await post('2024-02-05', [withCounterparty({ accountCode: '4010', debit: '250.00' }, alpha), { accountCode: '9010', credit: '250.00' }]);
  await post('2024-02-10', [{ accountCode: '5110', debit: '400.00' }, withCounterparty({ accountCode: '4010', credit: '400.00' }, beta)]);
  await post('2024-02-12', [{ accountCode: '5110', debit: '120.00' }, withCounterparty({ accountCode: '4010', credit: '120.00' }, alpha)]);
  await post('2024-02-15', [{ accountCode: '4010', debit: '30.00' }, { accountCode: '9010', credit: '30.00' }]);
  await post('2024-02-20', [{ accountCode: '9410', debit: '600.00' }, withCounterparty({ accountCode: '6010', credit: '600.00' }, supplier)]);
  await post('2024-02-22', [
    { accountCode: '9410', debit: '1285.00' },
    withCounterparty({ accountCode: '6010', credit: '1285.00', currency: 'USD', currencyAmount: '0.10', rate: '12850', rateSource: 'MANUAL' }, supplier),
  ]);
  // After February: a sale to Alpha in March, and in April Gamma pays in advance (a credit balance on 4010).
  await post('2024-03-05', [withCounterparty({ accountCode: '4010', debit: '999.00' }, alpha), { accountCode: '9010', credit: '999.00' }]);
  await post('2024-04-08', [{ accountCode: '5110', debit: '500.00' }, withCounterparty({ accountCode: '4010', credit: '500.00' }, gamma)]);
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

const sheet = (query: Record<string, string>, status = 200, who: Registered = owner) =>
  api(stack).get(`/api/v1/ledger/${owner.me.company.id}/reports/turnover-sheet`).query(query).set(...bearer(who.accessToken)).expect(status);
const statement = (query: Record<string, string | number>, status = 200) =>
  api(stack).get(`${ledger.base}/reports/account-statement`).query(query).set(...bearer(owner.accessToken)).expect(status);

interface Row {
  accountCode: string;
  subaccountId: string | null;
  counterpartyId: string | null;
  counterpartyName: string | null;
  openingDebit: string;
  openingCredit: string;
  turnoverDebit: string;
  turnoverCredit: string;
  closingDebit: string;
  closingCredit: string;
  foreign: { opening: string; turnoverDebit: string; turnoverCredit: string; closing: string } | null;
}
const amounts = (r: Row) => [r.openingDebit, r.openingCredit, r.turnoverDebit, r.turnoverCredit, r.closingDebit, r.closingCredit];
const byCounterparty = (r: Row) => [r.accountCode, r.counterpartyName, ...amounts(r)];
const net = (debit: string, credit: string) => numericToMinorUnits(debit) - numericToMinorUnits(credit);

/** Per account, the net opening, the turnovers and the net closing of a sheet's rows (rows of one account summed). */
function perAccount(rows: Row[]): Record<string, string[]> {
  const sums: Record<string, bigint[]> = {};
  for (const r of rows) {
    const s = (sums[r.accountCode] ??= [0n, 0n, 0n, 0n]);
    s[0]! += net(r.openingDebit, r.openingCredit);
    s[1]! += numericToMinorUnits(r.turnoverDebit);
    s[2]! += numericToMinorUnits(r.turnoverCredit);
    s[3]! += net(r.closingDebit, r.closingCredit);
  }
  return Object.fromEntries(Object.entries(sums).map(([code, s]) => [code, s.map(formatMinorUnits)]));
}

describe('getAccountStatement by counterparty', () => {
  test('4010 for one customer: its opening balance, its lines with the running balance, its turnovers and closing balance', async () => {
    const body = (await statement({ accountCode: '4010', counterpartyId: alpha, ...FEBRUARY })).body;
    expect(body).toMatchObject({
      accountCode: '4010',
      counterpartyId: alpha,
      subaccountId: null,
      openingBalance: '700.00',
      turnoverDebit: '250.00',
      turnoverCredit: '120.00',
      closingBalance: '830.00',
      pageOpeningBalance: '700.00',
      totalElements: 2,
    });
    expect(body.items.map((l: { entryDate: string; debit: string; credit: string; balance: string; counterAccounts: string[] }) => [l.entryDate, l.debit, l.credit, l.balance, l.counterAccounts])).toEqual([
      ['2024-02-05', '250.00', '0.00', '950.00', ['9010']],
      ['2024-02-12', '0.00', '120.00', '830.00', ['5110']],
    ]);
    // Beta's statement: paid in full in February. The account's statement has every counterparty's lines.
    expect((await statement({ accountCode: '4010', counterpartyId: beta, ...FEBRUARY })).body).toMatchObject({ openingBalance: '400.00', closingBalance: '0.00', totalElements: 1 });
    expect((await statement({ accountCode: '4010', ...FEBRUARY })).body).toMatchObject({ counterpartyId: null, openingBalance: '1150.00', closingBalance: '910.00', totalElements: 4 });
    // Pages carry the counterparty's running balance on.
    const second = (await statement({ accountCode: '4010', counterpartyId: alpha, ...FEBRUARY, size: 1, page: 1 })).body;
    expect(second).toMatchObject({ pageOpeningBalance: '950.00', totalPages: 2 });
    expect(second.items.map((l: { balance: string }) => l.balance)).toEqual(['830.00']);
  });

  test('a credit-side account of a supplier, in its foreign currency', async () => {
    const body = (await statement({ accountCode: '6010', counterpartyId: supplier, currency: 'USD', ...FEBRUARY })).body;
    expect(body).toMatchObject({ normalSide: 'CREDIT', openingBalance: '0.00', closingBalance: '1285.00', currencyOpeningBalance: '0.00', currencyClosingBalance: '0.10', totalElements: 1 });
  });
});

describe('getTurnoverSheet by counterparty', () => {
  test('detail=COUNTERPARTY: a row per account and counterparty, the lines without one in their own row; totals equal the per-account sheet\'s', async () => {
    const account = (await sheet({ ...FEBRUARY })).body;
    const body = (await sheet({ ...FEBRUARY, detail: 'COUNTERPARTY' })).body;
    expect(body).toMatchObject({ ...FEBRUARY, detail: 'COUNTERPARTY', counterpartyId: null, currency: null });
    const rows: Row[] = body.rows;
    expect(rows.filter((r) => r.accountCode === '4010' || r.accountCode === '6010').map(byCounterparty)).toEqual([
      ['4010', null, '50.00', '0.00', '30.00', '0.00', '80.00', '0.00'],
      ['4010', ALPHA, '700.00', '0.00', '250.00', '120.00', '830.00', '0.00'],
      ['4010', BETA, '400.00', '0.00', '0.00', '400.00', '0.00', '0.00'],
      ['6010', SUPPLIER, '0.00', '0.00', '0.00', '1885.00', '0.00', '1885.00'],
    ]);
    expect(rows.find((r) => r.counterpartyName === ALPHA)).toMatchObject({ counterpartyId: alpha, subaccountId: null, foreign: null });
    // Accounts whose lines name no counterparty: one row each, counterparty null.
    expect(rows.filter((r) => r.counterpartyId === null).map((r) => r.accountCode)).toEqual(['4010', '5110', '9010', '9410']);
    expect(rows.every((r) => (r.counterpartyId === null) === (r.counterpartyName === null))).toBe(true);
    // The same totals and, per account, the same balances and turnovers as the per-account sheet.
    expect(body.totals).toEqual(account.totals);
    expect(perAccount(rows)).toEqual(perAccount(account.rows));
    // Rows of the other details carry no counterparty.
    for (const detail of ['ACCOUNT', 'SUBACCOUNT']) {
      const other: Row[] = (await sheet({ ...FEBRUARY, detail })).body.rows;
      expect(other.every((r) => r.counterpartyId === null && r.counterpartyName === null)).toBe(true);
    }
  });

  test('a customer with a credit balance beside others with debit ones: each row on its own side, the turnovers and each account\'s net balance as per account', async () => {
    const april = { from: '2024-04-01', to: '2024-04-30' };
    const account = (await sheet(april)).body;
    const body = (await sheet({ ...april, detail: 'COUNTERPARTY' })).body;
    expect(body.rows.filter((r: Row) => r.accountCode === '4010').map(byCounterparty)).toEqual([
      ['4010', null, '80.00', '0.00', '0.00', '0.00', '80.00', '0.00'],
      // By name, then id, in code-point order as the register lists them ('=' before 'A').
      ['4010', GAMMA, '0.00', '0.00', '0.00', '500.00', '0.00', '500.00'],
      ['4010', ALPHA, '1829.00', '0.00', '0.00', '0.00', '1829.00', '0.00'],
    ]);
    expect(account.rows.find((r: Row) => r.accountCode === '4010')).toMatchObject({ openingDebit: '1909.00', closingDebit: '1409.00', closingCredit: '0.00' });
    expect(perAccount(body.rows)).toEqual(perAccount(account.rows));
    // Gamma's advance is shown, not netted against the others' debts: both closing totals grow by it.
    expect(body.totals).toEqual({
      ...account.totals,
      closingDebit: formatMinorUnits(numericToMinorUnits(account.totals.closingDebit) + 50000n),
      closingCredit: formatMinorUnits(numericToMinorUnits(account.totals.closingCredit) + 50000n),
    });
  });

  test('counterpartyId: only the lines naming it, opening, turnovers and closing alike, read from the lines', async () => {
    const alphaSheet = (await sheet({ ...FEBRUARY, counterpartyId: alpha })).body;
    expect(alphaSheet).toMatchObject({ counterpartyId: alpha, detail: 'ACCOUNT', basedOnCloseId: null });
    expect(alphaSheet.rows.map((r: Row) => [r.accountCode, r.counterpartyId, ...amounts(r)])).toEqual([['4010', null, '700.00', '0.00', '250.00', '120.00', '830.00', '0.00']]);
    expect(alphaSheet.totals).toEqual({ openingDebit: '700.00', openingCredit: '0.00', turnoverDebit: '250.00', turnoverCredit: '120.00', closingDebit: '830.00', closingCredit: '0.00' });
    // With detail=COUNTERPARTY, its rows name it.
    const detailed = (await sheet({ ...FEBRUARY, counterpartyId: supplier, detail: 'COUNTERPARTY' })).body;
    expect(detailed.rows.map(byCounterparty)).toEqual([['6010', SUPPLIER, '0.00', '0.00', '0.00', '1885.00', '0.00', '1885.00']]);
    // A foreign currency: only its lines, with their foreign amounts.
    const usd = (await sheet({ ...FEBRUARY, counterpartyId: supplier, currency: 'USD' })).body;
    expect(usd.rows).toEqual([
      expect.objectContaining({ accountCode: '6010', turnoverCredit: '1285.00', foreign: { opening: '0.00', turnoverDebit: '0.00', turnoverCredit: '0.10', closing: '-0.10' } }),
    ]);
    // The foreign lines all name the supplier: no foreign row is left for lines without a counterparty.
    const usdDetailed = (await sheet({ ...FEBRUARY, currency: 'USD', detail: 'COUNTERPARTY' })).body;
    expect(usdDetailed.rows.map((r: Row) => [r.accountCode, r.counterpartyName, r.foreign])).toEqual([
      ['6010', SUPPLIER, { opening: '0.00', turnoverDebit: '0.00', turnoverCredit: '0.10', closing: '-0.10' }],
    ]);
  });

  test('an unknown counterparty, another workspace\'s or another company\'s of the same workspace is 404 not-found; an archived one still reports', async () => {
    const stranger = await registerWorkspace(stack);
    const theirs = (await createCounterparty(stack, stranger, { name: 'Stranger LLC', tin: '302000009' }).expect(201)).body.id;
    // A second company in the owner's workspace, with a counterparty of its own.
    const sibling = randomUUID();
    const siblings = randomUUID();
    await stack.admin.query(`INSERT INTO legal_entities (tenant_id, id, name) VALUES (:t, :id, 'Sibling company')`, { replacements: { t: owner.me.tenantId, id: sibling } });
    await stack.admin.query(
      `INSERT INTO counterparties (tenant_id, id, legal_entity_id, name, version) VALUES (:t, :id, :company, 'Sibling customer', 1)`,
      { replacements: { t: owner.me.tenantId, id: siblings, company: sibling } },
    );
    for (const counterpartyId of [randomUUID(), theirs, siblings]) {
      for (const res of [
        await sheet({ ...FEBRUARY, counterpartyId }, 404),
        await sheet({ ...FEBRUARY, counterpartyId, detail: 'COUNTERPARTY' }, 404),
        await statement({ accountCode: '4010', counterpartyId, ...FEBRUARY }, 404),
        await statement({ accountCode: '4010', counterpartyId, ...FEBRUARY }, 404).set('Accept', CSV),
      ]) {
        expect(res.body).toMatchObject({ type: '/problems/not-found', status: 404, detail: 'No counterparty with this id in this company' });
      }
    }
    expect((await sheet({ ...FEBRUARY, counterpartyId: 'not-a-uuid' }, 400)).body.errors.map((e: { path: string }) => e.path)).toContain('/query/counterpartyId');
    const created = await api(stack).get(`/api/v1/counterparties/${owner.me.company.id}/${beta}`).set(...bearer(owner.accessToken)).expect(200);
    await updateCounterparty(stack, owner, beta, { name: BETA, tin: '302000002', archived: true, expectedVersion: created.body.version }).expect(200);
    try {
      expect((await statement({ accountCode: '4010', counterpartyId: beta, ...FEBRUARY })).body).toMatchObject({ openingBalance: '400.00', closingBalance: '0.00' });
    } finally {
      await updateCounterparty(stack, owner, beta, { name: BETA, tin: '302000002', archived: false, expectedVersion: created.body.version + 1 }).expect(200);
    }
  });

  test('across a completed period close (its snapshot has no counterparty): the same numbers per counterparty before and after it', async () => {
    const spanning = { from: '2024-01-20', to: '2024-02-29' };
    const views = async () => ({
      february: (await sheet({ ...FEBRUARY, detail: 'COUNTERPARTY' })).body,
      spanning: (await sheet({ ...spanning, detail: 'COUNTERPARTY' })).body,
      alpha: (await sheet({ ...FEBRUARY, counterpartyId: alpha })).body,
      alphaStatement: (await statement({ accountCode: '4010', counterpartyId: alpha, ...FEBRUARY })).body,
      alphaSpanning: (await statement({ accountCode: '4010', counterpartyId: alpha, ...spanning })).body,
    });
    const before = await views();
    expect(before.february.basedOnCloseId).toBeNull();
    const close = await ledger.close('2024-01-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    const after = await views();
    // The per-account part now starts from the snapshot; the counterparties' rows still from their lines.
    expect(after.february.basedOnCloseId).toBe(close.body.id);
    expect(after.alpha.basedOnCloseId).toBeNull();
    expect({ ...after, february: { ...after.february, basedOnCloseId: null } }).toEqual(before);
    expect(after.february.rows.filter((r: Row) => r.accountCode === '4010').map(byCounterparty)).toEqual([
      ['4010', null, '50.00', '0.00', '30.00', '0.00', '80.00', '0.00'],
      ['4010', ALPHA, '700.00', '0.00', '250.00', '120.00', '830.00', '0.00'],
      ['4010', BETA, '400.00', '0.00', '0.00', '400.00', '0.00', '0.00'],
    ]);
    // A range with the close date inside it: Alpha's opening before 20 January, its lines on both sides of the close.
    expect(after.spanning.rows.filter((r: Row) => r.accountCode === '4010').map(byCounterparty)).toEqual([
      ['4010', null, '0.00', '0.00', '80.00', '0.00', '80.00', '0.00'],
      ['4010', ALPHA, '1000.00', '0.00', '250.00', '420.00', '830.00', '0.00'],
      ['4010', BETA, '400.00', '0.00', '0.00', '400.00', '0.00', '0.00'],
    ]);
    expect(after.alphaSpanning).toMatchObject({ openingBalance: '1000.00', turnoverDebit: '250.00', turnoverCredit: '420.00', closingBalance: '830.00', totalElements: 3 });
    expect(after.alphaStatement).toMatchObject({ openingBalance: '700.00', closingBalance: '830.00' });
  });
});

describe('exports by counterparty', () => {
  const download = (path: string, query: Record<string, string>, accept: string) =>
    api(stack).get(`${ledger.base}${path}`).query(query).set(...bearer(owner.accessToken)).set('Accept', accept);

  test('a sheet by counterparty as CSV and XLSX: counterpartyId and counterpartyName after subaccountId, the rows as in JSON; other details without them', async () => {
    const query = { ...FEBRUARY, detail: 'COUNTERPARTY' };
    const json = (await sheet(query)).body;
    const res = await download('/reports/turnover-sheet', query, CSV).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...records] = parse(res.text) as string[][];
    expect(header!.slice(0, 6)).toEqual(['accountCode', 'name', 'type', 'subaccountId', 'counterpartyId', 'counterpartyName']);
    expect(header!.slice(6, 12)).toEqual(['openingDebit', 'openingCredit', 'turnoverDebit', 'turnoverCredit', 'closingDebit', 'closingCredit']);
    expect(records.map((r) => [r[0], r[4], r[5], ...r.slice(6, 12)])).toEqual(
      json.rows.map((r: Row) => [r.accountCode, r.counterpartyId ?? '', r.counterpartyName === null ? '' : String(guardCsvCell('text', r.counterpartyName)), ...amounts(r)]),
    );
    // A name's comma and quotes survive the quoting; a name starting with a formula trigger is guarded.
    expect(records.find((r) => r[4] === beta)![5]).toBe(BETA);
    const april = parse((await download('/reports/turnover-sheet', { from: '2024-04-01', to: '2024-04-30', detail: 'COUNTERPARTY' }, CSV).expect(200)).text) as string[][];
    expect(april.find((r) => r[4] === gamma)![5]).toBe("'=Gamma Advance");

    const xlsx = await download('/reports/turnover-sheet', query, XLSX)
      .buffer(true)
      .parse((stream, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.body as never);
    const worksheet = workbook.worksheets[0]!;
    expect((worksheet.getRow(1).values as unknown[]).slice(1, 7)).toEqual(header!.slice(0, 6));
    expect(worksheet.getRow(2 + json.rows.findIndex((r: Row) => r.counterpartyId === alpha)).getCell(6).value).toBe(ALPHA);

    for (const detail of ['ACCOUNT', 'SUBACCOUNT']) {
      const plain = await download('/reports/turnover-sheet', { ...FEBRUARY, detail }, CSV).expect(200);
      const [plainHeader] = parse(plain.text) as string[][];
      expect(plainHeader).not.toContain('counterpartyId');
      expect(plainHeader).not.toContain('counterpartyName');
    }
  });

  test('a statement of one counterparty as CSV: its lines only, the running balance from its opening balance', async () => {
    const query = { accountCode: '4010', counterpartyId: alpha, ...FEBRUARY };
    const json = (await statement(query)).body;
    const res = await download('/reports/account-statement', query, CSV).expect(200);
    const records = parse(res.text, { columns: true }) as Record<string, string>[];
    expect(records.map((r) => [r.entryId, r.debit, r.credit, r.balance])).toEqual(json.items.map((l: { entryId: string; debit: string; credit: string; balance: string }) => [l.entryId, l.debit, l.credit, l.balance]));
    expect(records.map((r) => r.balance)).toEqual(['950.00', '830.00']);
  });
});
