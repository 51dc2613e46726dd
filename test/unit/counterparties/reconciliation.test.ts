import fc from 'fast-check';
import { balanceIn, documentOf, sidesIn, type EntryFacts } from '../../../core/counterparties/reconciliation';

const facts = (extra: Partial<EntryFacts>): EntryFacts => ({ entryNumber: 17, description: 'Penalty', invoice: null, payment: null, ...extra });
const payment = (role: 'PAYMENT' | 'CANCELLATION' | 'ALLOCATION', direction: 'IN' | 'OUT', invoiceNumbers: string[] = []) =>
  facts({ payment: { direction, date: '2027-04-08', role, invoiceNumbers } });

describe('documentOf: what a reconciliation statement line is called', () => {
  test.each([
    ['SALES_INVOICE', 'Sales invoice 2027-000001', facts({ invoice: { kind: 'SALES', number: '2027-000001', cancellation: false } })],
    ['PURCHASE_INVOICE', 'Purchase invoice P-77', facts({ invoice: { kind: 'PURCHASE', number: 'P-77', cancellation: false } })],
    ['INVOICE_CANCELLATION', 'Cancellation of sales invoice 2027-000001', facts({ invoice: { kind: 'SALES', number: '2027-000001', cancellation: true } })],
    ['INVOICE_CANCELLATION', 'Cancellation of purchase invoice P-77', facts({ invoice: { kind: 'PURCHASE', number: 'P-77', cancellation: true } })],
    ['PAYMENT_RECEIVED', 'Payment received', payment('PAYMENT', 'IN')],
    ['PAYMENT_RECEIVED', 'Payment received for sales invoices 2027-000001, 2027-000002', payment('PAYMENT', 'IN', ['2027-000001', '2027-000002'])],
    ['PAYMENT_MADE', 'Payment made for purchase invoice P-77', payment('PAYMENT', 'OUT', ['P-77'])],
    ['PAYMENT_CANCELLATION', 'Cancellation of the payment received on 2027-04-08', payment('CANCELLATION', 'IN')],
    ['PAYMENT_CANCELLATION', 'Cancellation of the payment made on 2027-04-08', payment('CANCELLATION', 'OUT')],
    ['ADVANCE_ALLOCATION', 'Advance received on 2027-04-08 allocated to sales invoice 2027-000003', payment('ALLOCATION', 'IN', ['2027-000003'])],
    ['ADVANCE_ALLOCATION', 'Advance paid on 2027-04-08 allocated to purchase invoices A, B', payment('ALLOCATION', 'OUT', ['A', 'B'])],
    ['JOURNAL_ENTRY', 'Journal entry #17: Penalty', facts({})],
  ])('%s: "%s"', (kind, document, entry) => {
    expect(documentOf(entry)).toEqual({ kind, document });
  });
});

describe("the counterparty's view", () => {
  test('the company view is the books as they are; the counterparty view exchanges the sides and negates the balance', () => {
    expect(sidesIn('COMPANY', { debit: '10.00', credit: '3.00' })).toEqual({ debit: '10.00', credit: '3.00' });
    expect(sidesIn('COUNTERPARTY', { debit: '10.00', credit: '3.00' })).toEqual({ debit: '3.00', credit: '10.00' });
    expect([balanceIn('COMPANY', 7n), balanceIn('COUNTERPARTY', 7n)]).toEqual([7n, -7n]);
  });

  test('in either view, opening + debit − credit = closing, and reading a view twice gives the books back', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.bigInt({ min: 0n }), fc.bigInt({ min: 0n }), fc.constantFrom('COMPANY' as const, 'COUNTERPARTY' as const), (opening, debit, credit, view) => {
        const sides = sidesIn(view, { debit, credit });
        expect(balanceIn(view, opening) + sides.debit - sides.credit).toBe(balanceIn(view, opening + debit - credit));
        expect(balanceIn(view, balanceIn(view, opening))).toBe(opening);
      }),
    );
  });
});
