import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi } from '../../helpers/ledger';
import { storeCbuRate } from '../../helpers/currency';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { agingOf, paymentsApi } from '../../helpers/payments';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

/** A workspace with its tax settings and a customer and a supplier. */
async function aCompany() {
  const who = await registerWorkspace(stack);
  await saveTaxSettings(stack, who);
  const customer = await aCounterparty(stack, who, { name: 'Customer' });
  const supplier = await aCounterparty(stack, who, { name: 'Supplier' });
  return { who, customer, supplier, invoices: invoicesApi(stack, who), payments: paymentsApi(stack, who), ledger: ledgerApi(stack, who) };
}

/** A posted sales invoice of `gross` UZS (exempt, so net = gross), dated `date`, due `dueDate`. */
async function postedSale(c: Awaited<ReturnType<typeof aCompany>>, gross: string, date = '2026-03-01', dueDate?: string) {
  const draft = (await c.invoices.create({ ...salesBody(c.customer, date), ...(dueDate ? { dueDate } : {}), lines: [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }] }).expect(201)).body;
  return (await c.invoices.post(draft.id).expect(200)).body;
}

const balances = async (c: Awaited<ReturnType<typeof aCompany>>, asOf: string, codes: string[]) => {
  const tb = (await c.ledger.trialBalance(asOf).expect(200)).body as { lines: Array<{ code: string; balance: string }> };
  return Object.fromEntries(codes.map((code) => [code, tb.lines.find((l) => l.code === code)?.balance ?? '0.00']));
};

