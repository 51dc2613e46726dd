import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { createBankAccount } from '../../helpers/bank-accounts';
import { ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { paymentsApi } from '../../helpers/payments';
import { bankStatementsApi, waitForImport } from '../../helpers/bank-statements';
import { statement } from '../../unit/bank-statements/fixture';
import { renderOneC } from '../../unit/bank-statements/render';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const [received, paid] = [statement.lines[0]!, statement.lines[1]!];

/** A workspace with the statement's account, its customer (who pays 4,500,000) and its landlord (paid 1,200,000.50). */
async function aCompany() {
  const who = await registerWorkspace(stack);
  await saveTaxSettings(stack, who);
  const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
  const customer = await aCounterparty(stack, who, { name: 'Тошкент Савдо', tin: received.counterpartyTin });
  const landlord = await aCounterparty(stack, who, { name: 'Ўзбекистон Ижара', tin: paid.counterpartyTin });
  return {
    who,
    account,
    customer,
    landlord,
    statements: bankStatementsApi(stack, who, account.id),
    invoices: invoicesApi(stack, who),
    payments: paymentsApi(stack, who),
    ledger: ledgerApi(stack, who),
  };
}
type Company = Awaited<ReturnType<typeof aCompany>>;

async function sale(c: Company, gross: string, date = '2026-11-01') {
  const draft = (await c.invoices.create({ ...salesBody(c.customer, date), lines: [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }] }).expect(201)).body;
  return (await c.invoices.post(draft.id).expect(200)).body;
}

/** Imports the fixture statement; returns its lines by amount (the two fees are alike). */
async function importStatement(c: Company) {
  const res = await c.statements.import(renderOneC(statement)).expect(202);
  expect((await waitForImport(c.statements, res.body.id)).status).toBe('COMPLETED');
  const items = (await c.statements.lines().expect(200)).body.items as Array<Record<string, any>>;
  return { received: items.find((l) => l.amount === '4500000.00')!, paid: items.find((l) => l.amount === '1200000.50')!, fee: items.find((l) => l.amount === '5000.00')! };
}

const balances = async (c: Company, codes: string[]) => {
  const tb = (await c.ledger.trialBalance('2026-11-30').expect(200)).body as { lines: Array<{ code: string; balance: string }> };
  return Object.fromEntries(codes.map((code) => [code, tb.lines.find((l) => l.code === code)?.balance ?? '0.00']));
};

