import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { type Tx } from '../../db/connection';
import { DuplicateRowError } from '../../db/repositories/errors';
import {
  allocatedInvoiceIds,
  allocationsOf,
  findPayment,
  insertPayment,
  listPayments as listPaymentRows,
  lockInvoices,
  markCancelled,
  openInvoiceIds,
  paymentEntryIds,
  recordAllocations,
  type AllocationRow,
  type LockedInvoice,
  type PaymentFilter,
  type PaymentRow,
} from '../../db/repositories/payments/payments';
import type { RecordedStart } from '../../db/repositories/webhooks/events';
import { DEFAULT_DOCUMENT_ACCOUNTS, documentCurrency } from '../../core/invoices/invoices';
import {
  allocateOldestFirst,
  allocationUzs,
  checkAllocations,
  documentAmount,
  paymentEntryLines,
  reclassificationLines,
  type Allocation,
  type Direction,
} from '../../core/payments/payments';
import { prepareEntry, requestHash, systemRequestId, type PreparedEntry } from '../../core/ledger/journal';
import { currencyDecimals } from '../../core/ledger/currency';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits, toMinorUnits } from '../../core/ledger/money';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { commitDocumentChange, documentRate, readPostingContext, writeEntry } from '../ledger/posting';
import { loadEntry } from '../ledger/journal-entries';

type Payment = Schemas['Payment'];
type PaymentCreate = Schemas['PaymentCreate'];

const SUBJECT = 'PAYMENT';
const accounts = DEFAULT_DOCUMENT_ACCOUNTS;

const inCurrency = (value: Decimal.Value, currency: string) => new Decimal(value).toFixed(currencyDecimals(currency));

function toPayment(row: PaymentRow, allocations: AllocationRow[]): Payment {
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
async function requirePayment(tx: Tx, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<PaymentRow> {
  const row = await findPayment(tx, scope, { id }, options);
  if (!row) throw new AppError('not-found', 'No payment with this id in this company');
  return row;
}

async function paymentOf(tx: Tx, scope: CompanyScope, id: string): Promise<Payment> {
  return toPayment(await requirePayment(tx, scope, id), await allocationsOf(tx, scope, [id]));
}

/** The invoice kind a payment's direction settles: money in settles sales, money out purchases. */
const kindFor = (direction: Direction) => (direction === 'IN' ? 'SALES' : 'PURCHASE');

/**
 * The allocations a request asks for, checked against the invoices they name, held FOR UPDATE: each is a
 * posted invoice of the payment's counterparty, kind and currency, dated on or before the allocation, with
 * enough outstanding; together at most what the payment has unallocated.
 */
async function allocationsFor(
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
    // Locked, then read again: what another allocation left is what this one sees.
    const open = [...(await lockInvoices(tx, scope, candidates)).values()].filter((i) => i.status === 'POSTED' && new Decimal(i.outstanding).greaterThan(0));
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
    return [];
  });
  if (errors.length > 0) throw new AppError('validation', errors.map((e) => e.message).join('; '), { errors });
  return checkAllocations(requested, locked, payment.available, payment.currency);
}