const entryCount = async (who: Registered) =>
  (await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_entries WHERE tenant_id = :t', { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT }))[0]!.n;

describe('postPayment', () => {
  test('when a payment settles an invoice in full, then Dr 5110 / Cr 4010 (the customer), the invoice is PAID with nothing outstanding, and the same request answers the same payment', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '1000.00');
    const body = { requestId: randomUUID(), direction: 'IN', date: '2026-03-05', counterpartyId: c.customer, amount: '1000', cashAccount: '5110', allocations: [{ invoiceId: invoice.id, amount: '1000.00' }] };
    const res = await c.payments.postExact(body).expect(201);
    expect(res.body).toMatchObject({ direction: 'IN', status: 'POSTED', amount: '1000.00', allocated: '1000.00', unallocated: '0.00', amountUzs: '1000.00' });
    expect(res.body.allocations).toEqual([expect.objectContaining({ invoiceId: invoice.id, invoiceNumber: invoice.number, amount: '1000.00', date: '2026-03-05', entryId: res.body.entryId, releasedDate: null })]);
    const entry = (await c.ledger.get(res.body.entryId).expect(200)).body;
    expect(entry.source).toEqual({ type: 'PAYMENT', id: res.body.id });
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.counterpartyId])).toEqual([
      ['5110', '1000.00', '0.00', null],
      ['4010', '0.00', '1000.00', c.customer],
    ]);
    expect((await c.invoices.get(invoice.id).expect(200)).body).toMatchObject({ status: 'PAID', allocated: '1000.00', outstanding: '0.00' });
    expect((await c.invoices.list({ status: 'PAID' }).expect(200)).body.items.map((i: { id: string }) => i.id)).toEqual([invoice.id]);
    expect((await c.invoices.list({ status: 'POSTED' }).expect(200)).body.items).toEqual([]);
    expect((await c.payments.postExact(body).expect(200)).body).toEqual(res.body);
    expect((await c.payments.postExact({ ...body, amount: '999' }).expect(409)).body.type).toBe('/problems/request-id-reused');
    expect(await balances(c, '2026-03-31', ['4010', '5110'])).toEqual({ '4010': '0.00', '5110': '1000.00' });
  });

  test('two payments over one invoice and one payment over two invoices allocate to the tiyin; an overpayment is an advance on 6310, never a negative invoice', async () => {
    const c = await aCompany();
    const a = await postedSale(c, '1000.01');
    const b = await postedSale(c, '333.33');
    await c.payments.post({ direction: 'IN', date: '2026-03-10', counterpartyId: c.customer, amount: '0.01', allocations: [{ invoiceId: a.id, amount: '0.01' }] }).expect(201);
    expect((await c.invoices.get(a.id).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '1000.00' });
    const both = await c.payments.post({ direction: 'IN', date: '2026-03-11', counterpartyId: c.customer, amount: '1400.00', allocations: [{ invoiceId: a.id, amount: '1000' }, { invoiceId: b.id, amount: '333.33' }] }).expect(201);
    expect(both.body).toMatchObject({ allocated: '1333.33', unallocated: '66.67' });
    for (const id of [a.id, b.id]) expect((await c.invoices.get(id).expect(200)).body).toMatchObject({ status: 'PAID', outstanding: '0.00' });
    const entry = (await c.ledger.get(both.body.entryId).expect(200)).body;
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([['5110', '1400.00', '0.00'], ['4010', '0.00', '1333.33'], ['6310', '0.00', '66.67']]);
    expect(await balances(c, '2026-03-31', ['4010', '6310'])).toEqual({ '4010': '0.00', '6310': '66.67' });
  });

  test('OLDEST_FIRST settles the open invoices by due date, then date, then number, the last one partly', async () => {
    const c = await aCompany();
    const late = await postedSale(c, '100.00', '2026-03-01', '2026-04-30');
    const early = await postedSale(c, '200.00', '2026-03-02', '2026-03-10');
    const middle = await postedSale(c, '300.00', '2026-03-03', '2026-03-20');
    const res = await c.payments.post({ direction: 'IN', date: '2026-03-25', counterpartyId: c.customer, amount: '450.00', allocate: 'OLDEST_FIRST' }).expect(201);
    expect(res.body.allocations.map((x: { invoiceId: string; amount: string }) => [x.invoiceId, x.amount])).toEqual([[early.id, '200.00'], [middle.id, '250.00']]);
    expect((await c.invoices.get(late.id).expect(200)).body.outstanding).toBe('100.00');
  });

  test('an allocation above what is outstanding, or allocations above the amount, are 409 and post nothing', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '500.00');
    const before = await entryCount(c.who);
    const over = await c.payments.post({ direction: 'IN', date: '2026-03-05', counterpartyId: c.customer, amount: '600', allocations: [{ invoiceId: invoice.id, amount: '500.01' }] }).expect(409);
    expect(over.body).toMatchObject({ type: '/problems/allocation-exceeds-outstanding', invoiceId: invoice.id, outstanding: '500.00' });
    const beyond = await c.payments.post({ direction: 'IN', date: '2026-03-05', counterpartyId: c.customer, amount: '100', allocations: [{ invoiceId: invoice.id, amount: '200' }] }).expect(409);
    expect(beyond.body).toMatchObject({ type: '/problems/allocation-exceeds-payment', unallocated: '100.00' });
    expect(await entryCount(c.who)).toBe(before);
    expect((await c.invoices.get(invoice.id).expect(200)).body.outstanding).toBe('500.00');
  });

  test('bad allocations are 400: another counterparty\'s invoice, a purchase for money in, a draft, an invoice dated after the payment, one named twice, both allocations and allocate, amount 0', async () => {
    const c = await aCompany();
    const sale = await postedSale(c, '100.00', '2026-03-01');
    const later = await postedSale(c, '100.00', '2026-03-09');
    const draft = (await c.invoices.create(salesBody(c.customer, '2026-03-01')).expect(201)).body;
    const purchase = (await c.invoices.post((await c.invoices.create(purchaseBody(c.supplier, '2026-03-01', 'P-1')).expect(201)).body.id).expect(200)).body;
    const other = await aCounterparty(stack, c.who);
    const base = { direction: 'IN', date: '2026-03-05', counterpartyId: c.customer, amount: '50' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, counterpartyId: other, allocations: [{ invoiceId: sale.id, amount: '10' }] }, '/body/allocations/0/invoiceId'],
      [{ ...base, allocations: [{ invoiceId: purchase.id, amount: '10' }] }, '/body/allocations/0/invoiceId'],
      [{ ...base, allocations: [{ invoiceId: draft.id, amount: '10' }] }, '/body/allocations/0/invoiceId'],
      [{ ...base, allocations: [{ invoiceId: later.id, amount: '10' }] }, '/body/allocations/0/invoiceId'],
      [{ ...base, allocations: [{ invoiceId: sale.id, amount: '10' }, { invoiceId: sale.id, amount: '10' }] }, '/body/allocations/1/invoiceId'],
      [{ ...base, allocations: [{ invoiceId: sale.id, amount: '10' }], allocate: 'OLDEST_FIRST' }, '/body/allocate'],
      [{ ...base, amount: '0' }, '/body/amount'],
      [{ ...base, amount: '1.001' }, '/body/amount'],
      [{ ...base, counterpartyId: randomUUID() }, '/body/counterpartyId'],
    ];
    for (const [body, path] of cases) {
      const res = await c.payments.post(body);
      expect({ path, status: res.status, paths: (res.body.errors ?? []).map((e: { path: string }) => e.path) }).toEqual({ path, status: 400, paths: expect.arrayContaining([path]) });
    }
  });

  test('"an invoice\'s outstanding never exceeds its gross", even after a payment is cancelled and another posted: released allocations give back exactly what they took', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '500.00', '2026-03-01');
    const outstanding = async () => (await c.invoices.get(invoice.id).expect(200)).body as { status: string; allocated: string; outstanding: string };
    const first = (await c.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: c.customer, amount: '300', allocations: [{ invoiceId: invoice.id, amount: '300' }] }).expect(201)).body;
    await c.payments.cancel(first.id, { requestId: randomUUID(), date: '2026-03-03', reason: 'bounced' }).expect(200);
    expect(await outstanding()).toMatchObject({ status: 'POSTED', allocated: '0.00', outstanding: '500.00' });
    const second = (await c.payments.post({ direction: 'IN', date: '2026-03-04', counterpartyId: c.customer, amount: '500', allocate: 'OLDEST_FIRST' }).expect(201)).body;
    expect(second.allocations.map((a: { amount: string }) => a.amount)).toEqual(['500.00']);
    expect(await outstanding()).toMatchObject({ status: 'PAID', allocated: '500.00', outstanding: '0.00' });
    await c.payments.cancel(second.id, { requestId: randomUUID(), date: '2026-03-05', reason: 'bounced' }).expect(200);
    expect(await outstanding()).toMatchObject({ status: 'POSTED', allocated: '0.00', outstanding: '500.00' });
    await c.payments.post({ direction: 'IN', date: '2026-03-06', counterpartyId: c.customer, amount: '200', allocations: [{ invoiceId: invoice.id, amount: '200' }] }).expect(201);
    expect(await outstanding()).toMatchObject({ status: 'POSTED', allocated: '200.00', outstanding: '300.00' });
    expect((await c.payments.post({ direction: 'IN', date: '2026-03-07', counterpartyId: c.customer, amount: '300.01', allocations: [{ invoiceId: invoice.id, amount: '300.01' }] }).expect(409)).body).toMatchObject({
      type: '/problems/allocation-exceeds-outstanding',
      outstanding: '300.00',
    });
    // The aging on each day shows the invoice at most at its gross: never the 300 and the 500 given back twice.
    const expected: Record<string, string> = { '2026-03-02': '200.00', '2026-03-03': '500.00', '2026-03-04': '0.00', '2026-03-05': '500.00', '2026-03-06': '300.00', '2026-03-07': '300.00' };
    for (const [asOf, want] of Object.entries(expected)) {
      const totals = (await agingOf(stack, c.who, asOf, 'RECEIVABLE').expect(200)).body.totals as Array<{ outstanding: string }>;
      expect({ asOf, outstanding: totals[0]?.outstanding ?? '0.00', ledger: (await balances(c, asOf, ['4010']))['4010'] }).toEqual({ asOf, outstanding: want, ledger: want });
    }
  });

  test('"an overpayment is an advance, not a negative invoice": oldest first or as given, in or out, the invoice stops at 0 and the rest is an advance in the aging and on 6310 or 4310', async () => {
    const c = await aCompany();
    const sale = await postedSale(c, '250.00', '2026-03-01');
    const received = (await c.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: c.customer, amount: '400', allocate: 'OLDEST_FIRST' }).expect(201)).body;
    expect(received).toMatchObject({ allocated: '250.00', unallocated: '150.00' });
    const purchase = (await c.invoices.post((await c.invoices.create(purchaseBody(c.supplier, '2026-03-01', 'S-9', { lines: [{ description: 'Steel', quantity: '1', unitPrice: '80', account: '1010', vatRate: null }] })).expect(201)).body.id).expect(200)).body;
    const paid = (await c.payments.post({ direction: 'OUT', date: '2026-03-02', counterpartyId: c.supplier, amount: '100', allocations: [{ invoiceId: purchase.id, amount: '80' }] }).expect(201)).body;
    expect(paid).toMatchObject({ allocated: '80.00', unallocated: '20.00' });
    for (const id of [sale.id, purchase.id]) expect((await c.invoices.get(id).expect(200)).body).toMatchObject({ status: 'PAID', outstanding: '0.00' });
    const receivable = (await agingOf(stack, c.who, '2026-03-02', 'RECEIVABLE').expect(200)).body;
    expect(receivable.items).toEqual([expect.objectContaining({ counterpartyId: c.customer, notDue: '0.00', outstanding: '0.00', advances: '150.00' })]);
    const payable = (await agingOf(stack, c.who, '2026-03-02', 'PAYABLE').expect(200)).body;
    expect(payable.items).toEqual([expect.objectContaining({ counterpartyId: c.supplier, notDue: '0.00', outstanding: '0.00', advances: '20.00' })]);
    expect(await balances(c, '2026-03-02', ['4010', '6310', '6010', '4310'])).toEqual({ '4010': '0.00', '6310': '150.00', '6010': '0.00', '4310': '20.00' });
  });

  test("a payment naming another company's invoice, or another company's counterparty, is 400 and posts nothing; another company's payment is 404 to get, allocate or cancel", async () => {
    const c = await aCompany();
    const other = await aCompany();
    const theirs = (await other.invoices.post((await other.invoices.create({ ...salesBody(other.customer, '2026-03-01'), lines: [{ description: 'x', quantity: '1', unitPrice: '100', vatRate: null }] }).expect(201)).body.id).expect(200)).body;
    const theirPayment = (await other.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: other.customer, amount: '50' }).expect(201)).body;
    const advance = (await c.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: c.customer, amount: '100' }).expect(201)).body;
    const before = [await entryCount(c.who), await entryCount(other.who)];
    const named = await c.payments.post({ direction: 'IN', date: '2026-03-03', counterpartyId: c.customer, amount: '100', allocations: [{ invoiceId: theirs.id, amount: '100' }] }).expect(400);
    expect(named.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/allocations/0/invoiceId', message: expect.stringContaining('no invoice') }] });
    expect((await c.payments.allocate(advance.id, { date: '2026-03-03', allocations: [{ invoiceId: theirs.id, amount: '100' }] }).expect(400)).body.errors[0].path).toBe('/body/allocations/0/invoiceId');
    expect((await c.payments.post({ direction: 'IN', date: '2026-03-03', counterpartyId: other.customer, amount: '100' }).expect(400)).body).toMatchObject({
      type: '/problems/unknown-counterparty',
      errors: [expect.objectContaining({ path: '/body/counterpartyId' })],
    });
    await c.payments.get(theirPayment.id).expect(404);
    await c.payments.allocate(theirPayment.id, { date: '2026-03-03', allocate: 'OLDEST_FIRST' }).expect(404);
    await c.payments.cancel(theirPayment.id, { requestId: randomUUID(), date: '2026-03-03', reason: 'not ours' }).expect(404);
    expect([await entryCount(c.who), await entryCount(other.who)]).toEqual(before);
    expect((await other.invoices.get(theirs.id).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '100.00' });
    expect((await other.payments.get(theirPayment.id).expect(200)).body).toMatchObject({ status: 'POSTED', unallocated: '50.00' });
  });

  test('money out to a supplier: Dr 6010 the allocated part, Dr 4310 the advance, Cr the cash account', async () => {
    const c = await aCompany();
    const purchase = (await c.invoices.post((await c.invoices.create(purchaseBody(c.supplier, '2026-03-01', 'S-77', { lines: [{ description: 'Steel', quantity: '1', unitPrice: '800', account: '1010', vatRate: null }] })).expect(201)).body.id).expect(200)).body;
    const res = await c.payments.post({ direction: 'OUT', date: '2026-03-04', counterpartyId: c.supplier, amount: '1000', cashAccount: '5010', allocate: 'OLDEST_FIRST' }).expect(201);
    const entry = (await c.ledger.get(res.body.entryId).expect(200)).body;
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.counterpartyId])).toEqual([
      ['6010', '800.00', '0.00', c.supplier],
      ['4310', '200.00', '0.00', c.supplier],
      ['5010', '0.00', '1000.00', null],
    ]);
    expect((await c.invoices.get(purchase.id).expect(200)).body.status).toBe('PAID');
  });

  test('ten concurrent payments of 100 against one invoice of 500 leave it exactly settled: five are posted, five are 409, nothing over-allocated', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '500.00');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => c.payments.post({ direction: 'IN', date: '2026-03-06', counterpartyId: c.customer, amount: '100', allocations: [{ invoiceId: invoice.id, amount: '100' }] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 409, 409, 409, 409, 409]);
    expect((await c.invoices.get(invoice.id).expect(200)).body).toMatchObject({ status: 'PAID', allocated: '500.00', outstanding: '0.00' });
    expect(await balances(c, '2026-03-31', ['4010', '5110'])).toEqual({ '4010': '0.00', '5110': '500.00' });
  });
});

