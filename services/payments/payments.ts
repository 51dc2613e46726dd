import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { Tx } from '../../db/connection';
import type { CompanyScope } from '../../db/repositories/organisation/companies';
import {
  allocatedInvoiceIds,
  allocationsOf,
  findPayment,
  insertPayment,
  lockInvoices,
  markCancelled,
  openInvoiceIds,
  paymentEntryIds,
  recordAllocations,
  type AllocationRow,
  type LockedInvoice,
  type PaymentRow,
} from '../../db/repositories/payments/payments';
import type { RecordedStart, WebhookEvent } from '../../db/repositories/webhooks/events';
import type { components } from '../../contracts/openapi';
import { DEFAULT_DOCUMENT_ACCOUNTS, documentCurrency } from '../../core/invoices/invoices';
import { allocateOldestFirst, allocationUzs, checkAllocations, documentAmount, paymentEntryLines, type Allocation, type Direction } from '../../core/payments/payments';
import { prepareEntry, requestHash, systemRequestId, type PreparedEntry } from '../../core/ledger/journal';
import { currencyDecimals } from '../../core/ledger/currency';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits, toMinorUnits } from '../../core/ledger/money';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { Actor, Origin } from '../audit/caller-events';
import { documentRate, readPostingContext, writeEntry } from '../ledger/posting';
import { loadEntry } from '../ledger/journal-entries';

// A payment's posting and cancellation inside the caller's transaction: postPayment and cancelPayment (a
// request), matchBankLine and unmatchBankLine (a request, or a matching rule that confirms by itself).

type Payment = components['schemas']['Payment'];
type PaymentCreate = components['schemas']['PaymentCreate'];
type DocumentCancellation = components['schemas']['DocumentCancellation'];

/** How a change records its webhook events: in its transaction, started after commit (by the caller or the relay). */
export interface EventRecorder {
  record(tx: Tx, tenantId: string, event: WebhookEvent): Promise<RecordedStart[]>;
}

const SUBJECT = 'PAYMENT';
const accounts = DEFAULT_DOCUMENT_ACCOUNTS;

/** An amount in its currency's decimals. */
export const inCurrency = (value: Decimal.Value, currency: string) => new Decimal(value).toFixed(currencyDecimals(currency));

export function toPayment(row: PaymentRow, allocations: AllocationRow[]): Payment {
  return {
    id: row.id,
    direction: row.direction,
    status: row.status,
    date: row.payment_date,
    counterpartyId: row.counterparty_id,
    counterpartyName: row.counterparty_name,
    currency: row.currency,
    amount: inCurrency(row.amount, row.currency),
    allocated: inCurrency(row.allocated, row.currency),
    unallocated: inCurrency(row.status === 'CANCELLED' ? 0 : new Decimal(row.amount).minus(row.allocated), row.currency),
    cashAccount: row.money_account,
    description: row.description,
    rate: row.rate === null ? null : new Decimal(row.rate).toFixed(),
    rateDate: row.rate_date,
    amountUzs: new Decimal(row.amount_uzs).toFixed(2),
    requestId: row.request_id,
    entryId: row.entry_id,
    bankLineId: row.bank_line_id,
    allocations: allocations.map((a) => ({
      id: a.id,
      invoiceId: a.invoice_id,
      invoiceNumber: a.invoice_number,
      amount: inCurrency(a.amount, row.currency),
      date: a.allocation_date,
      entryId: a.entry_id,
      releasedDate: a.released_date,
    })),
    cancellation:
      row.cancellation_entry_id && row.cancellation_date && row.cancellation_reason
        ? { entryId: row.cancellation_entry_id, date: row.cancellation_date, reason: row.cancellation_reason }
        : null,
    version: Number(row.version),
    createdAt: row.created_at.toISOString(),
  };
}

