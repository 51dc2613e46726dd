import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import type { ParsedLine, ParsedStatement } from './statements';

// The rules of an imported statement's lines: the key a line is stored under once per bank account, and the
// default proposal of an invoice for a line. Pure: the import activity and the API apply them.

/**
 * Each line's de-duplication key, in the statement's order: the line's content (date, direction, amount,
 * counterparty account, purpose) and its occurrence among identical rows of the same statement. Two genuinely
 * identical rows of one statement are both kept, while the same row in an overlapping statement, or in the
 * same statement exported in another format, is the same line. The bank's own reference is kept with the line
 * but is not its key: the 1C exchange text carries none, and a statement imported as 1C text one day and as
 * camt.053 the next must not count its lines twice. A SHA-256 in hex, so a key is short whatever the purpose.
 */
export function lineKeys(statement: Pick<ParsedStatement, 'lines'>): string[] {
  const seen = new Map<string, number>();
  return statement.lines.map((line) => {
    const content = JSON.stringify(['row', line.date, line.direction, new Decimal(line.amount).toFixed(2), line.counterpartyAccount ?? '', line.purpose]);
    const occurrence = (seen.get(content) ?? 0) + 1;
    seen.set(content, occurrence);
    return sha256(JSON.stringify([content, occurrence]));
  });
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The statements of one file as one: the earliest opening, the latest closing, every line in file order. */
export interface StatementSummary {
  periodFrom: string | null;
  periodTo: string | null;
  openingBalance: string;
  closingBalance: string;
}

export function summaryOf(statements: ParsedStatement[]): StatementSummary {
  const dated = (s: ParsedStatement) => s.periodFrom ?? s.lines[0]?.date ?? null;
  const ended = (s: ParsedStatement) => s.periodTo ?? s.lines.at(-1)?.date ?? null;
  const ordered = [...statements].sort((a, b) => (dated(a) ?? '').localeCompare(dated(b) ?? ''));
  const first = ordered[0]!;
  const last = [...statements].sort((a, b) => (ended(a) ?? '').localeCompare(ended(b) ?? '')).at(-1)!;
  return { periodFrom: dated(first), periodTo: ended(last), openingBalance: first.openingBalance, closingBalance: last.closingBalance };
}

/** An open invoice that may settle a line: of a counterparty whose TIN the line names, of the line's kind and currency. */
export interface CandidateInvoice {
  invoiceId: string;
  invoiceNumber: string | null;
  counterpartyId: string;
  outstanding: string;
}

export interface InvoiceProposal {
  type: 'SETTLE_INVOICES';
  counterpartyId: string;
  allocations: Array<{ invoiceId: string; invoiceNumber: string | null; amount: string }>;
  /** The matching rule that proposed it; absent for the default proposal. */
  ruleId?: string;
  /** Why it was proposed, for the person confirming it. */
  reason: string;
  /** The rule confirms it by itself during the import (cleared, with the reason why, when the import could not). */
  autoConfirm?: boolean;
}

/**
 * The default proposal (no rule): a line whose payer (money in) or payee (money out) TIN names a counterparty
 * with exactly one open invoice of the line's amount proposes that invoice. Two such invoices, or none, propose
 * nothing: guessing between equal invoices is how partial payments end up on the wrong one.
 */
export function defaultProposal(line: Pick<ParsedLine, 'amount' | 'counterpartyTin'>, candidates: CandidateInvoice[]): InvoiceProposal | null {
  if (!line.counterpartyTin) return null;
  const amount = new Decimal(line.amount);
  const exact = candidates.filter((c) => new Decimal(c.outstanding).equals(amount));
  if (exact.length !== 1) return null;
  const [invoice] = exact as [CandidateInvoice];
  return {
    type: 'SETTLE_INVOICES',
    counterpartyId: invoice.counterpartyId,
    allocations: [{ invoiceId: invoice.invoiceId, invoiceNumber: invoice.invoiceNumber, amount: amount.toFixed(2) }],
    reason: `TIN ${line.counterpartyTin} and the amount match the one open invoice${invoice.invoiceNumber ? ` ${invoice.invoiceNumber}` : ''}`,
  };
}