describe('allocatePayment and cancelPayment', () => {
  test('an advance received is later allocated: Dr 6310 / Cr 4010 on the allocation date; concurrent allocations never over-allocate', async () => {
    const c = await aCompany();
    const advance = (await c.payments.post({ direction: 'IN', date: '2026-03-01', counterpartyId: c.customer, amount: '1000' }).expect(201)).body;
    expect(advance).toMatchObject({ allocated: '0.00', unallocated: '1000.00' });
    const invoice = await postedSale(c, '300.00', '2026-03-02');
    const results = await Promise.all(Array.from({ length: 10 }, () => c.payments.allocate(advance.id, { date: '2026-03-03', allocations: [{ invoiceId: invoice.id, amount: '100' }] })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 409, 409, 409, 409, 409, 409, 409]);
    const after = (await c.payments.get(advance.id).expect(200)).body;
    expect(after).toMatchObject({ allocated: '300.00', unallocated: '700.00' });
    const reclass = (await c.ledger.get(after.allocations[0].entryId).expect(200)).body;
    expect(reclass.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.counterpartyId])).toEqual([
      ['6310', '100.00', '0.00', c.customer],
      ['4010', '0.00', '100.00', c.customer],
    ]);
    expect(await balances(c, '2026-03-31', ['4010', '6310', '5110'])).toEqual({ '4010': '0.00', '6310': '700.00', '5110': '1000.00' });
    expect((await c.payments.allocate(advance.id, { date: '2026-02-28', allocate: 'OLDEST_FIRST' }).expect(400)).body.errors[0].path).toBe('/body/date');
  });

  test('ten advances of one customer allocated at once to ONE invoice leave it exactly settled, never over-allocated: as given five are allocated and five 409; oldest first five take 100 and five find nothing open', async () => {
    const c = await aCompany();
    const advances = [];
    for (let i = 0; i < 20; i++) advances.push((await c.payments.post({ direction: 'IN', date: '2026-03-01', counterpartyId: c.customer, amount: '100' }).expect(201)).body.id as string);
    const named = await postedSale(c, '500.00', '2026-03-02');
    const results = await Promise.all(advances.slice(0, 10).map((id) => c.payments.allocate(id, { date: '2026-03-03', allocations: [{ invoiceId: named.id, amount: '100' }] })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.type).toBe('/problems/allocation-exceeds-outstanding');
    expect((await c.invoices.get(named.id).expect(200)).body).toMatchObject({ status: 'PAID', allocated: '500.00', outstanding: '0.00' });
    const oldest = await postedSale(c, '500.00', '2026-03-04');
    const found = await Promise.all(advances.slice(10).map((id) => c.payments.allocate(id, { date: '2026-03-05', allocate: 'OLDEST_FIRST' }).expect(200)));
    expect(found.map((r) => r.body.allocations.map((a: { invoiceId: string; amount: string }) => [a.invoiceId, a.amount])).sort((a, b) => b.length - a.length)).toEqual([
      ...Array.from({ length: 5 }, () => [[oldest.id, '100.00']]),
      ...Array.from({ length: 5 }, () => []),
    ]);
    expect((await c.invoices.get(oldest.id).expect(200)).body).toMatchObject({ status: 'PAID', allocated: '500.00', outstanding: '0.00' });
    const payments = (await c.payments.list({ size: 100 }).expect(200)).body.items as Array<{ allocated: string }>;
    expect(payments.map((p) => p.allocated).sort()).toEqual([...Array.from({ length: 10 }, () => '0.00'), ...Array.from({ length: 10 }, () => '100.00')]);
    // Ten reclassifications of 100 (Dr 6310 / Cr 4010), the 1 000 of invoices settled, the other 1 000 still advances.
    expect(await balances(c, '2026-03-31', ['4010', '6310', '5110'])).toEqual({ '4010': '0.00', '6310': '1000.00', '5110': '2000.00' });
    const aging = (await agingOf(stack, c.who, '2026-03-31', 'RECEIVABLE').expect(200)).body;
    expect(aging.totals).toEqual([expect.objectContaining({ outstanding: '0.00', advances: '1000.00' })]);
  });

  test('cancelling a payment reverses all its entries in one, frees its allocations (the invoice is open again and may then be cancelled), and is idempotent per requestId', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '700.00', '2026-03-01');
    const payment = (await c.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: c.customer, amount: '500', allocations: [{ invoiceId: invoice.id, amount: '200' }] }).expect(201)).body;
    await c.payments.allocate(payment.id, { date: '2026-03-03', allocate: 'OLDEST_FIRST' }).expect(200);
    expect((await c.invoices.get(invoice.id).expect(200)).body.outstanding).toBe('200.00');
    expect((await c.invoices.cancel(invoice.id, { requestId: randomUUID(), date: '2026-03-04', reason: 'x' }).expect(409)).body.type).toBe('/problems/document-has-allocations');
    const request = { requestId: randomUUID(), date: '2026-03-05', reason: 'bounced' };
    const cancelled = (await c.payments.cancel(payment.id, request).expect(200)).body;
    expect(cancelled).toMatchObject({ status: 'CANCELLED', allocated: '0.00', unallocated: '0.00', cancellation: { date: '2026-03-05', reason: 'bounced' } });
    expect(cancelled.allocations.map((a: { releasedDate: string }) => a.releasedDate)).toEqual(['2026-03-05', '2026-03-05']);
    const reversal = (await c.ledger.get(cancelled.cancellation.entryId).expect(200)).body;
    expect(reversal).toMatchObject({ reversalOf: payment.entryId, source: { type: 'PAYMENT', id: payment.id }, totalDebit: '800.00' });
    expect((await c.invoices.get(invoice.id).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '700.00' });
    expect(await balances(c, '2026-03-31', ['4010', '6310', '5110'])).toEqual({ '4010': '700.00', '6310': '0.00', '5110': '0.00' });
    expect((await c.payments.cancel(payment.id, request).expect(200)).body).toEqual(cancelled);
    expect((await c.payments.cancel(payment.id, { ...request, requestId: randomUUID() }).expect(409)).body.type).toBe('/problems/document-state');
    expect((await c.payments.allocate(payment.id, { date: '2026-03-06', allocate: 'OLDEST_FIRST' }).expect(409)).body.type).toBe('/problems/document-state');
    await c.invoices.cancel(invoice.id, { requestId: randomUUID(), date: '2026-03-06', reason: 'returned' }).expect(200);
    expect(await balances(c, '2026-03-31', ['4010'])).toEqual({ '4010': '0.00' });
  });

  test('a payment in EUR converts each line at the CBU rate of its date; the rounding between them goes to exchange differences', async () => {
    const c = await aCompany();
    await storeCbuRate(stack, 'EUR', '2026-09-01', '13333.335');
    const draft = (await c.invoices.create({ ...salesBody(c.customer, '2026-09-01'), currency: 'EUR', lines: [{ description: 'A', quantity: '1', unitPrice: '0.03', vatRate: null }] }).expect(201)).body;
    const invoice = (await c.invoices.post(draft.id).expect(200)).body;
    const res = await c.payments.post({ direction: 'IN', date: '2026-09-02', counterpartyId: c.customer, amount: '0.04', currency: 'EUR', cashAccount: '5210', allocations: [{ invoiceId: invoice.id, amount: '0.03' }] }).expect(201);
    const entry = (await c.ledger.get(res.body.entryId).expect(200)).body;
    // 0.04 × 13333.335 = 533.33; 0.03 → 400.00; 0.01 → 133.33: 533.33 − 533.33 = 0, no rounding line here.
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.currencyAmount])).toEqual([
      ['5210', '533.33', '0.00', '0.04'],
      ['4010', '0.00', '400.00', '0.03'],
      ['6310', '0.00', '133.33', '0.01'],
    ]);
    // 0.02 EUR at 13500.5 = 270.01, but its halves are 135.005 → 135.01 each, 270.02 together: the 0.01 between
    // the sides is an exchange difference (Dr 9620), and the entry balances.
    await storeCbuRate(stack, 'EUR', '2026-09-04', '13500.5');
    const small = (await c.invoices.post((await c.invoices.create({ ...salesBody(c.customer, '2026-09-04'), currency: 'EUR', lines: [{ description: 'B', quantity: '1', unitPrice: '0.01', vatRate: null }] }).expect(201)).body.id).expect(200)).body;
    const split = await c.payments.post({ direction: 'IN', date: '2026-09-04', counterpartyId: c.customer, amount: '0.02', currency: 'EUR', cashAccount: '5210', allocations: [{ invoiceId: small.id, amount: '0.01' }] }).expect(201);
    const e = (await c.ledger.get(split.body.entryId).expect(200)).body;
    expect(e.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.currencyAmount])).toEqual([
      ['5210', '270.01', '0.00', '0.02'],
      ['4010', '0.00', '135.01', '0.01'],
      ['6310', '0.00', '135.01', '0.01'],
      ['9620', '0.01', '0.00', null],
    ]);
    expect(e.totalDebit).toBe('270.02');
  });
});

