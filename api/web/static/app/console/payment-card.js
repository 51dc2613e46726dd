// @ts-check
// A payment's card: what it is, what it settled (its allocations, each with its invoice and the entry that booked
// it), the entries it wrote, and what can be done with it: allocate what it holds as an advance
// (payment-allocate.js) and cancel it (a date and a reason, a fresh requestId per request). Buttons show only
// when /me/access allows them.
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { formatAmount, groupDigits } from '../money.js';
import { api, can } from '../session.js';
import { alignAmounts, failed, money, problemType, table, today, uuid } from './common.js';
import { FUNCTIONAL } from './currency.js';
import { entryLinks } from './entry-links.js';
import { allocateForm } from './payment-allocate.js';
import { DIRECTION_LABEL, paymentBadge, paymentPath, paymentProblem, paymentTitle } from './payment-common.js';

/** @typedef {import('./payment-common.js').Payment} Payment */
/** @typedef {import('./common.js').WayBack} WayBack */

/**
 * How an invoice's card is drawn in place of a payment's: invoices.js's `openInvoice`, handed in by whoever opens
 * payments, so that the payments' modules need not import the invoices' (whose cards open payments).
 * @typedef {(body: HTMLElement, id: string, back: WayBack) => void} OpenInvoice
 */

/**
 * @typedef {object} CardOptions
 * @property {WayBack} back
 * @property {OpenInvoice} openInvoice
 */

/**
 * One payment read from the API, drawn in `body` as its card.
 * @param {HTMLElement} body
 * @param {string} id
 * @param {CardOptions} options
 */
export async function showPayment(body, id, options) {
  const { data } = /** @type {import('../api.js').Reply<'getPayment'>} */ (await api('GET', paymentPath(id)));
  await paymentCard(body, data, options);
}

/**
 * @param {HTMLElement} body
 * @param {Payment} p
 * @param {CardOptions} options
 */
export async function paymentCard(body, p, options) {
  const { back, openInvoice } = options;
  const again = () => showPayment(body, p.id, options).catch((err) => failed(body, err));
  const entryIds = [p.entryId, ...p.allocations.map((a) => a.entryId), ...(p.cancellation ? [p.cancellation.entryId] : [])];
  const entryLink = await entryLinks(body, entryIds, () => void again(), '← Back to the payment');
  /** @type {WayBack} */
  const backHere = { to: () => void again(), label: '← Back to the payment' };

  /** @type {[string, (Node | string)[] | Node | string][]} */
  const facts = [
    ['Direction', p.direction === 'IN' ? 'Received from a customer' : 'Paid to a supplier'],
    ['Counterparty', p.counterpartyName],
    ['Date', p.date],
    ['Amount', h('span', { id: 'payment-amount' }, money(p.amount, p.currency))],
    ['Allocated', h('span', { id: 'payment-allocated' }, money(p.allocated, p.currency))],
    ['Unallocated (advance)', h('span', { id: 'payment-unallocated' }, money(p.unallocated, p.currency))],
    ['Money account', p.cashAccount],
  ];
  if (p.rate && p.rateDate) facts.push(['Rate', `1 ${p.currency} = ${groupDigits(p.rate)} UZS, CBU ${p.rateDate}`]);
  if (p.currency !== FUNCTIONAL) facts.push(['Amount in UZS', money(p.amountUzs, FUNCTIONAL)]);
  if (p.description) facts.push(['Description', p.description]);
  facts.push(['Posted', [`${new Date(p.createdAt).toLocaleString()} · `, entryLink(p.entryId, 'payment-entry')]]);
  if (p.cancellation) {
    facts.push(['Cancelled', [`${p.cancellation.date}: ${p.cancellation.reason} · reversed by `, entryLink(p.cancellation.entryId, 'payment-reversal')]]);
  }

  const allocations = table(['Invoice', 'Date', `Amount (${p.currency})`, 'Entry', 'Released'], p.allocations.map((a) =>
    h('tr', { 'data-invoice': a.invoiceId, class: a.releasedDate ? 'released' : undefined },
      h('td', { class: 'number' }, h('button', { type: 'button', class: 'link', 'data-action': 'open-invoice', onclick: () => openInvoice(body, a.invoiceId, backHere) }, a.invoiceNumber ?? 'Open the invoice')),
      h('td', { class: 'date' }, a.date),
      h('td', { class: 'num amount' }, formatAmount(a.amount)),
      h('td', {}, entryLink(a.entryId)),
      h('td', { class: 'date' }, a.releasedDate ? `on ${a.releasedDate}, by the cancellation` : ''))));
  allocations.id = 'payment-allocations';
  alignAmounts(allocations, [2]);

  const actions = h('div', { class: 'card-actions', id: 'payment-actions' });
  /** @type {HTMLFormElement[]} */
  const forms = [];
  if (p.status === 'POSTED' && can('allocatePayment') && /[1-9]/.test(p.unallocated)) {
    const { open, form } = allocateForm(p, { done: (data) => paymentCard(body, data, options), changed: () => again() });
    actions.append(open);
    forms.push(form);
  }
  if (p.status === 'POSTED' && can('cancelPayment')) {
    const { open, form } = cancelForm(p, {
      done: (data) => paymentCard(body, data, options),
      changed: () => again(),
    });
    actions.append(open);
    forms.push(form);
  }

  const heading = h('h1', { tabindex: -1, id: 'payment-title' }, `${DIRECTION_LABEL[p.direction]} ${groupDigits(p.amount)} ${p.currency}`, ' ', paymentBadge(p.status, 'payment-status'));
  body.replaceChildren(
    h('button', { type: 'button', class: 'link', onclick: back.to }, back.label),
    heading,
    h('p', { class: 'muted' }, paymentTitle(p)),
    h('dl', { class: 'invoice-facts payment-facts' }, facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]).flat()),
    h('h2', {}, 'Allocations'),
    p.allocations.length ? allocations : h('p', { class: 'muted', id: 'payment-allocations' }, 'None: the whole payment is an advance.'),
    actions.childElementCount ? actions : '',
    ...forms,
  );
  heading.focus();
}

