import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

async function company(): Promise<{ user: Registered; ledger: ReturnType<typeof ledgerApi> }> {
  const user = await registerWorkspace(stack);
  return { user, ledger: ledgerApi(stack, user) };
}

describe('getTrialBalance: GET /api/v1/ledger/{legalEntityId}/trial-balance', () => {
  test('"balances on each account\'s normal side; totals balance", as of any date', async () => {
    const { ledger } = await company();
    await ledger.post(simpleEntry('2025-01-05', '1000.00', '5110', '8330')).expect(201); // capital in
    await ledger.post(simpleEntry('2025-01-10', '300.00', '4010', '9010')).expect(201); // sale on credit
    await ledger.post(simpleEntry('2025-01-20', '120.50', '9410', '5110')).expect(201); // expense paid
    await ledger.post(simpleEntry('2025-02-01', '300.00', '5110', '4010')).expect(201); // customer pays
    const jan = await ledger.trialBalance('2025-01-31').expect(200);
    expect(jan.body).toMatchObject({ asOf: '2025-01-31', basedOnCloseId: null, totalDebit: '1420.50', totalCredit: '1420.50' });
    const byCode = Object.fromEntries(jan.body.lines.map((l: { code: string }) => [l.code, l]));
    expect(byCode['5110']).toMatchObject({ type: 'ASSET', debit: '1000.00', credit: '120.50', balance: '879.50' });
    expect(byCode['8330']).toMatchObject({ type: 'EQUITY', debit: '0.00', credit: '1000.00', balance: '1000.00' });
    expect(byCode['9010']).toMatchObject({ type: 'INCOME', balance: '300.00' });
    expect(byCode['9410']).toMatchObject({ type: 'EXPENSE', balance: '120.50' });
    expect(jan.body.lines.map((l: { code: string }) => l.code)).toEqual(['4010', '5110', '8330', '9010', '9410']);
    const early = await ledger.trialBalance('2025-01-07').expect(200);
    expect(early.body.lines.map((l: { code: string }) => l.code)).toEqual(['5110', '8330']);
    const feb = await ledger.trialBalance('2025-02-28').expect(200);
    expect(Object.fromEntries(feb.body.lines.map((l: { code: string; balance: string }) => [l.code, l.balance]))).toMatchObject({ '4010': '0.00', '5110': '1179.50' });
  });

  test('"the last snapshot at or before that date plus the lines after it": reads start from the close', async () => {
    const { ledger } = await company();
    await ledger.post(simpleEntry('2025-01-05', '100.00')).expect(201);
    const close = await ledger.close('2025-01-31').expect(202);
    await waitForClose(ledger, close.body.id);
    await ledger.post(simpleEntry('2025-02-05', '50.00')).expect(201);
    const after = await ledger.trialBalance('2025-02-28').expect(200);
    expect(after.body.basedOnCloseId).toBe(close.body.id);
    expect(after.body.totalDebit).toBe('150.00');
    const before = await ledger.trialBalance('2025-01-30').expect(200);
    expect(before.body.basedOnCloseId).toBeNull();
    expect(before.body.totalDebit).toBe('100.00');
  });
});

