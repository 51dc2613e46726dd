// @ts-check
// #payments: money received and paid, newest first, filtered on direction, status, counterparty and dates, a page
// at a time; also opened from an invoice's card with its counterparty and direction set. "Record a payment" opens
// the form (payment-form.js), a payment's date its card (payment-card.js); the way back restores the list as it
// was left, filters included.
import { clearAlert, h } from '../dom.js';
import { api, can } from '../session.js';
import { alignAmounts, failed, money, table } from './common.js';
import { counterpartyPicker } from './counterparty-picker.js';
import { DIRECTION_LABEL, paymentBadge, paymentPath } from './payment-common.js';
import { showPayment } from './payment-card.js';
import { paymentForm } from './payment-form.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {import('./common.js').WayBack} WayBack */
/** @typedef {import('./payment-card.js').OpenInvoice} OpenInvoice */

const PAGE_SIZES = [10, 25, 50, 100];

/**
 * @param {HTMLElement} body
 * @param {object} options
 * @param {OpenInvoice} options.openInvoice how an allocation's invoice opens
 * @param {import('./combobox.js').ComboOption} [options.counterparty] the counterparty filter to start with
 * @param {'IN' | 'OUT'} [options.direction] the direction filter to start with
 * @param {WayBack} [options.back] the way back to the view the list was opened from
 */
export async function paymentList(body, { openInvoice, counterparty: presetCounterparty, direction: presetDirection, back: from }) {
  const direction = h('select', { name: 'direction' }, h('option', { value: '' }, 'Both'),
    h('option', { value: 'IN', selected: presetDirection === 'IN' }, 'Received'), h('option', { value: 'OUT', selected: presetDirection === 'OUT' }, 'Paid'));
  const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Any'), h('option', { value: 'POSTED' }, 'Posted'), h('option', { value: 'CANCELLED' }, 'Cancelled'));
  // The preset counterparty is chosen before the list is first read, which reads it once.
  let ready = false;
  const counterparty = counterpartyPicker({ name: 'counterpartyId', label: 'Counterparty', onChange: () => ready && fromStart() });
  if (presetCounterparty) counterparty.choose(presetCounterparty);
  ready = true;
  const dateFrom = h('input', { type: 'date', name: 'dateFrom' });
  const dateTo = h('input', { type: 'date', name: 'dateTo' });
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 25 }, n)));
  const out = h('div', { id: 'payment-list', 'aria-live': 'polite', 'aria-busy': 'false' });
  const previous = h('button', { type: 'button', id: 'payments-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'payments-next', disabled: true }, 'Next →');
  const pageStatus = h('span', { id: 'payments-page' });
  let page = 0;
  let reading = 0;

  const filtered = () => Boolean(direction.value || status.value || counterparty.value() || dateFrom.value || dateTo.value);
  /** Reads the page; a later read wins over an earlier one still on its way, and a failed one shows in its place. */
  const load = async () => {
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    out.setAttribute('aria-busy', 'true');
    /** @type {Record<string, string>} */
    const query = { page: String(page), size: size.value };
    for (const [key, value] of /** @type {[string, string][]} */ ([['direction', direction.value], ['status', status.value], ['counterpartyId', counterparty.value()],
      ['dateFrom', dateFrom.value], ['dateTo', dateTo.value]])) if (value) query[key] = value;
    try {
      const { data } = /** @type {import('../api.js').Reply<'listPayments'>} */ (await api('GET', `${paymentPath()}?${new URLSearchParams(query)}`));
      if (mine !== reading) return;
      if (data.items.length === 0 && page > 0 && data.totalPages > 0) {
        page = data.totalPages - 1;
        return void load();
      }
      draw(data);
    } catch (err) {
      if (mine !== reading) return;
      failed(out, err);
      pageStatus.textContent = '';
      previous.disabled = page === 0;
    } finally {
      if (mine === reading) out.setAttribute('aria-busy', 'false');
    }
  };
  const fromStart = () => {
    page = 0;
    void load();
  };

  /** @param {Schemas['PaymentPage']} data */
  const draw = (data) => {
    const rows = data.items.map((p) => {
      const open = h('button', { type: 'button', class: 'link', 'data-action': 'open', 'aria-label': `Open the payment of ${p.date}, ${p.counterpartyName}` }, p.date);
      open.addEventListener('click', () => openCard(p.id));
      return h('tr', { 'data-id': p.id, 'data-status': p.status, class: p.status === 'CANCELLED' ? 'cancelled' : undefined },
        h('td', { class: 'date' }, open),
        h('td', {}, DIRECTION_LABEL[p.direction]),
        h('td', { class: 'counterparty' }, p.counterpartyName),
        h('td', { class: 'num total' }, money(p.amount, p.currency)),
        h('td', { class: 'num unallocated' }, p.status === 'POSTED' ? money(p.unallocated, p.currency) : ''),
        h('td', {}, p.cashAccount),
        h('td', {}, paymentBadge(p.status)));
    });
    const list = table(['Date', 'Direction', 'Counterparty', 'Amount', 'Advance', 'Account', 'Status'], rows);
    alignAmounts(list, [3, 4]);
    out.replaceChildren(rows.length === 0 ? h('p', { class: 'muted' }, filtered() ? 'No payment matches these filters.' : 'No payments yet.') : list);
    pageStatus.textContent = data.totalElements === 0 ? '' : `Page ${data.page + 1} of ${data.totalPages} · ${data.totalElements} ${data.totalElements === 1 ? 'payment' : 'payments'}`;
    previous.disabled = data.page === 0;
    next.disabled = data.page >= data.totalPages - 1;
  };

  /** The list's part of the view, kept while a card or the form is drawn in its place. @type {ChildNode[]} */
  let saved = [];
  /** @type {WayBack} */
  const back = {
    to: () => {
      body.replaceChildren(...saved);
      void load();
    },
    label: '← All payments',
  };
  /** @param {string} id */
  const openCard = (id) => {
    clearAlert();
    saved = [...body.childNodes];
    showPayment(body, id, { back, openInvoice }).catch((err) => failed(body, err));
  };
  const openForm = () => {
    clearAlert();
    saved = [...body.childNodes];
    paymentForm(body, { back, openInvoice }).catch((err) => failed(body, err));
  };

  for (const control of [direction, status, dateFrom, dateTo, size]) control.addEventListener('change', fromStart);
  previous.addEventListener('click', () => {
    page = Math.max(0, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    page += 1;
    void load();
  });
  const filters = h('form', { class: 'inline filters', role: 'search', id: 'payment-filters', novalidate: true },
    h('label', {}, 'Direction ', direction), h('label', {}, 'Status ', status), h('label', { class: 'counterparty-filter' }, 'Counterparty ', counterparty.element),
    h('label', {}, 'From ', dateFrom), h('label', {}, 'To ', dateTo), h('button', { type: 'submit' }, 'Search'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    fromStart();
  });

  body.replaceChildren();
  if (from) body.append(h('button', { type: 'button', class: 'link', onclick: from.to }, from.label));
  body.append(h('h1', { tabindex: -1 }, 'Payments'));
  if (can('postPayment')) body.append(h('button', { type: 'button', id: 'new-payment', class: 'section-action', onclick: openForm }, 'Record a payment'));
  body.append(filters, out, h('nav', { class: 'pager', 'aria-label': 'Payment pages' }, previous, pageStatus, next, h('label', {}, 'Per page ', size)));
  await load();
}
