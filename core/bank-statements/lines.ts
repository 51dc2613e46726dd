import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import type { ParsedLine, StatementHead } from './statements';

// The rules of an imported statement's lines: the key a line is stored under once per bank account, and the
// default proposal of an invoice for a line. Pure: the import activity and the API apply them.

/**
 * The lines of one statement as they are read, one at a time: each line's de-duplication key, and what the
 * statement's lines add up to and the days they span. A key is the line's content (date, direction, amount,
 * counterparty account, purpose) and its occurrence among identical rows of the same statement. Two genuinely
 * identical rows of one statement are both kept, while the same row in an overlapping statement, or in the
 * same statement exported in another format, is the same line. The bank's own reference is kept with the line
 * but is not its key: the 1C exchange text carries none, and a statement imported as 1C text one day and as
 * camt.053 the next must not count its lines twice. A SHA-256 in hex, so a key is short whatever the purpose.
 * The occurrences are counted by the content's digest, so what is kept per line is a 44-character digest, not its purpose.
 */
export class StatementTally {
  private readonly seen = new Map<string, number>();
  private net = new Decimal(0);
  firstDate: string | null = null;
  lastDate: string | null = null;

  /** The line's key; the line counted. */
  add(line: ParsedLine): string {
    const content = JSON.stringify(['row', line.date, line.direction, new Decimal(line.amount).toFixed(2), line.counterpartyAccount ?? '', line.purpose]);
    const digest = createHash('sha256').update(content, 'utf8').digest('base64');
    const occurrence = (this.seen.get(digest) ?? 0) + 1;
    this.seen.set(digest, occurrence);
    this.net = line.direction === 'IN' ? this.net.plus(line.amount) : this.net.minus(line.amount);
    this.firstDate ??= line.date;
    this.lastDate = line.date;
    return sha256(JSON.stringify([content, occurrence]));
  }

  /** Opening balance + Σ IN − Σ OUT − closing balance of the lines counted: "0.00" when the statement adds up. */
  difference(head: Pick<StatementHead, 'openingBalance' | 'closingBalance'>): string {
    const difference = new Decimal(head.openingBalance).plus(this.net).minus(head.closingBalance);
    return difference.isZero() ? '0.00' : difference.toFixed(2);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The statements of one file as one: the earliest opening, the latest closing, every line in file order. */
export interface StatementSummary {
  periodFrom: string | null;
  periodTo: string | null;
  openingBalance: string;
  closingBalance: string;
}

/** The summary of a file's statements, each with the tally of its lines (the first and last line's days stand for a period the statement does not give). */
export function summaryOf(statements: Array<{ head: StatementHead; tally: Pick<StatementTally, 'firstDate' | 'lastDate'> }>): StatementSummary {
  const dated = (s: (typeof statements)[number]) => s.head.periodFrom ?? s.tally.firstDate ?? null;
  const ended = (s: (typeof statements)[number]) => s.head.periodTo ?? s.tally.lastDate ?? null;
  const ordered = [...statements].sort((a, b) => (dated(a) ?? '').localeCompare(dated(b) ?? ''));
  const first = ordered[0]!;
  const last = [...statements].sort((a, b) => (ended(a) ?? '').localeCompare(ended(b) ?? '')).at(-1)!;
  return { periodFrom: dated(first), periodTo: ended(last), openingBalance: first.head.openingBalance, closingBalance: last.head.closingBalance };
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
