import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { CSV, XLSX, asBuffer, readCsv, readXlsx } from '../../helpers/exports';
import { agingOf, paymentsApi } from '../../helpers/payments';

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

const aging = (asOf: string, side: 'RECEIVABLE' | 'PAYABLE', accept?: string) => {
  const req = api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/aging`).query({ asOf, side }).set(...bearer(who.accessToken));
  if (accept === undefined) return req;
  req.set('Accept', accept);
  return accept === XLSX ? asBuffer(req) : req;
};

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

  test('"a paid invoice never shows in the aging": paid as given, oldest first or by a later allocation of an advance, in or out, it leaves the report on the day it is paid', async () => {
    const own = await registerWorkspace(stack);
    await saveTaxSettings(stack, own);
    const customer = await aCounterparty(stack, own, { name: 'Paying Customer' });
    const vendor = await aCounterparty(stack, own, { name: 'Paid Supplier' });
    const invoices = invoicesApi(stack, own);
    const payments = paymentsApi(stack, own);
    const post = async (body: Record<string, unknown>) => (await invoices.post((await invoices.create(body).expect(201)).body.id).expect(200)).body;
    const lines = (gross: string) => [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }];
    const given = await post({ ...salesBody(customer, '2026-05-01'), lines: lines('100') });
    await post({ ...salesBody(customer, '2026-05-01'), lines: lines('200') });
    const later = await post({ ...salesBody(customer, '2026-05-01'), lines: lines('300') });
    const bought = await post(purchaseBody(vendor, '2026-05-01', 'V-1', { lines: [{ description: 'Steel', quantity: '1', unitPrice: '400', account: '1010', vatRate: null }] }));
    const advance = (await payments.post({ direction: 'IN', date: '2026-05-01', counterpartyId: customer, amount: '300' }).expect(201)).body;
    const items = async (asOf: string, side: 'RECEIVABLE' | 'PAYABLE') =>
      ((await agingOf(stack, own, asOf, side).expect(200)).body.items as Array<{ counterpartyId: string; outstanding: string; advances: string }>).map((i) => [i.counterpartyId, i.outstanding, i.advances]);
    expect(await items('2026-05-01', 'RECEIVABLE')).toEqual([[customer, '600.00', '300.00']]);
    await payments.post({ direction: 'IN', date: '2026-05-02', counterpartyId: customer, amount: '100', allocations: [{ invoiceId: given.id, amount: '100' }] }).expect(201);
    expect(await items('2026-05-02', 'RECEIVABLE')).toEqual([[customer, '500.00', '300.00']]);
    // Oldest first takes the 200 (the 300 was later in number); the 300 is then paid by the advance.
    await payments.post({ direction: 'IN', date: '2026-05-03', counterpartyId: customer, amount: '200', allocate: 'OLDEST_FIRST' }).expect(201);
    await payments.allocate(advance.id, { date: '2026-05-04', allocations: [{ invoiceId: later.id, amount: '300' }] }).expect(200);
    await payments.post({ direction: 'OUT', date: '2026-05-04', counterpartyId: vendor, amount: '400', allocate: 'OLDEST_FIRST' }).expect(201);
    expect(await items('2026-05-03', 'RECEIVABLE')).toEqual([[customer, '300.00', '300.00']]);
    expect(await items('2026-05-03', 'PAYABLE')).toEqual([[vendor, '400.00', '0.00']]);
    for (const asOf of ['2026-05-04', '2026-08-31']) {
      expect(await items(asOf, 'RECEIVABLE')).toEqual([]);
      expect(await items(asOf, 'PAYABLE')).toEqual([]);
    }
    for (const id of [given.id, later.id, bought.id]) expect((await invoices.get(id).expect(200)).body.status).toBe('PAID');
  });

  test('payables on 2026-03-18: the supplier invoice, half paid, due on its date (terms of 0 days), 8 days past due; a bad side or date is 400', async () => {
    const res = await aging('2026-03-18', 'PAYABLE').expect(200);
    expect(res.body.items).toEqual([
      { counterpartyId: supplier, name: 'Supplier', tin: null, currency: 'UZS', notDue: '0.00', days1to30: '336.00', days31to60: '0.00', days61to90: '0.00', over90: '0.00', outstanding: '336.00', advances: '0.00' },
    ]);
    await aging('2026-02-30', 'PAYABLE').expect(400);
    await api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/aging`).query({ asOf: '2026-03-18', side: 'BOTH' }).set(...bearer(who.accessToken)).expect(400);
  });

  test('as CSV: the header of the items\' field names and a row per item as the JSON has it; as XLSX the same rows, amounts as numbers; another type is 406', async () => {
    const json = (await aging('2026-03-18', 'RECEIVABLE').expect(200)).body;
    const header = ['counterpartyId', 'name', 'tin', 'currency', 'notDue', 'days1to30', 'days31to60', 'days61to90', 'over90', 'outstanding', 'advances'];
    const asCells = (item: Record<string, string | null>) => Object.fromEntries(header.map((h) => [h, item[h] ?? '']));
    const csv = await aging('2026-03-18', 'RECEIVABLE', CSV).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="aging-${who.me.company.id}-2026-03-18-receivable.csv"`);
    expect(csv.text.split('\n')[0]).toBe(header.join(','));
    expect(json.items).toHaveLength(2);
    expect(await readCsv(csv.text)).toEqual(json.items.map(asCells));
    const xlsx = await aging('2026-03-18', 'PAYABLE', XLSX).expect(200);
    expect(xlsx.headers['content-disposition']).toBe(`attachment; filename="aging-${who.me.company.id}-2026-03-18-payable.xlsx"`);
    const { name, rows } = await readXlsx(xlsx.body as Buffer);
    expect(name).toBe('Aging');
    expect(rows).toEqual([header, [supplier, 'Supplier', undefined, 'UZS', 0, 336, 0, 0, 0, 336, 0]]);
    const refused = await aging('2026-03-18', 'RECEIVABLE', 'application/pdf').expect(406);
    expect(refused.body.type).toBe('/problems/not-acceptable');
  });

  test('an allocation counts from its date until its payment is cancelled, and a later allocation of an advance from its own date; the totals tie to 4010 and 6310 throughout', async () => {
    const other = await registerWorkspace(stack);
    await saveTaxSettings(stack, other);
    const customer = await aCounterparty(stack, other, { name: 'C Customer' });
    const invoices = invoicesApi(stack, other);
    const sale = async (date: string, dueDate: string, gross: string) =>
      (await invoices.post((await invoices.create({ ...salesBody(customer, date, { dueDate }), lines: [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }] }).expect(201)).body.id).expect(200)).body as { id: string };
    const payments = `/api/v1/payments/${other.me.company.id}`;
    const send = (path: string, body: Record<string, unknown>) => api(stack).post(`${payments}${path}`).set(...bearer(other.accessToken)).send(body);
    // 800 due 04-30, 300 of it paid on 04-05 by a payment cancelled on 04-20; an advance of 150 on 04-06 allocated on 04-12 to 200 due 05-31.
    const first = await sale('2026-04-01', '2026-04-30', '800');
    const second = await sale('2026-04-02', '2026-05-31', '200');
    const paid = (await send('', { requestId: randomUUID(), cashAccount: '5110', direction: 'IN', date: '2026-04-05', counterpartyId: customer, amount: '300', allocations: [{ invoiceId: first.id, amount: '300' }] }).expect(201)).body as { id: string };
    const advance = (await send('', { requestId: randomUUID(), cashAccount: '5110', direction: 'IN', date: '2026-04-06', counterpartyId: customer, amount: '150' }).expect(201)).body as { id: string };
    await send(`/${advance.id}/allocations`, { date: '2026-04-12', allocations: [{ invoiceId: second.id, amount: '150' }] }).expect(200);
    await send(`/${paid.id}/cancellation`, { requestId: randomUUID(), date: '2026-04-20', reason: 'bounced' }).expect(200);
    const seen = async (asOf: string) => {
      const body = (await api(stack).get(`/api/v1/ledger/${other.me.company.id}/reports/aging`).query({ asOf, side: 'RECEIVABLE' }).set(...bearer(other.accessToken)).expect(200)).body as {
        items: Array<{ notDue: string; outstanding: string; advances: string }>;
      };
      const tb = (await ledgerApi(stack, other).trialBalance(asOf).expect(200)).body as { lines: Array<{ code: string; balance: string }> };
      const balance = (code: string) => tb.lines.find((l) => l.code === code)?.balance ?? '0.00';
      const [item] = body.items;
      return { asOf, notDue: item?.notDue, outstanding: item?.outstanding, advances: item?.advances, ties: item?.outstanding === balance('4010') && item?.advances === balance('6310') };
    };
    expect(await Promise.all(['2026-04-04', '2026-04-05', '2026-04-06', '2026-04-12', '2026-04-19', '2026-04-20'].map(seen))).toEqual([
      { asOf: '2026-04-04', notDue: '1000.00', outstanding: '1000.00', advances: '0.00', ties: true },
      { asOf: '2026-04-05', notDue: '700.00', outstanding: '700.00', advances: '0.00', ties: true },
      { asOf: '2026-04-06', notDue: '700.00', outstanding: '700.00', advances: '150.00', ties: true },
      { asOf: '2026-04-12', notDue: '550.00', outstanding: '550.00', advances: '0.00', ties: true },
      { asOf: '2026-04-19', notDue: '550.00', outstanding: '550.00', advances: '0.00', ties: true },
      { asOf: '2026-04-20', notDue: '850.00', outstanding: '850.00', advances: '0.00', ties: true },
    ]);
  });
});