/** The aging's totals against the balances of 4010, 6310, 6010 and 4310 on a date. */
async function agingTies(c: Awaited<ReturnType<typeof aCompany>>, asOf: string) {
  const total = async (side: 'RECEIVABLE' | 'PAYABLE') => {
    const totals = (await agingOf(stack, c.who, asOf, side).expect(200)).body.totals as Array<{ outstanding: string; advances: string }>;
    return [totals[0]?.outstanding ?? '0.00', totals[0]?.advances ?? '0.00'];
  };
  const [[r, ra], [p, pa]] = [await total('RECEIVABLE'), await total('PAYABLE')];
  const b = await balances(c, asOf, ['4010', '6310', '6010', '4310']);
  return { asOf, aging: { '4010': r, '6310': ra, '6010': p, '4310': pa }, ledger: b };
}

describe('dates of documents against each other (an entry keyed in late never makes the aging and the ledger disagree)', () => {
  test('a payment is never cancelled before one of its allocations: 400 naming the date and nothing posted; on or after it, it is', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '300.00', '2026-03-01');
    const advance = (await c.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: c.customer, amount: '1000' }).expect(201)).body;
    await c.payments.allocate(advance.id, { date: '2026-03-10', allocations: [{ invoiceId: invoice.id, amount: '300' }] }).expect(200);
    const before = await entryCount(c.who);
    const early = await c.payments.cancel(advance.id, { requestId: randomUUID(), date: '2026-03-05', reason: 'bounced' }).expect(400);
    expect(early.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/date', message: expect.stringContaining('2026-03-10') }] });
    expect(await entryCount(c.who)).toBe(before);
    expect((await c.payments.get(advance.id).expect(200)).body).toMatchObject({ status: 'POSTED', allocated: '300.00' });
    await c.payments.cancel(advance.id, { requestId: randomUUID(), date: '2026-03-10', reason: 'bounced' }).expect(200);
    for (const asOf of ['2026-03-05', '2026-03-09', '2026-03-10', '2026-03-31']) {
      const tie = await agingTies(c, asOf);
      expect(tie.aging).toEqual(tie.ledger);
    }
  });

  test('an invoice is never cancelled before the release of a payment allocated to it: 400 naming the date; on or after the release, it is', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '500.00', '2026-03-01');
    const payment = (await c.payments.post({ direction: 'IN', date: '2026-03-02', counterpartyId: c.customer, amount: '500', allocations: [{ invoiceId: invoice.id, amount: '500' }] }).expect(201)).body;
    await c.payments.cancel(payment.id, { requestId: randomUUID(), date: '2026-03-20', reason: 'bounced' }).expect(200);
    const before = await entryCount(c.who);
    const early = await c.invoices.cancel(invoice.id, { requestId: randomUUID(), date: '2026-03-15', reason: 'returned' }).expect(400);
    expect(early.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/date', message: expect.stringContaining('2026-03-20') }] });
    expect(await entryCount(c.who)).toBe(before);
    expect((await c.invoices.get(invoice.id).expect(200)).body.status).toBe('POSTED');
    await c.invoices.cancel(invoice.id, { requestId: randomUUID(), date: '2026-03-20', reason: 'returned' }).expect(200);
    for (const asOf of ['2026-03-02', '2026-03-15', '2026-03-20']) {
      const tie = await agingTies(c, asOf);
      expect(tie.aging).toEqual(tie.ledger);
    }
  });

  test('an allocation is never dated before the release of another allocation of the same invoice (it was settled until then): 400 when named, passed over by OLDEST_FIRST', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '100.00', '2026-03-01');
    const first = (await c.payments.post({ direction: 'IN', date: '2026-03-05', counterpartyId: c.customer, amount: '100', allocations: [{ invoiceId: invoice.id, amount: '100' }] }).expect(201)).body;
    await c.payments.cancel(first.id, { requestId: randomUUID(), date: '2026-03-20', reason: 'bounced' }).expect(200);
    const before = await entryCount(c.who);
    const named = await c.payments.post({ direction: 'IN', date: '2026-03-10', counterpartyId: c.customer, amount: '100', allocations: [{ invoiceId: invoice.id, amount: '100' }] }).expect(400);
    expect(named.body.errors).toEqual([{ path: '/body/allocations/0/invoiceId', message: expect.stringContaining('2026-03-20') }]);
    expect(await entryCount(c.who)).toBe(before);
    // Oldest first on 03-10 finds nothing open then: the whole payment is an advance.
    const second = (await c.payments.post({ direction: 'IN', date: '2026-03-10', counterpartyId: c.customer, amount: '100', allocate: 'OLDEST_FIRST' }).expect(201)).body;
    expect(second).toMatchObject({ allocated: '0.00', unallocated: '100.00', allocations: [] });
    expect((await c.payments.allocate(second.id, { date: '2026-03-15', allocations: [{ invoiceId: invoice.id, amount: '100' }] }).expect(400)).body.errors[0].path).toBe('/body/allocations/0/invoiceId');
    expect((await c.payments.allocate(second.id, { date: '2026-03-15', allocate: 'OLDEST_FIRST' }).expect(200)).body.allocations).toEqual([]);
    await c.payments.allocate(second.id, { date: '2026-03-20', allocate: 'OLDEST_FIRST' }).expect(200);
    expect((await c.invoices.get(invoice.id).expect(200)).body).toMatchObject({ status: 'PAID', outstanding: '0.00' });
    for (const asOf of ['2026-03-05', '2026-03-12', '2026-03-20']) {
      const tie = await agingTies(c, asOf);
      expect(tie.aging).toEqual(tie.ledger);
      // Never more than the invoice's gross allocated on any date: the customer never shows a negative invoice.
      const items = (await agingOf(stack, c.who, asOf, 'RECEIVABLE').expect(200)).body.items as Array<{ outstanding: string }>;
      for (const item of items) expect({ asOf, outstanding: item.outstanding, negative: item.outstanding.startsWith('-') }).toEqual({ asOf, outstanding: item.outstanding, negative: false });
    }
  });
});
