import type { components } from '../../contracts/openapi';

// The reconciliation statement (act of mutual settlements) with one counterparty: what each of its lines is
// called, and how the statement reads from the counterparty's side. The amounts come from the ledger (the
// lines naming the counterparty on settlement accounts, grouped per entry and currency); these rules only name
// and orient them.

export type ReconciliationView = components['schemas']['ReconciliationStatement']['view'];
export type ReconciliationLineKind = components['schemas']['ReconciliationLine']['kind'];

/** What the ledger says about the entry behind a statement line: its own fields and the document that posted it. */
export interface EntryFacts {
  entryNumber: number;
  /** The entry's description (a manual entry's own words). */
  description: string;
  invoice: { kind: 'SALES' | 'PURCHASE'; number: string; cancellation: boolean } | null;
  payment: { direction: 'IN' | 'OUT'; date: string; role: 'PAYMENT' | 'CANCELLATION' | 'ALLOCATION'; invoiceNumbers: string[] } | null;
}

const invoiceName = (kind: 'SALES' | 'PURCHASE') => (kind === 'SALES' ? 'sales invoice' : 'purchase invoice');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The invoices a payment settled: "sales invoice 2026-000001" or "sales invoices A, B". */
function invoiceList(kind: 'SALES' | 'PURCHASE', numbers: string[]): string {
  if (numbers.length === 0) return `${invoiceName(kind)}s`;
  return `${invoiceName(kind)}${numbers.length > 1 ? 's' : ''} ${numbers.join(', ')}`;
}

/** The kind of a statement line and its human description ("Sales invoice 2026-000001", "Payment received", …). */
export function documentOf(facts: EntryFacts): { kind: ReconciliationLineKind; document: string } {
  const { invoice, payment } = facts;
  if (invoice) {
    if (invoice.cancellation) return { kind: 'INVOICE_CANCELLATION', document: `Cancellation of ${invoiceName(invoice.kind)} ${invoice.number}` };
    return { kind: invoice.kind === 'SALES' ? 'SALES_INVOICE' : 'PURCHASE_INVOICE', document: `${capitalised(invoiceName(invoice.kind))} ${invoice.number}` };
  }
  if (payment) {
    const what = payment.direction === 'IN' ? 'payment received' : 'payment made';
    switch (payment.role) {
      case 'PAYMENT': {
        const settled = payment.invoiceNumbers.length > 0 ? ` for ${invoiceList(payment.direction === 'IN' ? 'SALES' : 'PURCHASE', payment.invoiceNumbers)}` : '';
        return { kind: payment.direction === 'IN' ? 'PAYMENT_RECEIVED' : 'PAYMENT_MADE', document: `${capitalised(what)}${settled}` };
      }
      case 'CANCELLATION':
        return { kind: 'PAYMENT_CANCELLATION', document: `Cancellation of the ${what} on ${payment.date}` };
      case 'ALLOCATION': {
        const advance = payment.direction === 'IN' ? 'Advance received' : 'Advance paid';
        return { kind: 'ADVANCE_ALLOCATION', document: `${advance} on ${payment.date} allocated to ${invoiceList(payment.direction === 'IN' ? 'SALES' : 'PURCHASE', payment.invoiceNumbers)}` };
      }
    }
  }
  return { kind: 'JOURNAL_ENTRY', document: `Journal entry #${facts.entryNumber}: ${facts.description}` };
}

/** Amounts of a line or of the statement as the company's books have them: debit is what increases what the counterparty owes. */
export interface Sides<T> {
  debit: T;
  credit: T;
}

/**
 * The sides as `view` reads them. The company's view is the books as they are; the counterparty's view is the
 * same statement as the counterparty would keep it: each debit is its credit and each credit its debit, and a
 * balance (positive: the counterparty owes the company) changes sign (positive: the company owes the
 * counterparty).
 */
export function sidesIn<T>(view: ReconciliationView, sides: Sides<T>): Sides<T> {
  return view === 'COMPANY' ? sides : { debit: sides.credit, credit: sides.debit };
}

/** A balance (debit minus credit in the company's books) as `view` reads it. */
export function balanceIn(view: ReconciliationView, debitMinusCredit: bigint): bigint {
  return view === 'COMPANY' ? debitMinusCredit : -debitMinusCredit;
}
