// getCompanyOverview: each figure as the report behind it has it, for a company with a quarter of documents
// (dated 2013, in GBP, a currency whose CBU rates only this file stores: other files store USD rates on random
// days of 2013, which January's close would revalue at).
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, expectDayTotalsTie, ledgerApi, waitForClose } from '../../helpers/ledger';
import { storeCbuRate } from '../../helpers/currency';
import { aCounterparty, invoicesApi, purchaseBody, salesBody, saveTaxSettings } from '../../helpers/invoices';
import { agingOf, paymentsApi } from '../../helpers/payments';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const overviewOf = (who: Registered, asOf?: string) =>
  api(stack)
    .get(`/api/v1/ledger/${who.me.company.id}/overview`)
    .query(asOf ? { asOf } : {})
    .set(...bearer(who.accessToken));

type TrialBalanceLine = { code: string; debit: string; credit: string; currencies: Array<{ currency: string; balance: string; carryingAmount: string }> };
type TurnoverRow = { accountCode: string; type: string; turnoverDebit: string; turnoverCredit: string };

describe('getCompanyOverview: GET /api/v1/ledger/{legalEntityId}/overview', () => {
  test('a quarter of documents: money ties to the trial balance, receivables and payables to the aging, each month to the turnover sheet; what waits is counted', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const ledger = ledgerApi(stack, who);
    const invoices = invoicesApi(stack, who);
    const payments = paymentsApi(stack, who);
    await storeCbuRate(stack, 'GBP', '2013-01-09', '1950.00');
    await ledger.post(entryBody('2013-01-05', [{ accountCode: '5110', debit: '10000000.00' }, { accountCode: '8330', credit: '10000000.00' }])).expect(201);
    await ledger
      .post(entryBody('2013-01-10', [{ accountCode: '5210', debit: '1950000.00', currency: 'GBP', currencyAmount: '1000' }, { accountCode: '8330', credit: '1950000.00' }] as never))
      .expect(201);
    await ledger.post(entryBody('2013-02-14', [{ accountCode: '9420', debit: '200000.00' }, { accountCode: '5110', credit: '200000.00' }])).expect(201);
    const customer = await aCounterparty(stack, who);
    const supplier = await aCounterparty(stack, who);
    // Due in February, a third paid: overdue at the quarter's end. Another not due yet.
    const late = (await invoices.create(salesBody(customer, '2013-01-20', { dueDate: '2013-02-19', lines: [{ description: 'Goods', quantity: '3', unitPrice: '1000000.00' }] })).expect(201)).body;
    await invoices.post(late.id).expect(200);
    await payments.post({ direction: 'IN', date: '2013-02-25', counterpartyId: customer, amount: '1120000.00', allocations: [{ invoiceId: late.id, amount: '1120000.00' }] }).expect(201);
    const recent = (await invoices.create(salesBody(customer, '2013-03-25', { dueDate: '2013-04-24' })).expect(201)).body;
    await invoices.post(recent.id).expect(200);
    const bought = (await invoices.create(purchaseBody(supplier, '2013-02-10', 'S-1', { dueDate: '2013-03-12' })).expect(201)).body;
    await invoices.post(bought.id).expect(200);
    // Waiting: one draft.
    await invoices.create(salesBody(customer, '2013-03-28')).expect(201);
    expect((await waitForClose(ledger, (await ledger.close('2013-01-31').expect(202)).body.id)).status).toBe('COMPLETED');

    const asOf = '2013-03-31';
    const overview = (await overviewOf(who, asOf).expect(200)).body;
    expect(overview.asOf).toBe(asOf);

    // Money: the trial balance's 5000–5299, UZS and each foreign currency with its carrying amount.
    const tb = (await ledger.trialBalance(asOf).expect(200)).body as { lines: TrialBalanceLine[] };
    const moneyLines = tb.lines.filter((l) => l.code >= '5000' && l.code <= '5299');
    const carrying = moneyLines.reduce((s, l) => s + numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit), 0n);
    const foreign = moneyLines.flatMap((l) => l.currencies);
    const foreignCarrying = foreign.reduce((s, c) => s + numericToMinorUnits(c.carryingAmount), 0n);
    expect(overview.money).toEqual([
      { currency: 'UZS', balance: formatMinorUnits(carrying - foreignCarrying), carryingAmount: formatMinorUnits(carrying - foreignCarrying) },
      ...foreign.map((c) => ({ currency: c.currency, balance: c.balance, carryingAmount: c.carryingAmount })),
    ]);
    expect(overview.money.map((m: { currency: string; balance: string }) => [m.currency, m.balance])).toEqual([
      ['UZS', '10920000.00'],
      ['GBP', '1000.00'],
    ]);

    // Receivables and payables: the aging's totals, overdue its buckets past due.
    for (const [side, figures] of [['RECEIVABLE', overview.receivables], ['PAYABLE', overview.payables]] as const) {
      const aging = (await agingOf(stack, who, asOf, side).expect(200)).body as { totals: Array<Record<string, string>> };
      expect(figures).toEqual(
        aging.totals.map((t) => ({
          currency: t.currency,
          outstanding: t.outstanding,
          advances: t.advances,
          notDue: t.notDue,
          days1to30: t.days1to30,
          days31to60: t.days31to60,
          days61to90: t.days61to90,
          over90: t.over90,
          overdue: formatMinorUnits(['days1to30', 'days31to60', 'days61to90', 'over90'].reduce((s, k) => s + numericToMinorUnits(t[k]!), 0n)),
        })),
      );
    }
    expect(overview.receivables).toEqual([
      { currency: 'UZS', outstanding: '2241120.00', overdue: '2240000.00', advances: '0.00', notDue: '1120.00', days1to30: '0.00', days31to60: '2240000.00', days61to90: '0.00', over90: '0.00' },
    ]);
    expect(overview.payables).toEqual([
      { currency: 'UZS', outstanding: '1120.00', overdue: '1120.00', advances: '0.00', notDue: '0.00', days1to30: '1120.00', days31to60: '0.00', days61to90: '0.00', over90: '0.00' },
    ]);

    // Months: twelve, to March 2013; each the turnover sheet's income and expense accounts of the month.
    expect(overview.months.map((m: { month: string }) => m.month)).toEqual([
      '2012-04', '2012-05', '2012-06', '2012-07', '2012-08', '2012-09', '2012-10', '2012-11', '2012-12', '2013-01', '2013-02', '2013-03',
    ]);
    for (const m of overview.months.slice(-3) as Array<{ month: string; revenue: string; expenses: string; result: string }>) {
      const to = m.month === '2013-02' ? '2013-02-28' : `${m.month}-31`;
      const sheet = (await ledger.turnoverSheet(`${m.month}-01`, to).expect(200)).body as { rows: TurnoverRow[] };
      const sum = (type: string, sign: 1n | -1n) =>
        sheet.rows.filter((r) => r.type === type).reduce((s, r) => s + sign * (numericToMinorUnits(r.turnoverCredit) - numericToMinorUnits(r.turnoverDebit)), 0n);
      const revenue = sum('INCOME', 1n);
      const expenses = sum('EXPENSE', -1n);
      expect(m).toEqual({ month: m.month, revenue: formatMinorUnits(revenue), expenses: formatMinorUnits(expenses), result: formatMinorUnits(revenue - expenses) });
    }
    // January's close revalues the GBP at the rate stored on 9 January: no difference, the sale's 3 000 000.00.
    expect(overview.months.at(-3)).toMatchObject({ month: '2013-01', revenue: '3000000.00' });
    expect(overview.months.at(-1)).toMatchObject({ month: '2013-03', revenue: '1000.00', expenses: '0.00', result: '1000.00' });
    expect(overview.months.at(-2)).toMatchObject({ month: '2013-02', expenses: '200000.00' });
    expect(overview.months[0]).toEqual({ month: '2012-04', revenue: '0.00', expenses: '0.00', result: '0.00' });

    // VAT of the month: the VAT register's ledgerVat of each side, output less input.
    const vatOf = async (month: string, side: 'SALES' | 'PURCHASES') =>
      ((await api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/vat-register`).query({ month, side }).set(...bearer(who.accessToken)).expect(200)).body as { ledgerVat: string }).ledgerVat;
    expect(overview.vat).toEqual({ month: '2013-03', output: await vatOf('2013-03', 'SALES'), input: await vatOf('2013-03', 'PURCHASES'), due: '120.00' });
    const february = (await overviewOf(who, '2013-02-28').expect(200)).body;
    expect(february.vat).toEqual({ month: '2013-02', output: await vatOf('2013-02', 'SALES'), input: await vatOf('2013-02', 'PURCHASES'), due: '-120.00' });

    // Cash: 90 days to asOf, each day's balance the trial balance's 5000–5299 of that day; the last, the money's.
    expect(overview.cash).toHaveLength(90);
    expect(overview.cash[0].date).toBe('2013-01-01');
    expect(overview.cash.at(-1)).toEqual({ date: asOf, balance: formatMinorUnits(carrying) });
    for (const day of ['2013-01-04', '2013-01-05', '2013-01-10', '2013-02-14', '2013-02-25']) {
      const lines = ((await ledger.trialBalance(day).expect(200)).body as { lines: TrialBalanceLine[] }).lines.filter((l) => l.code >= '5000' && l.code <= '5299');
      const balance = lines.reduce((s, l) => s + numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit), 0n);
      expect(overview.cash.find((c: { date: string }) => c.date === day)).toEqual({ date: day, balance: formatMinorUnits(balance) });
    }
    expect(overview.cash.find((c: { date: string }) => c.date === '2013-01-04').balance).toBe('0.00');

    expect(overview.lastClose).toMatchObject({ closeDate: '2013-01-31' });
    expect(overview.latestRateDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(overview.waiting).toEqual({ draftInvoices: 1, overdueInvoices: 2, unmatchedBankLines: 0, failedWebhookDeliveries: 0 });

    // The day totals behind the money, the months, the VAT and the cash are the lines' sums; the lines the
    // invoices and the payment posted carry their document's kind (the aging reads the others).
    await expectDayTotalsTie(stack, who.me.company.id);
    const [marked] = await stack.admin.query<{ n: string }>("SELECT count(*) AS n FROM journal_lines WHERE legal_entity_id = :le AND source_type IN ('INVOICE', 'PAYMENT')", {
      replacements: { le: who.me.company.id },
      type: QueryTypes.SELECT,
    });
    expect(Number(marked!.n)).toBeGreaterThanOrEqual(8);
  });

  test('when asOf is left out, it is today; another workspace\'s company is not there; a day that does not exist is 400', async () => {
    const who = await registerWorkspace(stack);
    const today = new Date().toISOString().slice(0, 10);
    const overview = (await overviewOf(who).expect(200)).body;
    expect(overview).toMatchObject({ asOf: today, money: [], receivables: [], payables: [], lastClose: null });
    expect(overview.months).toHaveLength(12);
    expect(overview.months.at(-1).month).toBe(today.slice(0, 7));
    const other = await registerWorkspace(stack);
    await api(stack).get(`/api/v1/ledger/${other.me.company.id}/overview`).set(...bearer(who.accessToken)).expect(404);
    await overviewOf(who, '2013-02-30').expect(400);
  });
});