/** Payments in and out, their allocations to invoices and their cancellation. */
export function createPayments({ companies, webhookEvents }: { companies: CompanyScopes; webhookEvents: WebhookEvents }) {
  const postingChange = <T>(
    principal: Principal,
    legalEntityId: string,
    work: (tx: Tx, scope: CompanyScope) => Promise<{ result: T; starts: RecordedStart[] }>,
    target?: (tx: Tx, scope: CompanyScope) => Promise<void>,
  ): Promise<T> => commitDocumentChange({ companies, webhookEvents }, principal, legalEntityId, work, target);

  /** Writes one entry of a payment through the ledger's posting path; returns its id. */
  async function post(
    tx: Tx,
    principal: Principal,
    scope: CompanyScope,
    ctx: RequestContext,
    entry: { key: string; prepared: PreparedEntry; paymentId: string; action: AuditAction; details: string },
  ): Promise<string> {
    const requestId = systemRequestId(`${entry.key}:${scope.tenantId}:${entry.paymentId}`);
    const id = randomUUID();
    const written = await writeEntry(tx, principal, scope, ctx, await readPostingContext(tx, scope, requestId, entry.prepared), {
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



  const entryInput = (date: string, description: string, lines: ReturnType<typeof paymentEntryLines>) =>
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

  async function listPayments(principal: Principal, legalEntityId: string, query: PageQuery & Omit<PaymentFilter, 'limit' | 'offset'>): Promise<Schemas['PaymentPage']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const { rows, total } = await listPaymentRows(tx, scope, { ...query, limit: query.size, offset: query.page * query.size });
      const allocations = await allocationsOf(tx, scope, rows.map((r) => r.id));
      return pageOf(rows.map((r) => toPayment(r, allocations.filter((a) => a.payment_id === r.id))), query, total);
    });
  }

  async function getPayment(principal: Principal, legalEntityId: string, id: string): Promise<Payment> {
    return companies.read(principal, legalEntityId, (tx, scope) => paymentOf(tx, scope, id));
  }

  /** What identifies a payment request's content: the same requestId with other content is 409. */
  const hashOf = (input: PaymentCreate) =>
    requestHash({ ...input, amount: new Decimal(input.amount).toFixed(), allocations: input.allocations?.map((a) => ({ invoiceId: a.invoiceId, amount: new Decimal(a.amount).toFixed() })) });

  async function replayOf(tx: Tx, scope: CompanyScope, input: PaymentCreate): Promise<Payment | null> {
    const existing = await findPayment(tx, scope, { requestId: input.requestId });
    if (!existing) return null;
    if (existing.request_hash !== hashOf(input)) throw new AppError('request-id-reused', 'This requestId was used for a different payment');
    return paymentOf(tx, scope, existing.id);
  }

  async function postPayment(principal: Principal, legalEntityId: string, input: PaymentCreate, ctx: RequestContext): Promise<{ payment: Payment; created: boolean }> {
    const currency = documentCurrency(input.currency);
    const amount = documentAmount(input.amount, currency, '/body/amount');
    try {
      return await postingChange<{ payment: Payment; created: boolean }>(principal, legalEntityId, async (tx, scope) => {
        const replay = await replayOf(tx, scope, input);
        if (replay) return { result: { payment: replay, created: false }, starts: [] };
        const rate = await documentRate(tx, currency, input.date);
        const allocations = await allocationsFor(tx, scope, { direction: input.direction, counterpartyId: input.counterpartyId, currency, available: amount, date: input.date }, input);
        const allocated = allocations.reduce((s, a) => s.plus(a.amount), new Decimal(0));
        const id = randomUUID();
        const lines = paymentEntryLines(
          { direction: input.direction, counterpartyId: input.counterpartyId, currency, amount: amount.toFixed(), moneyAccount: input.cashAccount, allocated: allocated.toFixed() },
          rate,
          accounts,
        );
        const prepared = entryInput(input.date, `Payment ${input.direction === 'IN' ? 'received' : 'made'}${input.description ? `: ${input.description}` : ''}`, lines);
        const entryId = await post(tx, principal, scope, ctx, {
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
          requestHash: hashOf(input),
          entryId,
          postedBy: principal.membershipId,
        });
        await recordAllocations(tx, scope, id, allocations.map((a) => ({ id: randomUUID(), invoiceId: a.invoiceId, amount: a.amount, amountUzs: allocationUzs(a.amount, rate) })), input.date, entryId);
        const starts = await webhookEvents.record(tx, scope.tenantId, {
          type: 'payment.posted',
          data: { paymentId: id, legalEntityId: scope.legalEntityId, direction: input.direction, date: input.date, counterpartyId: input.counterpartyId, currency, amount: inCurrency(amount, currency), allocated: inCurrency(allocated, currency), entryId },
        });
        return { result: { payment: await paymentOf(tx, scope, id), created: true }, starts };
      });
    } catch (err) {
      // A concurrent request with the same requestId won: answer what it wrote.
      if (err instanceof DuplicateRowError) {
        const replay = await companies.read(principal, legalEntityId, (tx, scope) => replayOf(tx, scope, input));
        if (replay) return { payment: replay, created: false };
      }
      throw err;
    }
  }

  async function allocatePayment(principal: Principal, legalEntityId: string, id: string, input: Schemas['AllocationCreate'], ctx: RequestContext): Promise<Payment> {
    return postingChange(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const payment = await requirePayment(tx, scope, id, { lock: true });
        if (payment.status !== 'POSTED') throw new AppError('document-state', 'The payment is cancelled: nothing of it is allocated', { documentStatus: payment.status });
        if (input.date < payment.payment_date) {
          throw new AppError('validation', 'An allocation cannot be dated before its payment', { errors: [{ path: '/body/date', message: `must be on or after ${payment.payment_date}` }] });
        }
        if (!input.allocations && !input.allocate) {
          throw new AppError('validation', 'Name the allocations or ask for OLDEST_FIRST', { errors: [{ path: '/body', message: 'must have allocations or allocate' }] });
        }
        const available = new Decimal(payment.amount).minus(payment.allocated);
        const allocations = await allocationsFor(tx, scope, { direction: payment.direction, counterpartyId: payment.counterparty_id, currency: payment.currency, available, date: input.date }, input);
        if (allocations.length === 0) return { result: await paymentOf(tx, scope, id), starts: [] };
        const total = allocations.reduce((s, a) => s.plus(a.amount), new Decimal(0));
        const paymentRate = payment.rate === null ? null : { rate: payment.rate };
        const lines = reclassificationLines(payment.direction, payment.counterparty_id, payment.currency, total.toFixed(), paymentRate, input.date, accounts);
        const prepared = entryInput(input.date, `Advance ${payment.direction === 'IN' ? 'received' : 'paid'} allocated to invoices`, lines);
        const entryId = await post(tx, principal, scope, ctx, {
          key: `payment-allocation:${randomUUID()}`,
          prepared,
          paymentId: id,
          action: 'payment.allocated',
          details: `${inCurrency(total, payment.currency)} ${payment.currency} to ${allocations.length} invoices, dated ${input.date}`,
        });
        await recordAllocations(tx, scope, id, allocations.map((a) => ({ id: randomUUID(), invoiceId: a.invoiceId, amount: a.amount, amountUzs: allocationUzs(a.amount, paymentRate) })), input.date, entryId);
        return { result: await paymentOf(tx, scope, id), starts: [] };
      },
      async (tx, scope) => {
        await requirePayment(tx, scope, id);
      },
    );
  }

  async function cancelPayment(principal: Principal, legalEntityId: string, id: string, input: Schemas['DocumentCancellation'], ctx: RequestContext): Promise<Payment> {
    return postingChange(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const payment = await requirePayment(tx, scope, id, { lock: true });
        if (payment.status === 'CANCELLED') {
          if (payment.cancellation_request_id === input.requestId) return { result: await paymentOf(tx, scope, id), starts: [] };
          throw new AppError('document-state', 'The payment is cancelled already', { documentStatus: payment.status });
        }
        if (input.date < payment.payment_date) {
          throw new AppError('validation', 'A cancellation cannot be dated before the payment', { errors: [{ path: '/body/date', message: `must be on or after ${payment.payment_date}` }] });
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
        const entryId = await post(tx, principal, scope, ctx, {
          key: 'payment-cancellation',
          prepared,
          paymentId: id,
          action: 'payment.cancelled',
          details: `${payment.direction} ${inCurrency(payment.amount, payment.currency)} ${payment.currency}, dated ${input.date}, total ${formatMinorUnits(total)}`,
        });
        await markCancelled(tx, scope, id, { entryId, date: input.date, reason: input.reason, requestId: input.requestId });
        const starts = await webhookEvents.record(tx, scope.tenantId, {
          type: 'payment.cancelled',
          data: { paymentId: id, legalEntityId: scope.legalEntityId, direction: payment.direction, date: input.date, counterpartyId: payment.counterparty_id, currency: payment.currency, amount: inCurrency(payment.amount, payment.currency), allocated: inCurrency(0, payment.currency), entryId },
        });
        return { result: await paymentOf(tx, scope, id), starts };
      },
      async (tx, scope) => {
        await requirePayment(tx, scope, id);
      },
    );
  }

  return { listPayments, getPayment, postPayment, allocatePayment, cancelPayment };
}
