import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { allEntries, entryBody, ledgerApi, waitForClose } from '../../helpers/ledger';
import { toHledgerJournal } from '../../../tools/hledger-journal';
import { numericToMinorUnits } from '../../../core/ledger/money';

// The turnover balance sheet: opening, turnovers and closing per account for a date range. Its foreign lines
// use MANUAL rates, so this file needs no stored rates.

let stack: TestStack;
let owner: Registered;
let ledger: ReturnType<typeof ledgerApi>;
let subaccountId: string;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  ledger = ledgerApi(stack, owner);
  subaccountId = (
    await api(stack)
      .post(`/api/v1/accounting-settings/${owner.me.company.id}/accounts/5110/subaccounts`)
      .set(...bearer(owner.accessToken))
      .send({ code: 'MAIN', name: 'Main bank', enabled: true })
      .expect(201)
  ).body.id;
  const post = (body: unknown) => ledger.post(body).expect(201);
  await post(entryBody('2024-01-10', [{ accountCode: '5110', debit: '1000.00' }, { accountCode: '8330', credit: '1000.00' }]));
  await post(entryBody('2024-02-05', [{ accountCode: '4010', debit: '300.00' }, { accountCode: '9010', credit: '300.00' }]));
  await post(entryBody('2024-02-20', [{ accountCode: '5110', debit: '200.00', subaccountId }, { accountCode: '4010', credit: '200.00' }]));
  await post(
    entryBody('2024-02-25', [
      { accountCode: '5210', debit: '1285.00', currency: 'USD', currencyAmount: '0.10', rate: '12850', rateSource: 'MANUAL' },
      { accountCode: '9010', credit: '1285.00' },
    ] as never),
  );
  await post(entryBody('2024-03-01', [{ accountCode: '5110', debit: '50.00' }, { accountCode: '9010', credit: '50.00' }]));
});
afterAll(async () => {
  await stack.stop();
});

const sheet = (query: Record<string, string>, status = 200) =>
  api(stack).get(`${ledger.base}/reports/turnover-sheet`).query(query).set(...bearer(owner.accessToken)).expect(status);

type Row = { accountCode: string; subaccountId: string | null; openingDebit: string; openingCredit: string; turnoverDebit: string; turnoverCredit: string; closingDebit: string; closingCredit: string };
const columns = (r: Row) => [r.accountCode, r.openingDebit, r.openingCredit, r.turnoverDebit, r.turnoverCredit, r.closingDebit, r.closingCredit];