const paymentCount = async (who: Registered) =>
  (await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE tenant_id = :t', { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT }))[0]!.n;

describe('matchBankLine and unmatchBankLine', () => {
  test('when a proposal is accepted, then the payment of the line posts in the same commit: dated the line, on 5110, settling the invoice, which is PAID; unmatching cancels it and opens the invoice again', async () => {
    const c = await aCompany();
    const invoice = await sale(c, '4500000.00');
    const lines = await importStatement(c);
    expect(lines.received.status).toBe('PROPOSED');

    const matched = (await c.statements.match(lines.received.id, { acceptProposal: true }).expect(200)).body;
    expect(matched).toMatchObject({ id: lines.received.id, status: 'MATCHED', paymentId: expect.any(String), proposal: lines.received.proposal });
    const payment = (await c.payments.get(matched.paymentId).expect(200)).body;
    expect(payment).toMatchObject({ direction: 'IN', status: 'POSTED', date: '2026-11-03', counterpartyId: c.customer, amount: '4500000.00', allocated: '4500000.00', cashAccount: '5110', bankLineId: lines.received.id });
    expect(payment.allocations).toEqual([expect.objectContaining({ invoiceId: invoice.id, amount: '4500000.00', date: '2026-11-03' })]);
    expect((await c.invoices.get(invoice.id).expect(200)).body).toMatchObject({ status: 'PAID', outstanding: '0.00' });
    expect(await balances(c, ['4010', '5110'])).toEqual({ '4010': '0.00', '5110': '4500000.00' });
    expect((await c.statements.match(lines.received.id, { acceptProposal: true }).expect(409)).body.type).toBe('/problems/bank-line-matched');

    const unmatched = (await c.statements.unmatch(lines.received.id).expect(200)).body;
    expect(unmatched).toMatchObject({ status: 'PROPOSED', paymentId: null, matchedAt: null });
    expect((await c.payments.get(matched.paymentId).expect(200)).body).toMatchObject({ status: 'CANCELLED', cancellation: { date: '2026-11-03' } });
    expect((await c.invoices.get(invoice.id).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '4500000.00' });
    expect(await balances(c, ['4010', '5110'])).toEqual({ '4010': '4500000.00', '5110': '0.00' });
    expect((await c.statements.unmatch(lines.received.id).expect(409)).body.type).toBe('/problems/bank-line-not-matched');

    // Matched again: a new payment, the line's one live payment.
    const again = (await c.statements.match(lines.received.id, { acceptProposal: true }).expect(200)).body;
    expect(again.paymentId).not.toBe(matched.paymentId);
    expect(await paymentCount(c.who)).toBe(2);
    const actions = await stack.admin.query<{ action: string }>("SELECT action FROM audit_events WHERE tenant_id = :t AND action LIKE 'bank-line.%' ORDER BY occurred_at, id", {
      replacements: { t: c.who.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(actions.map((a) => a.action)).toEqual(['bank-line.matched', 'bank-line.unmatched', 'bank-line.matched']);
  });

  test('when the accountant names the invoices, then the line settles them; what they leave is an advance; and money out settles a purchase invoice', async () => {
    const c = await aCompany();
    const first = await sale(c, '3000000.00', '2026-10-01');
    const second = await sale(c, '1000000.00', '2026-10-15');
    const rent = (await c.invoices.create({ ...purchaseBody(c.landlord, '2026-11-01', 'R-11'), lines: [{ description: 'Rent', quantity: '1', unitPrice: '1200000.50', vatRate: null, account: '1010' }] }).expect(201)).body;
    await c.invoices.post(rent.id).expect(200);
    const lines = await importStatement(c);
    // Two open invoices, neither of the line's amount: nothing is proposed for money in; the rent is.
    expect(lines.received).toMatchObject({ status: 'UNMATCHED', proposal: null });
    expect(lines.paid).toMatchObject({ status: 'PROPOSED', proposal: { counterpartyId: c.landlord, allocations: [{ invoiceId: rent.id, amount: '1200000.50' }] } });

    const matched = (await c.statements.match(lines.received.id, { allocations: [{ invoiceId: first.id, amount: '3000000.00' }, { invoiceId: second.id, amount: '1000000.00' }] }).expect(200)).body;
    const payment = (await c.payments.get(matched.paymentId).expect(200)).body;
    expect(payment).toMatchObject({ counterpartyId: c.customer, amount: '4500000.00', allocated: '4000000.00', unallocated: '500000.00' });
    expect((await c.invoices.get(first.id).expect(200)).body.status).toBe('PAID');
    expect((await c.invoices.get(second.id).expect(200)).body.status).toBe('PAID');

    await c.statements.match(lines.paid.id, { acceptProposal: true }).expect(200);
    expect((await c.invoices.get(rent.id).expect(200)).body.status).toBe('PAID');
    expect(await balances(c, ['4010', '5110', '6010', '6310'])).toEqual({ '4010': '0.00', '5110': '3299999.50', '6010': '0.00', '6310': '500000.00' });
  });

  test('a line taken as an advance names its counterparty; bad matches are refused and change nothing', async () => {
    const c = await aCompany();
    const invoice = await sale(c, '100.00');
    const lines = await importStatement(c);
    const refuse = async (lineId: string, body: Record<string, unknown>, status: number, type: string) => {
      const res = await c.statements.match(lineId, body).expect(status);
      expect(res.body.type).toBe(`/problems/${type}`);
    };
    await refuse(lines.fee.id, { acceptProposal: true }, 409, 'bank-line-no-proposal');
    await refuse(lines.received.id, { acceptProposal: true, allocations: [] }, 400, 'validation');
    await refuse(lines.received.id, {}, 400, 'validation');
    await refuse(lines.received.id, { allocations: [] }, 400, 'validation');
    await refuse(lines.received.id, { allocations: [{ invoiceId: invoice.id, amount: '200.00' }] }, 409, 'allocation-exceeds-outstanding');
    await refuse(lines.paid.id, { allocations: [{ invoiceId: invoice.id, amount: '100.00' }] }, 400, 'validation');
    await refuse(lines.received.id, { acceptProposal: true, extra: 1 }, 400, 'validation');
    expect(await paymentCount(c.who)).toBe(0);
    expect((await c.statements.lines({ status: 'MATCHED' }).expect(200)).body.items).toEqual([]);

    const advance = (await c.statements.match(lines.received.id, { counterpartyId: c.customer, allocations: [] }).expect(200)).body;
    expect((await c.payments.get(advance.paymentId).expect(200)).body).toMatchObject({ allocated: '0.00', unallocated: '4500000.00' });
    expect(await balances(c, ['5110', '6310'])).toEqual({ '5110': '4500000.00', '6310': '4500000.00' });

    // Another company's line, or this company's line under another of its accounts: not there.
    const stranger = await aCompany();
    const theirs = await importStatement(stranger);
    await bankStatementsApi(stack, c.who, stranger.account.id).match(theirs.received.id, { acceptProposal: true }).expect(404);
    await c.statements.match(theirs.received.id, { acceptProposal: true }).expect(404);
    await bankStatementsApi(stack, c.who, stranger.account.id).unmatch(theirs.received.id).expect(404);
    expect(await paymentCount(stranger.who)).toBe(0);
  });

  test('when two people confirm one line at once, then one payment posts and the other is told the line is matched', async () => {
    const c = await aCompany();
    await sale(c, '4500000.00');
    const lines = await importStatement(c);
    const answers = await Promise.all([1, 2, 3].map(() => c.statements.match(lines.received.id, { acceptProposal: true })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(await paymentCount(c.who)).toBe(1);
  });
});
