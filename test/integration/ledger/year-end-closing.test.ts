import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { entryBody, expectDayTotalsTie, ledgerApi, waitForClose } from '../../helpers/ledger';
import { numericToMinorUnits } from '../../../core/ledger/money';

// The close of 31 December also closes the year: income and expenses into 9910, 9910 into 8710.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

async function books() {
  const owner = await registerWorkspace(stack);
  return { owner, ledger: ledgerApi(stack, owner) };
}

type Entry = { kind: string; entryDate: string; description: string; lines: Array<{ accountCode: string; debit: string; credit: string }> };
const closingEntries = async (ledger: ReturnType<typeof ledgerApi>): Promise<Entry[]> =>
  (await ledger.list({ size: 100 }).expect(200)).body.items.filter((e: Entry) => e.kind === 'YEAR_END_CLOSING');
const balanceOf = (tb: { lines: Array<{ code: string; balance: string }> }, code: string) => tb.lines.find((l) => l.code === code)?.balance ?? '0.00';

describe('closePeriod at a fiscal year\'s end posts the closing entries (closePeriodWorkflow)', () => {
  test('a profit: income and expenses are closed into 9910, and 9910 into 8710, as two system entries on 31 December', async () => {
    const { owner, ledger } = await books();
    await ledger.post(entryBody('2023-03-01', [{ accountCode: '5110', debit: '1000.00' }, { accountCode: '8330', credit: '1000.00' }])).expect(201);
    await ledger.post(entryBody('2023-06-01', [{ accountCode: '4010', debit: '500.00' }, { accountCode: '9010', credit: '500.00' }])).expect(201);
    await ledger.post(entryBody('2023-07-01', [{ accountCode: '9410', debit: '120.00' }, { accountCode: '5110', credit: '120.00' }])).expect(201);
    await ledger.post(entryBody('2023-08-01', [{ accountCode: '9430', debit: '30.00' }, { accountCode: '5110', credit: '30.00' }])).expect(201);

    const close = await ledger.close('2023-12-31').expect(202);
    const done = await waitForClose(ledger, close.body.id);
    expect(done.status).toBe('COMPLETED');
    const entries = await closingEntries(ledger);
    expect(entries.map((e) => [e.entryDate, e.lines.map((l) => [l.accountCode, l.debit, l.credit])])).toEqual([
      ['2023-12-31', [['9010', '500.00', '0.00'], ['9410', '0.00', '120.00'], ['9430', '0.00', '30.00'], ['9910', '0.00', '350.00']]],
      ['2023-12-31', [['9910', '350.00', '0.00'], ['8710', '0.00', '350.00']]],
    ]);
    // The entries are in the closed period's snapshot: the income and expense accounts end the year at zero.
    expect(done.entryCount).toBe(6);
    const tb = (await ledger.trialBalance('2023-12-31').expect(200)).body;
    expect(tb.totalDebit).toBe(tb.totalCredit);
    for (const code of ['9010', '9410', '9430', '9910']) expect(balanceOf(tb, code)).toBe('0.00');
    expect(balanceOf(tb, '8710')).toBe('350.00');
    // The closing entries' lines are day totals of their own (the months' results leave them out).
    expect(await expectDayTotalsTie(stack, owner.me.company.id)).toBeGreaterThan(0);
    const [closingTotals] = await stack.admin.query<{ n: string }>('SELECT count(*) AS n FROM journal_day_totals WHERE legal_entity_id = :le AND year_end', {
      replacements: { le: owner.me.company.id },
      type: QueryTypes.SELECT,
    });
    expect(Number(closingTotals!.n)).toBe(5);
    const audit = await stack.admin.query<{ details: string }>(
      "SELECT details FROM audit_events WHERE tenant_id = :t AND action = 'ledger.period.year-end-closed'",
      { replacements: { t: owner.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(audit).toEqual([{ details: expect.stringContaining('year 2023 closed: entries #5, #6, result 350.00 to 8710') }]);
    // A closing entry is not reversed.
    const id = (await ledger.list({ size: 100 }).expect(200)).body.items.find((e: { kind: string }) => e.kind === 'YEAR_END_CLOSING').id;
    expect((await ledger.reverse(id, { requestId: randomUUID(), entryDate: '2024-01-02', reason: 'no' }).expect(409)).body.type).toBe('/problems/entry-not-reversible');
  });

  test('a loss goes to the debit of 8710; a close in the middle of the year posts no closing entries; the next year starts from zero', async () => {
    const { ledger } = await books();
    await ledger.post(entryBody('2023-05-01', [{ accountCode: '4010', debit: '100.00' }, { accountCode: '9010', credit: '100.00' }])).expect(201);
    await ledger.post(entryBody('2023-05-02', [{ accountCode: '9410', debit: '250.00' }, { accountCode: '6010', credit: '250.00' }])).expect(201);
    const june = await ledger.close('2023-06-30').expect(202);
    expect((await waitForClose(ledger, june.body.id)).status).toBe('COMPLETED');
    expect(await closingEntries(ledger)).toEqual([]);
    const december = await ledger.close('2023-12-31').expect(202);
    expect((await waitForClose(ledger, december.body.id)).status).toBe('COMPLETED');
    expect((await closingEntries(ledger)).map((e) => e.lines.map((l) => [l.accountCode, l.debit, l.credit]))).toEqual([
      [['9010', '100.00', '0.00'], ['9410', '0.00', '250.00'], ['9910', '150.00', '0.00']],
      [['9910', '0.00', '150.00'], ['8710', '150.00', '0.00']],
    ]);
    // 8710 moved by the year's net result (income minus expenses): −150.00 on its credit side.
    const tb = (await ledger.trialBalance('2023-12-31').expect(200)).body;
    expect(numericToMinorUnits(balanceOf(tb, '8710'))).toBe(-15000n);
    // 2024: the income statement accounts start from zero; the new year's sale is its own.
    await ledger.post(entryBody('2024-01-10', [{ accountCode: '4010', debit: '40.00' }, { accountCode: '9010', credit: '40.00' }])).expect(201);
    expect(balanceOf((await ledger.trialBalance('2024-01-31').expect(200)).body, '9010')).toBe('40.00');
  });

  test('a year without income or expenses closes without closing entries', async () => {
    const { ledger } = await books();
    await ledger.post(entryBody('2022-03-01', [{ accountCode: '5110', debit: '10.00' }, { accountCode: '8330', credit: '10.00' }])).expect(201);
    const close = await ledger.close('2022-12-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    expect(await closingEntries(ledger)).toEqual([]);
  });
});