/**
 * The button that opens the cancellation form, and the form (hidden until then): a date (on or after the payment,
 * after the last close) and a reason; a fresh requestId for each cancellation asked for.
 * @param {Payment} p
 * @param {{ done: (p: Payment) => Promise<void>, changed: () => Promise<void> }} after
 */
function cancelForm(p, { done, changed }) {
  const date = h('input', { type: 'date', name: 'date', required: true, value: today() < p.date ? p.date : today(), min: p.date });
  const reason = h('input', { name: 'reason', required: true, maxlength: 500, class: 'reason' });
  const form = h('form', { id: 'cancel-payment', class: 'inline cancel-form', novalidate: true, hidden: true },
    h('p', { class: 'hint' }, 'Cancelling posts one entry reversing the payment\'s entries and frees its allocations: their invoices are open again.'),
    h('label', {}, 'Cancel on ', date),
    h('label', {}, 'Reason ', reason),
    h('button', { type: 'submit', class: 'danger' }, 'Cancel the payment'),
    h('button', { type: 'button', class: 'link', onclick: () => {
      form.hidden = true;
      open.hidden = false;
      open.focus();
    } }, 'Keep it'));
  const open = h('button', { type: 'button', id: 'open-cancel-payment', class: 'secondary', onclick: () => {
    open.hidden = true;
    form.hidden = false;
    reason.focus();
  } }, 'Cancel the payment…');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    if (!date.value || !reason.value.trim()) {
      const missing = date.value ? reason : date;
      missing.setAttribute('aria-invalid', 'true');
      missing.focus();
      return showAlert(date.value ? 'Say why the payment is cancelled.' : 'Choose the date of the cancellation.');
    }
    date.removeAttribute('aria-invalid');
    reason.removeAttribute('aria-invalid');
    void busy(form, async () => {
      try {
        // A fresh requestId for each cancellation asked for: the API answers a repeat of one as it answered it.
        const cancellation = /** @satisfies {import('../api.js').RequestBody<'cancelPayment'>} */ ({ requestId: uuid(), date: date.value, reason: reason.value.trim() });
        const { data } = /** @type {import('../api.js').Reply<'cancelPayment'>} */ (await api('POST', paymentPath(p.id, 'cancellation'), cancellation));
        await done(data);
        showAlert('Cancelled the payment: its entries are reversed and its invoices are open again.', 'info');
      } catch (err) {
        if (problemType(err) === 'document-state') await changed();
        showAlert(paymentProblem(err, 'cancel'));
      }
    });
  });
  return { open, form };
}
