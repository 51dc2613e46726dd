// @ts-check
// The invoices a payment can settle: the counterparty's posted invoices with something outstanding, of the kind its
// direction settles (money in: sales; out: purchases), dated on or before the allocation, in the payment's currency
// (a payment settles only invoices of its own), in the order OLDEST_FIRST takes them.
import { api, company } from '../session.js';
import { kindSettled } from './payment-common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']['Invoice']} Invoice */

/**
 * What the open invoices are read for: a chosen counterparty, a currency's code, the allocation's date ('' for none).
 * @typedef {{ direction: 'IN' | 'OUT', counterpartyId: string, currency: string, date: string }} Context
 */

/**
 * The invoices read: those offered (`invoices`), how many of the counterparty's others are in another currency, and
 * whether more were left unread.
 * @typedef {{ invoices: Invoice[], others: number, more: boolean }} OpenInvoices
 */

/** At most this many pages of 100 are read: the API takes at most 500 allocations in one request. */
const MAX_PAGES = 5;

/**
 * The order OLDEST_FIRST settles invoices in, as the API's: due date, then date, then number, then id.
 * @param {Invoice} a
 * @param {Invoice} b
 */
const oldestFirst = (a, b) => {
  const x = [a.dueDate, a.date, a.number ?? '', a.id];
  const y = [b.dueDate, b.date, b.number ?? '', b.id];
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
};

/**
 * Reads the open invoices for `ctx` (the API lists the newest first), oldest first.
 * @param {Context} ctx
 * @returns {Promise<OpenInvoices>}
 */
export async function readOpenInvoices(ctx) {
  const query = { kind: kindSettled(ctx.direction), status: 'POSTED', counterpartyId: ctx.counterpartyId, size: '100', ...(ctx.date ? { dateTo: ctx.date } : {}) };
  /** @type {Invoice[]} */
  const found = [];
  let more = false;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { data } = /** @type {import('../api.js').Reply<'listInvoices'>} */ (await api('GET', `/api/v1/invoices/${company()}?${new URLSearchParams({ ...query, page: String(page) })}`));
    found.push(...data.items);
    more = page + 1 < data.totalPages;
    if (!more) break;
  }
  const invoices = found.filter((inv) => inv.currency === ctx.currency).sort(oldestFirst);
  return { invoices, others: found.length - invoices.length, more };
}

/**
 * What the form says of the invoices read.
 * @param {Context} ctx
 * @param {OpenInvoices} read
 */
export function openInvoicesNote(ctx, { invoices, others, more }) {
  const kind = ctx.direction === 'IN' ? 'sales' : 'purchase';
  const dated = ctx.date ? ` dated on or before ${ctx.date}` : '';
  return [
    invoices.length ? `${invoices.length} open ${kind} ${invoices.length === 1 ? 'invoice' : 'invoices'} in ${ctx.currency}${dated}, oldest first.`
      : `No open ${kind} invoice of this counterparty in ${ctx.currency}${dated}.`,
    others ? `${others} in other currencies ${others === 1 ? 'is' : 'are'} not offered: a payment settles invoices of its own currency.` : '',
    more ? `Only the ${invoices.length + others} newest are offered; oldest first settles all of them.` : '',
  ].filter(Boolean).join(' ');
}
