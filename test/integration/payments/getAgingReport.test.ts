import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';

let stack: TestStack;
let who: Registered;
let customerA: string;
let customerB: string;
let supplier: string;
beforeAll(async () => {
  stack = await startTestStack();
  who = await registerWorkspace(stack);
  await saveTaxSettings(stack, who);
  customerA = await aCounterparty(stack, who, { name: 'A Customer', tin: '301000001' });
  customerB = await aCounterparty(stack, who, { name: 'B Customer' });
  supplier = await aCounterparty(stack, who, { name: 'Supplier' });
  const invoices = invoicesApi(stack, who);
  const payments = `/api/v1/payments/${who.me.company.id}`;
  const post = async (body: Record<string, unknown>) => (await invoices.post((await invoices.create(body).expect(201)).body.id).expect(200)).body;
  const pay = (body: Record<string, unknown>) => api(stack).post(payments).set(...bearer(who.accessToken)).send({ requestId: randomUUID(), cashAccount: '5110', ...body }).expect(201);
  const exempt = (gross: string) => [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }];
  // A: 1000 due 2026-01-31 (paid 400 on 02-10), 500 due 2026-03-31, 200 due 2026-06-30 paid in full, 300 cancelled on 03-15.
  const a1 = await post({ ...salesBody(customerA, '2026-01-01', { dueDate: '2026-01-31' }), lines: exempt('1000') });
  await post({ ...salesBody(customerA, '2026-03-01', { dueDate: '2026-03-31' }), lines: exempt('500') });
  const a3 = await post({ ...salesBody(customerA, '2026-03-02', { dueDate: '2026-06-30' }), lines: exempt('200') });
  const a4 = await post({ ...salesBody(customerA, '2026-03-03'), lines: exempt('300') });
  await pay({ direction: 'IN', date: '2026-02-10', counterpartyId: customerA, amount: '400', allocations: [{ invoiceId: a1.id, amount: '400' }] });
  await pay({ direction: 'IN', date: '2026-03-05', counterpartyId: customerA, amount: '200', allocations: [{ invoiceId: a3.id, amount: '200' }] });
  await invoices.cancel(a4.id, { requestId: randomUUID(), date: '2026-03-15', reason: 'returned' }).expect(200);
  // B: an advance of 250 on 03-01, a cancelled payment of 90, and a manual entry on 4010 of 70 on 2025-12-01.
  await pay({ direction: 'IN', date: '2026-03-01', counterpartyId: customerB, amount: '250' });
  const bounced = (await pay({ direction: 'IN', date: '2026-03-02', counterpartyId: customerB, amount: '90' })).body;
  await api(stack).post(`${payments}/${bounced.id}/cancellation`).set(...bearer(who.accessToken)).send({ requestId: randomUUID(), date: '2026-03-20', reason: 'bounced' }).expect(200);
  await ledgerApi(stack, who).post(entryBody('2025-12-01', [{ accountCode: '4010', debit: '70', counterpartyId: customerB } as never, { accountCode: '9020', credit: '70' }])).expect(201);
  // A supplier: 600 with VAT 12 % (672), half paid.
  const p1 = await post(purchaseBody(supplier, '2026-03-10', 'S-1', { lines: [{ description: 'Steel', quantity: '1', unitPrice: '600', account: '1010' }] }));
  await pay({ direction: 'OUT', date: '2026-03-11', counterpartyId: supplier, amount: '336', allocations: [{ invoiceId: p1.id, amount: '336' }] });
});
afterAll(async () => {
  await stack.stop();
});

const aging = (asOf: string, side: 'RECEIVABLE' | 'PAYABLE') =>
  api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/aging`).query({ asOf, side }).set(...bearer(who.accessToken));

const balance = async (asOf: string, code: string) => {
  const tb = (await ledgerApi(stack, who).trialBalance(asOf).expect(200)).body as { lines: Array<{ code: string; balance: string }> };
  return tb.lines.find((l) => l.code === code)?.balance ?? '0.00';
};

describe('getAgingReport', () => {
  test('receivables on 2026-03-18: buckets by days past due, paid and cancelled invoices absent, the advance apart, manual lines aged from their date', async () => {
    const res = await aging('2026-03-18', 'RECEIVABLE').expect(200);
    expect(res.body).toMatchObject({ asOf: '2026-03-18', side: 'RECEIVABLE', settlementAccount: '4010', advanceAccount: '6310' });
    expect(res.body.items).toEqual([
      // 1000 − 400 due 01-31: 46 days past due; 500 due 03-31: not due. 200 paid; 300 cancelled on 03-15.
      { counterpartyId: customerA, name: 'A Customer', tin: '301000001', currency: 'UZS', notDue: '500.00', days1to30: '0.00', days31to60: '600.00', days61to90: '0.00', over90: '0.00', outstanding: '1100.00', advances: '0.00' },
      // The manual 70 of 2025-12-01 is 107 days old; the advance of 250 is open, the 90 not yet cancelled.
      { counterpartyId: customerB, name: 'B Customer', tin: null, currency: 'UZS', notDue: '0.00', days1to30: '0.00', days31to60: '0.00', days61to90: '0.00', over90: '70.00', outstanding: '70.00', advances: '340.00' },
    ]);
    expect(res.body.totals).toEqual([{ currency: 'UZS', notDue: '500.00', days1to30: '0.00', days31to60: '600.00', days61to90: '0.00', over90: '70.00', outstanding: '1170.00', advances: '340.00' }]);
  });

  test('at every date the totals equal the settlement and advance account balances (receivable and payable)', async () => {
    for (const asOf of ['2025-12-31', '2026-01-15', '2026-02-10', '2026-03-01', '2026-03-05', '2026-03-14', '2026-03-15', '2026-03-19', '2026-03-20', '2026-12-31']) {
      const receivable = (await aging(asOf, 'RECEIVABLE').expect(200)).body;
      const payable = (await aging(asOf, 'PAYABLE').expect(200)).body;
      const total = (report: { totals: Array<{ outstanding: string; advances: string }> }, field: 'outstanding' | 'advances') => report.totals[0]?.[field] ?? '0.00';
      expect({ asOf, r: total(receivable, 'outstanding'), ra: total(receivable, 'advances'), p: total(payable, 'outstanding'), pa: total(payable, 'advances') }).toEqual({
        asOf,
        r: await balance(asOf, '4010'),
        // 6310 is a liability: its balance is shown on its credit side as positive.
        ra: await balance(asOf, '6310'),
        p: await balance(asOf, '6010'),
        pa: await balance(asOf, '4310'),
      });
    }
  });

  test('payables on 2026-03-18: the supplier invoice, half paid, due on its date (terms of 0 days), 8 days past due; a bad side or date is 400', async () => {
    const res = await aging('2026-03-18', 'PAYABLE').expect(200);
    expect(res.body.items).toEqual([
      { counterpartyId: supplier, name: 'Supplier', tin: null, currency: 'UZS', notDue: '0.00', days1to30: '336.00', days31to60: '0.00', days61to90: '0.00', over90: '0.00', outstanding: '336.00', advances: '0.00' },
    ]);
    await aging('2026-02-30', 'PAYABLE').expect(400);
    await api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/aging`).query({ asOf: '2026-03-18', side: 'BOTH' }).set(...bearer(who.accessToken)).expect(400);
  });
});
