import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import type { BankAccountRow } from '../../db/repositories/bank-accounts/bank-accounts';
import type { CompanyScope } from '../../db/repositories/organisation/companies';
import { markLineMatched, type BankLineRow } from '../../db/repositories/bank-statements/statements';
import type { RecordedStart } from '../../db/repositories/webhooks/events';
import { moneyToAccountLines } from '../../core/payments/payments';
import { prepareEntry, systemRequestId, type PreparedEntry } from '../../core/ledger/journal';
import { AppError } from '../../core/shared/problems';
import { recordCallerEvent, type Actor, type Origin } from '../audit/caller-events';
import { documentRate, readPostingContext, writeEntry } from '../ledger/posting';
import { postPaymentIn, type EventRecorder } from '../payments/payments';

// A bank line's match inside the caller's transaction: matchBankLine (a person confirms) and the statement
// import (a matching rule with autoConfirm confirms its own proposal, on behalf of the person who imported).

export const BANK_LINE_SUBJECT = 'BANK_LINE';

/** What a match settles: invoices of a counterparty (or an advance of it), or an account the line is posted to. */
export type LineMatch = { kind: 'payment'; counterpartyId: string; allocations: Array<{ invoiceId: string; amount: string }> } | { kind: 'account'; accountCode: string };

/** The match a line's proposal stands for. */
export function proposalMatch(proposal: NonNullable<BankLineRow['proposal']>): LineMatch {
  if (proposal.type === 'POST_TO_ACCOUNT') return { kind: 'account', accountCode: proposal.accountCode };
  return { kind: 'payment', counterpartyId: proposal.counterpartyId, allocations: proposal.allocations.map((a) => ({ invoiceId: a.invoiceId, amount: a.amount })) };
}

/** Writes an entry of the line itself (source BANK_LINE): its posting to an account, or that posting's reversal. */
export async function writeLineEntry(tx: Tx, actor: Actor, scope: CompanyScope, origin: Origin, line: BankLineRow, prepared: PreparedEntry, key: string, details: string): Promise<string> {
  const requestId = systemRequestId(key);
  const id = randomUUID();
  const written = await writeEntry(tx, actor, scope, origin, await readPostingContext(tx, scope, requestId, prepared), {
    id,
    requestId,
    prepared,
    source: { type: 'BANK_LINE', id: line.id },
    audit: { action: 'ledger.entry.posted', subjectType: 'JOURNAL_ENTRY', subjectId: id, details: `bank line of ${line.date} ${details}` },
    event: null,
  }).catch((err: unknown) => {
    // The entry's accounts are the body's (or the rule's): the problem names the field.
    if (err instanceof AppError && (err.type === 'unknown-account' || err.type === 'header-account')) {
      throw new AppError(err.type, err.message, { errors: [{ path: '/body/accountCode', message: err.message }] });
    }
    throw err;
  });
  if (written.replayed) throw new AppError('conflict', 'This line was already posted by another request');
  return id;
}

/** Posts the line to an account: one entry of its own (source BANK_LINE) against the bank account's GL account. */
async function postToAccount(tx: Tx, actor: Actor, scope: CompanyScope, origin: Origin, line: BankLineRow, account: BankAccountRow, accountCode: string): Promise<string> {
  if (accountCode === account.accountCode) {
    throw new AppError('validation', "A line is posted to another account than the bank's own", { errors: [{ path: '/body/accountCode', message: `is the bank account's GL account ${account.accountCode}` }] });
  }
  const rate = await documentRate(tx, account.currency, line.date);
  const lines = moneyToAccountLines(line.direction, account.accountCode, accountCode, account.currency, line.amount, rate);
  const prepared = prepareEntry({
    entryDate: line.date,
    description: `Bank ${line.direction === 'IN' ? 'receipt' : 'payment'}${line.purpose.trim() ? `: ${line.purpose.trim()}` : ''}`.slice(0, 500),
    reference: null,
    lines: lines.map((l) => ({
      accountCode: l.accountCode,
      debit: l.debit,
      credit: l.credit,
      ...(l.currency ? { currency: l.currency, currencyAmount: l.currencyAmount!, rate: l.rate!, rateSource: l.rateSource! } : {}),
    })),
  });
  return writeLineEntry(tx, actor, scope, origin, line, prepared, `bank-line-entry:${scope.tenantId}:${line.id}:${line.version}`, `posted to ${accountCode}`);
}

/**
 * Matches a line held FOR UPDATE by the caller: posts the payment (its bankLineId set) or the line's own entry,
 * marks the line MATCHED and records the audit event, all in `tx`. `by` says who confirmed, for the audit trail.
 */
export async function matchLineIn(
  tx: Tx,
  actor: Actor,
  scope: CompanyScope,
  origin: Origin,
  events: EventRecorder,
  target: { line: BankLineRow; account: BankAccountRow; match: LineMatch; by?: string },
): Promise<{ starts: RecordedStart[] }> {
  const { line, account, match } = target;
  let starts: RecordedStart[] = [];
  let settled: string;
  if (match.kind === 'account') {
    const entryId = await postToAccount(tx, actor, scope, origin, line, account, match.accountCode);
    await markLineMatched(tx, scope, line.id, { paymentId: null, entryId, by: actor.membershipId });
    settled = `entry ${entryId} to ${match.accountCode}`;
  } else {
    const posted = await postPaymentIn(
      tx,
      actor,
      scope,
      origin,
      events,
      {
        // One payment per match of the line: a line unmatched and matched again posts a new one.
        requestId: systemRequestId(`bank-line:${scope.tenantId}:${line.id}:${line.version}`),
        direction: line.direction,
        date: line.date,
        counterpartyId: match.counterpartyId,
        currency: account.currency,
        amount: line.amount,
        cashAccount: account.accountCode,
        ...(line.purpose.trim() ? { description: line.purpose.trim().slice(0, 500) } : {}),
        allocations: match.allocations,
      },
      { bankLineId: line.id },
    );
    starts = posted.starts;
    await markLineMatched(tx, scope, line.id, { paymentId: posted.result.id, entryId: null, by: actor.membershipId });
    settled = `payment ${posted.result.id}, ${match.allocations.length} allocations`;
  }
  await recordCallerEvent(tx, actor, origin, {
    action: 'bank-line.matched',
    subjectType: BANK_LINE_SUBJECT,
    subjectId: line.id,
    details: `${line.direction} ${line.amount} ${account.currency} of ${line.date}: ${settled}${target.by ? `, ${target.by}` : ''}`.slice(0, 500),
  });
  return { starts };
}
