// @ts-check
// What the payments' list, form and card share: the API's paths, how a direction and a status read, and the
// API's refusals of a payment as sentences.
import { ProblemError, describe } from '../api.js';
import { h } from '../dom.js';
import { company } from '../session.js';
import { problemType } from './common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['Payment']} Payment */
/** @typedef {Payment['direction']} Direction */
/** @typedef {Payment['status']} PaymentStatus */

/**
 * The payments' API: the list, or one payment, or one of its actions (allocations, cancellation).
 * @param {string} [id]
 * @param {string} [action]
 */
export const paymentPath = (id, action) => `/api/v1/payments/${company()}${id ? `/${id}` : ''}${action ? `/${action}` : ''}`;

/** @type {Record<Direction, string>} */
export const DIRECTION_LABEL = { IN: 'Received', OUT: 'Paid' };

/** @type {Record<PaymentStatus, string>} */
const STATUS_LABEL = { POSTED: 'Posted', CANCELLED: 'Cancelled' };

/**
 * The invoices a payment's direction settles: money in settles sales, money out purchases.
 * @param {Direction} direction
 * @returns {Schemas['InvoiceKind']}
 */
export const kindSettled = (direction) => (direction === 'IN' ? 'SALES' : 'PURCHASE');

/**
 * The status as a badge, coloured as the invoices' (style.css), the API's value in data-status.
 * @param {PaymentStatus} status
 * @param {string} [id]
 */
export const paymentBadge = (status, id) => h('span', { class: `badge badge-${status.toLowerCase()}`, 'data-status': status, id }, STATUS_LABEL[status] ?? status);

/**
 * "Payment received from Chorsu Trade LLC on 2026-03-25".
 * @param {Payment} p
 */
export const paymentTitle = (p) => `Payment ${p.direction === 'IN' ? 'received from' : 'made to'} ${p.counterpartyName} on ${p.date}`;

/**
 * A refusal of the API as a sentence: the 409s of payments named by what to do about them, a 403 by what was not
 * allowed; the rest as the API words it.
 * @param {unknown} err
 * @param {'post' | 'allocate' | 'cancel'} doing
 */
export function paymentProblem(err, doing) {
  if (!(err instanceof ProblemError)) return describe(err);
  const p = err.problem;
  const done = { post: 'posted', allocate: 'allocated', cancel: 'cancelled' }[doing];
  switch (problemType(err)) {
    case 'allocation-exceeds-outstanding':
      return `Not ${done}: ${p.detail ?? 'an allocation is more than its invoice has outstanding'}. The invoices are read again: allocate at most what each has outstanding now.`;
    case 'allocation-exceeds-payment':
      return `Not ${done}: the allocations add up to more than the payment${typeof p.unallocated === 'string' ? ` has unallocated (${p.unallocated})` : ''}.`;
    case 'document-state':
      return `Not ${done}: the payment is cancelled${p.detail ? ` (${p.detail})` : ''}. The card shows it as it is stored now.`;
    case 'period-closed': {
      const through = typeof p.closedThrough === 'string' ? ` through ${p.closedThrough}` : '';
      return `Not ${done}: the ledger is closed${through}. Date it after the last close.`;
    }
    case 'rate-unavailable': {
      const currencies = Array.isArray(p.currencies) ? p.currencies.join(', ') : 'the payment\'s currency';
      return `Not posted: the Central Bank (CBU) has no rate of ${currencies} stored on or before ${typeof p.date === 'string' ? p.date : 'the payment date'}, so the payment cannot be converted to UZS.`;
    }
    case 'request-id-reused':
      return 'Not posted: this form has posted a payment already, and what it sends now differs. Open the payments list to see it, and record another payment from there.';
    default:
      if (err.status === 403) return `You may not ${doing === 'post' ? 'post' : doing} payments: ${describe(err)}`;
      return describe(err);
  }
}