/** The payment; another company's or tenant's is not there either (404). */
export async function requirePayment(tx: Tx, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<PaymentRow> {
  const row = await findPayment(tx, scope, { id }, options);
  if (!row) throw new AppError('not-found', 'No payment with this id in this company');
  return row;
}

export async function paymentOf(tx: Tx, scope: CompanyScope, id: string): Promise<Payment> {
  return toPayment(await requirePayment(tx, scope, id), await allocationsOf(tx, scope, [id]));
}

/** The invoice kind a payment's direction settles: money in settles sales, money out purchases. */
const kindFor = (direction: Direction) => (direction === 'IN' ? 'SALES' : 'PURCHASE');

/**
 * The allocations a request asks for, checked against the invoices they name, held FOR UPDATE: each is a
 * posted invoice of the payment's counterparty, kind and currency, dated on or before the allocation, with
 * enough outstanding; together at most what the payment has unallocated.
 */
export async function allocationsFor(
  tx: Tx,
  scope: CompanyScope,
  payment: { direction: Direction; counterpartyId: string; currency: string; available: Decimal; date: string },
  request: { allocations?: Allocation[]; allocate?: 'OLDEST_FIRST' },
): Promise<Allocation[]> {
  if (request.allocations && request.allocate) {
    throw new AppError('validation', 'Give allocations or allocate, not both', { errors: [{ path: '/body/allocate', message: 'cannot be combined with allocations' }] });
  }
  const kind = kindFor(payment.direction);
  if (request.allocate === 'OLDEST_FIRST') {
    const candidates = await openInvoiceIds(tx, scope, { counterpartyId: payment.counterpartyId, kind, currency: payment.currency, date: payment.date });
    // Locked, then read again: what another allocation left is what this one sees. An invoice whose allocation
    // was released after the date was settled on that date: it is not open then.
    const open = [...(await lockInvoices(tx, scope, candidates)).values()].filter(
      (i) => i.status === 'POSTED' && new Decimal(i.outstanding).greaterThan(0) && (i.lastRelease === null || i.lastRelease <= payment.date),
    );
    return allocateOldestFirst(open, payment.available, payment.currency);
  }
  const requested = request.allocations ?? [];
  if (requested.length === 0) return [];
  const locked = await lockInvoices(tx, scope, requested.map((a) => a.invoiceId));
  const errors = requested.flatMap((a, i) => {
    const path = `/body/allocations/${i}/invoiceId`;
    const invoice: LockedInvoice | undefined = locked.get(a.invoiceId);
    if (!invoice) return [{ path, message: 'no invoice with this id in this company' }];
    if (invoice.kind !== kind) return [{ path, message: `a payment ${payment.direction} settles ${kind} invoices` }];
    if (invoice.counterpartyId !== payment.counterpartyId) return [{ path, message: "the invoice is another counterparty's" }];
    if (invoice.status !== 'POSTED') return [{ path, message: `the invoice is ${invoice.status}` }];
    if (invoice.currency !== payment.currency) return [{ path, message: `the invoice is in ${invoice.currency}, the payment in ${payment.currency}` }];
    if (invoice.invoiceDate > payment.date) return [{ path, message: `the invoice is dated ${invoice.invoiceDate}, after the allocation's ${payment.date}` }];
    if (invoice.lastRelease !== null && invoice.lastRelease > payment.date) {
      return [{ path, message: `a payment allocated to the invoice was cancelled on ${invoice.lastRelease}: it was settled until then, so an allocation to it is dated on or after that` }];
    }
    return [];
  });
  if (errors.length > 0) throw new AppError('validation', errors.map((e) => e.message).join('; '), { errors });
  return checkAllocations(requested, locked, payment.available, payment.currency);
}

/** Writes one entry of a payment through the ledger's posting path; returns its id. */
export async function postPaymentEntry(
  tx: Tx,
  actor: Actor,
  scope: CompanyScope,
  origin: Origin,
  entry: { key: string; prepared: PreparedEntry; paymentId: string; action: AuditAction; details: string },
): Promise<string> {
  const requestId = systemRequestId(`${entry.key}:${scope.tenantId}:${entry.paymentId}`);
  const id = randomUUID();
  const written = await writeEntry(tx, actor, scope, origin, await readPostingContext(tx, scope, requestId, entry.prepared), {
    id,
    requestId,
    prepared: entry.prepared,
    source: { type: 'PAYMENT', id: entry.paymentId },
    audit: { action: entry.action, subjectType: SUBJECT, subjectId: entry.paymentId, details: entry.details },
    event: null,
  }).catch((err: unknown) => {
    // The entry's lines are the payment's doing, not the body's: the problem names the body's field.
    if (err instanceof AppError && err.type === 'unknown-counterparty') {
      throw new AppError('unknown-counterparty', 'No active counterparty with this id in this company', { errors: [{ path: '/body/counterpartyId', message: 'no active counterparty with this id in this company' }] });
    }
    throw err;
  });
  if (written.replayed) throw new AppError('conflict', 'This payment change was already posted by another request');
  return id;
}


/** A payment entry's lines as the ledger takes them. */
export const paymentEntryInput = (date: string, description: string, lines: ReturnType<typeof paymentEntryLines>) =>
  prepareEntry({
    entryDate: date,
    description: description.slice(0, 500),
    reference: null,
    lines: lines.map((l) => ({
      accountCode: l.accountCode,
      counterpartyId: l.counterpartyId,
      debit: l.debit,
      credit: l.credit,
      memo: l.memo,
      ...(l.currency ? { currency: l.currency, currencyAmount: l.currencyAmount!, rate: l.rate!, rateSource: l.rateSource! } : {}),
    })),
  });

/** What identifies a payment request's content: the same requestId with other content is 409. */
export const paymentRequestHash = (input: PaymentCreate) =>
  requestHash({ ...input, amount: new Decimal(input.amount).toFixed(), allocations: input.allocations?.map((a) => ({ invoiceId: a.invoiceId, amount: new Decimal(a.amount).toFixed() })) });

/**
 * Posts a payment inside the caller's transaction: its entry, allocations, audit and webhook events. The
 * bank line it settles, when it comes from one (matchBankLine), is named on it.
 */
export async function postPaymentIn(
  tx: Tx,
  actor: Actor,
  scope: CompanyScope,
  origin: Origin,
  events: EventRecorder,
  input: PaymentCreate,
  options: { bankLineId?: string } = {},
): Promise<{ result: Payment; starts: RecordedStart[] }> {
  const currency = documentCurrency(input.currency);
  const amount = documentAmount(input.amount, currency, '/body/amount');
  const rate = await documentRate(tx, currency, input.date);
  const allocations = await allocationsFor(tx, scope, { direction: input.direction, counterpartyId: input.counterpartyId, currency, available: amount, date: input.date }, input);
  const allocated = allocations.reduce((s, a) => s.plus(a.amount), new Decimal(0));
  const id = randomUUID();
  const lines = paymentEntryLines(
    { direction: input.direction, counterpartyId: input.counterpartyId, currency, amount: amount.toFixed(), moneyAccount: input.cashAccount, allocated: allocated.toFixed() },
    rate,
    accounts,
  );
  const prepared = paymentEntryInput(input.date, `Payment ${input.direction === 'IN' ? 'received' : 'made'}${input.description ? `: ${input.description}` : ''}`, lines);
  const entryId = await postPaymentEntry(tx, actor, scope, origin, {
    key: 'payment',
    prepared,
    paymentId: id,
    action: 'payment.posted',
    details: `${input.direction} ${inCurrency(amount, currency)} ${currency}, ${allocations.length} allocations`,
  });
  const moneyLine = lines.find((l) => l.accountCode === input.cashAccount)!;
  await insertPayment(tx, scope, {
    id,
    direction: input.direction,
    date: input.date,
    counterpartyId: input.counterpartyId,
    currency,
    amount: amount.toFixed(),
    moneyAccount: input.cashAccount,
    description: input.description ?? null,
    rate: rate?.rate ?? null,
    rateDate: rate?.rateDate ?? null,
    amountUzs: moneyLine.debit !== '0.00' ? moneyLine.debit : moneyLine.credit,
    requestId: input.requestId,
    requestHash: paymentRequestHash(input),
    entryId,
    postedBy: actor.membershipId,
    bankLineId: options.bankLineId ?? null,
  });
  await recordAllocations(tx, scope, id, allocations.map((a) => ({ id: randomUUID(), invoiceId: a.invoiceId, amount: a.amount, amountUzs: allocationUzs(a.amount, rate) })), input.date, entryId);
  const starts = await events.record(tx, scope.tenantId, {
    type: 'payment.posted',
    data: { paymentId: id, legalEntityId: scope.legalEntityId, direction: input.direction, date: input.date, counterpartyId: input.counterpartyId, currency, amount: inCurrency(amount, currency), allocated: inCurrency(allocated, currency), entryId },
  });
  return { result: await paymentOf(tx, scope, id), starts };
}

/** Cancels a payment inside the caller's transaction (cancelPayment, and unmatchBankLine for its line's payment). */
export async function cancelPaymentIn(
  tx: Tx,
  actor: Actor,
  scope: CompanyScope,
  origin: Origin,
  events: EventRecorder,
  id: string,
  input: DocumentCancellation,
): Promise<{ result: Payment; starts: RecordedStart[] }> {
  const payment = await requirePayment(tx, scope, id, { lock: true });
  if (payment.status === 'CANCELLED') {
    if (payment.cancellation_request_id === input.requestId) return { result: await paymentOf(tx, scope, id), starts: [] };
    throw new AppError('document-state', 'The payment is cancelled already', { documentStatus: payment.status });
  }
  if (input.date < payment.payment_date) {
    throw new AppError('validation', 'A cancellation cannot be dated before the payment', { errors: [{ path: '/body/date', message: `must be on or after ${payment.payment_date}` }] });
  }
  // It mirrors the reclassifications too: dated before one of them, it would reverse what was not yet posted.
  const lastAllocation = (await allocationsOf(tx, scope, [id])).reduce((last, a) => (a.allocation_date > last ? a.allocation_date : last), payment.payment_date);
  if (input.date < lastAllocation) {
    throw new AppError('validation', 'A cancellation cannot be dated before an allocation of the payment', {
      errors: [{ path: '/body/date', message: `must be on or after ${lastAllocation}, the date of the payment's last allocation` }],
    });
  }
  // The invoices it settles are held (in id order, as every allocation takes them) before they are freed.
  await lockInvoices(tx, scope, await allocatedInvoiceIds(tx, scope, id));
  // One entry reverses what all the payment's entries (its own, its reclassifications) wrote, line for line.
  const entries = await Promise.all((await paymentEntryIds(tx, scope, id)).map(async (entryId) => (await loadEntry(tx, scope, { id: entryId }))!));
  const mirrored = entries.flatMap((e) => e.lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit })));
  const total = mirrored.reduce((s, l) => s + toMinorUnits(l.debit), 0n);
  const prepared: PreparedEntry = {
    entryDate: input.date,
    description: `Cancellation of a payment ${payment.direction === 'IN' ? 'received' : 'made'}: ${input.reason}`.slice(0, 500),
    reference: null,
    lines: mirrored.map((l, i) => ({ ...l, lineNo: i + 1 })),
    total,
    hash: requestHash({ cancellationOf: id, date: input.date, reason: input.reason }),
    reversalOf: payment.entry_id,
  };
  const entryId = await postPaymentEntry(tx, actor, scope, origin, {
    key: 'payment-cancellation',
    prepared,
    paymentId: id,
    action: 'payment.cancelled',
    details: `${payment.direction} ${inCurrency(payment.amount, payment.currency)} ${payment.currency}, dated ${input.date}, total ${formatMinorUnits(total)}`,
  });
  await markCancelled(tx, scope, id, { entryId, date: input.date, reason: input.reason, requestId: input.requestId });
  const starts = await events.record(tx, scope.tenantId, {
    type: 'payment.cancelled',
    data: { paymentId: id, legalEntityId: scope.legalEntityId, direction: payment.direction, date: input.date, counterpartyId: payment.counterparty_id, currency: payment.currency, amount: inCurrency(payment.amount, payment.currency), allocated: inCurrency(0, payment.currency), entryId },
  });
  return { result: await paymentOf(tx, scope, id), starts };
}
