import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { type Tx } from '../../db/connection';
import { DuplicateRowError } from '../../db/repositories/errors';
import { allocationsOf, findPayment, listPayments as listPaymentRows, recordAllocations, type PaymentFilter } from '../../db/repositories/payments/payments';
import type { RecordedStart } from '../../db/repositories/webhooks/events';
import { DEFAULT_DOCUMENT_ACCOUNTS, documentCurrency } from '../../core/invoices/invoices';
import { allocationUzs, documentAmount, reclassificationLines } from '../../core/payments/payments';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { commitDocumentChange } from '../ledger/posting';
import {
  allocationsFor,
  cancelPaymentIn,
  inCurrency,
  paymentEntryInput,
  paymentOf,
  paymentRequestHash,
  postPaymentEntry,
  postPaymentIn,
  requirePayment,
  toPayment,
} from '../../services/payments/payments';

type Payment = Schemas['Payment'];
type PaymentCreate = Schemas['PaymentCreate'];

const accounts = DEFAULT_DOCUMENT_ACCOUNTS;

/** Payments in and out, their allocations to invoices and their cancellation. */
export function createPayments({ companies, webhookEvents }: { companies: CompanyScopes; webhookEvents: WebhookEvents }) {
  const postingChange = <T>(
    principal: Principal,
    legalEntityId: string,
    work: (tx: Tx, scope: CompanyScope) => Promise<{ result: T; starts: RecordedStart[] }>,
    target?: (tx: Tx, scope: CompanyScope) => Promise<void>,
  ): Promise<T> => commitDocumentChange({ companies, webhookEvents }, principal, legalEntityId, work, target);

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

  async function replayOf(tx: Tx, scope: CompanyScope, input: PaymentCreate): Promise<Payment | null> {
    const existing = await findPayment(tx, scope, { requestId: input.requestId });
    if (!existing) return null;
    if (existing.request_hash !== paymentRequestHash(input)) throw new AppError('request-id-reused', 'This requestId was used for a different payment');
    return paymentOf(tx, scope, existing.id);
  }

  async function postPayment(principal: Principal, legalEntityId: string, input: PaymentCreate, ctx: RequestContext): Promise<{ payment: Payment; created: boolean }> {
    documentAmount(input.amount, documentCurrency(input.currency), '/body/amount');
    try {
      return await postingChange<{ payment: Payment; created: boolean }>(principal, legalEntityId, async (tx, scope) => {
        const replay = await replayOf(tx, scope, input);
        if (replay) return { result: { payment: replay, created: false }, starts: [] };
        const { result, starts } = await postPaymentIn(tx, principal, scope, ctx, webhookEvents, input);
        return { result: { payment: result, created: true }, starts };
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
        const prepared = paymentEntryInput(input.date, `Advance ${payment.direction === 'IN' ? 'received' : 'paid'} allocated to invoices`, lines);
        const entryId = await postPaymentEntry(tx, principal, scope, ctx, {
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
      (tx, scope) => cancelPaymentIn(tx, principal, scope, ctx, webhookEvents, id, input),
      async (tx, scope) => {
        await requirePayment(tx, scope, id);
      },
    );
  }

  return { listPayments, getPayment, postPayment, allocatePayment, cancelPayment };
}