describe('getTurnoverSheet: GET /api/v1/ledger/{legalEntityId}/reports/turnover-sheet', () => {
  test('per account: the balance before the range on its side, the range\'s turnovers and the balance at its end; every pair of totals balances', async () => {
    const res = await sheet({ from: '2024-02-01', to: '2024-02-29' });
    expect(res.body).toMatchObject({ from: '2024-02-01', to: '2024-02-29', detail: 'ACCOUNT', currency: null, basedOnCloseId: null });
    expect(res.body.rows.map(columns)).toEqual([
      ['4010', '0.00', '0.00', '300.00', '200.00', '100.00', '0.00'],
      ['5110', '1000.00', '0.00', '200.00', '0.00', '1200.00', '0.00'],
      ['5210', '0.00', '0.00', '1285.00', '0.00', '1285.00', '0.00'],
      ['8330', '0.00', '1000.00', '0.00', '0.00', '0.00', '1000.00'],
      ['9010', '0.00', '0.00', '0.00', '1585.00', '0.00', '1585.00'],
    ]);
    expect(res.body.rows[0]).toMatchObject({ name: expect.any(String), type: 'ASSET', subaccountId: null, foreign: null });
    expect(res.body.totals).toEqual({
      openingDebit: '1000.00',
      openingCredit: '1000.00',
      turnoverDebit: '1785.00',
      turnoverCredit: '1785.00',
      closingDebit: '2585.00',
      closingCredit: '2585.00',
    });
  });

  test('its closing balances equal the trial balance at its end date', async () => {
    const rows: Row[] = (await sheet({ from: '2024-02-01', to: '2024-02-29' })).body.rows;
    const tb = (await ledger.trialBalance('2024-02-29').expect(200)).body;
    const net = new Map<string, bigint>(tb.lines.map((l: { code: string; debit: string; credit: string }) => [l.code, numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit)]));
    for (const r of rows) expect(numericToMinorUnits(r.closingDebit) - numericToMinorUnits(r.closingCredit)).toBe(net.get(r.accountCode) ?? 0n);
  });

  test('hledger, given the exported journal and the same dates, finds the same turnovers per account', async () => {
    const rows: Row[] = (await sheet({ from: '2024-02-01', to: '2024-02-29' })).body.rows;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'turnover-')), 'ledger.journal');
    writeFileSync(file, toHledgerJournal(await allEntries(ledger)));
    const csv = execFileSync('hledger', ['-f', file, 'balance', '--flat', '--depth', '1', '--cost', '-b', '2024-02-01', '-e', '2024-03-01', '-O', 'csv', '--no-total', '--layout', 'bare'], { encoding: 'utf8' });
    const hledger = new Map(
      csv
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',').map((cell) => cell.replace(/^"|"$/g, '')))
        .map(([account, , amount]) => [account!, numericToMinorUnits(amount!)] as const),
    );
    const ours = new Map(rows.map((r) => [r.accountCode, numericToMinorUnits(r.turnoverDebit) - numericToMinorUnits(r.turnoverCredit)] as const));
    expect(new Map([...ours].filter(([, v]) => v !== 0n))).toEqual(new Map([...hledger].filter(([, v]) => v !== 0n)));
  });

  test('detail=SUBACCOUNT splits an account by subaccount (its lines without one apart)', async () => {
    const res = await sheet({ from: '2024-02-01', to: '2024-02-29', detail: 'SUBACCOUNT' });
    const cash = res.body.rows.filter((r: Row) => r.accountCode === '5110');
    expect(cash.map((r: Row) => [r.subaccountId, ...columns(r).slice(1)])).toEqual([
      [null, '1000.00', '0.00', '0.00', '0.00', '1000.00', '0.00'],
      [subaccountId, '0.00', '0.00', '200.00', '0.00', '200.00', '0.00'],
    ]);
  });

  test('a currency: only its lines, with their foreign amounts', async () => {
    const usd = (await sheet({ from: '2024-02-01', to: '2024-02-29', currency: 'USD' })).body;
    expect(usd.rows).toEqual([
      expect.objectContaining({ accountCode: '5210', turnoverDebit: '1285.00', foreign: { opening: '0.00', turnoverDebit: '0.10', turnoverCredit: '0.00', closing: '0.10' } }),
    ]);
    const uzs = (await sheet({ from: '2024-02-01', to: '2024-02-29', currency: 'UZS' })).body;
    expect(uzs.rows.map((r: Row) => r.accountCode)).toEqual(['4010', '5110', '8330', '9010']);
  });

  test('after a close, the opening balances start from its snapshot, with the same numbers', async () => {
    const before = (await sheet({ from: '2024-02-01', to: '2024-02-29' })).body;
    const close = await ledger.close('2024-01-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    const after = (await sheet({ from: '2024-02-01', to: '2024-02-29' })).body;
    expect(after.basedOnCloseId).toBe(close.body.id);
    expect(after.rows).toEqual(before.rows);
    expect(after.totals).toEqual(before.totals);
  });

  test.each([
    [{ from: '2024-02-29', to: '2024-02-01' }, '/query/to'],
    [{ from: '2023-01-01', to: '2024-01-02' }, '/query/to'],
    [{ from: '2024-02-30', to: '2024-03-01' }, '/query/from'],
    [{ from: '2024-02-01' }, '/query/to'],
    [{ from: '2024-02-01', to: '2024-02-29', detail: 'ENTRY' }, '/query/detail'],
    [{ from: '2024-02-01', to: '2024-02-29', currency: 'usd' }, '/query/currency'],
  ])('a bad range or parameter %j is 400 naming it', async (query, path) => {
    const res = await sheet(query as Record<string, string>, 400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  test('another workspace\'s company is 404', async () => {
    const other = await registerWorkspace(stack);
    await api(stack).get(`/api/v1/ledger/${owner.me.company.id}/reports/turnover-sheet`).query({ from: '2024-02-01', to: '2024-02-29' }).set(...bearer(other.accessToken)).expect(404);
  });
});
