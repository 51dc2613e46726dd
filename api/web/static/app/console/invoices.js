// @ts-check
// #invoices: the company's sales and purchase invoices. The list filters on kind, status, counterparty, dates and
// the start of the number, a page at a time. A draft is written in a form in place of the list (new, or an edit
// at the version read), whose lines show their net, VAT and gross as they are typed, computed exactly as the API
// computes them (money.js, on the decimal text in BigInt units); once saved, the invoice's card shows the API's
// own amounts. The card posts a draft, edits or deletes it, cancels a posted invoice (a date and a reason), and
// opens the journal entry the posting wrote. The API's refusals read as sentences: a field's problem beside the
// field, a 409 (the invoice posted or cancelled meanwhile, a stale version, a closed period, no CBU rate) in the
// page's alert.
import { ProblemError, describe } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { QUANTITY, UNIT_PRICE, VAT_RATE, formatAmount, formatUnits, groupDigits, invoiceLineUnits, plainAmount } from '../money.js';
import { api, can, company } from '../session.js';
import { accountOption, accountPicker } from './account-picker.js';
import { alignAmounts, failed, fieldMaker, fieldProblems, money, problemType, table, today, uuid } from './common.js';
import { counterpartyPicker } from './counterparty-picker.js';
import { FUNCTIONAL, currencyDecimals } from './currency.js';
import { entryLinks } from './entry-links.js';
import { paymentForm } from './payment-form.js';
import { paymentList } from './payment-list.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['Invoice']} Invoice */
/** @typedef {Schemas['InvoiceKind']} Kind */
/** @typedef {Schemas['InvoiceStatus']} Status */
/** @typedef {Schemas['InvoiceLineInput']} LineInput */
/** @typedef {import('./combobox.js').ComboOption} ComboOption */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {import('./common.js').WayBack} WayBack */

/**
 * The company's VAT setting as the form needs it: `known` false when the caller may not read the accounting
 * settings (the API still applies them); `rate` a percentage's decimal text, null when not saved.
 * @typedef {{ known: boolean, regime: 'GENERAL' | 'SIMPLIFIED' | null, rate: string | null }} VatSetting
 */

const PAGE_SIZES = [10, 25, 50, 100];
const SEARCH_DEBOUNCE_MS = 300;
/** The revenue account a sales line takes unless it names another (the API's default). */
const SALES_REVENUE = '9020';
/** The rates the VAT choice offers besides the company's: Uzbekistan's standard rate and the zero rate. */
const COMMON_RATES = ['12', '0'];
const MAX_LINES = 500;

/** @type {Record<Kind, string>} */
const KIND_LABEL = { SALES: 'Sale', PURCHASE: 'Purchase' };
/** @type {Record<Status, string>} */
const STATUS_LABEL = { DRAFT: 'Draft', POSTED: 'Posted', PAID: 'Paid', CANCELLED: 'Cancelled' };

/**
 * @param {string} [id]
 * @param {string} [action] posting or cancellation
 */
const pathOf = (id, action) => `/api/v1/invoices/${company()}${id ? `/${id}` : ''}${action ? `/${action}` : ''}`;

/**
 * The status as a badge: its word, coloured by status (style.css), the API's value in data-status.
 * @param {Status} status
 * @param {string} [id]
 */
export const statusBadge = (status, id) => h('span', { class: `badge badge-${status.toLowerCase()}`, 'data-status': status, id }, STATUS_LABEL[status] ?? status);

/**
 * "Sales invoice 2026-000001", "Sales invoice (draft)", "Purchase invoice INV-77".
 * @param {Invoice} inv
 */
const titleOf = (inv) => (inv.kind === 'SALES' ? `Sales invoice ${inv.number ?? '(draft)'}` : `Purchase invoice ${inv.number ?? ''}`.trim());

/**
 * A refusal of the API as a sentence: the 409s of a document named by what to do about them, a 403 by what was
 * not allowed; the rest as the API words it.
 * @param {unknown} err
 * @param {'post' | 'cancel' | 'delete' | 'save'} doing
 */
export function invoiceProblem(err, doing) {
  if (!(err instanceof ProblemError)) return describe(err);
  const p = err.problem;
  const done = { post: 'posted', cancel: 'cancelled', delete: 'deleted', save: 'saved' }[doing];
  switch (problemType(err)) {
    case 'document-state': {
      const status = typeof p.documentStatus === 'string' ? (STATUS_LABEL[/** @type {Status} */ (p.documentStatus)] ?? p.documentStatus).toLowerCase() : null;
      return `This invoice was not ${done}: it is ${status ?? 'no longer a draft'} now${p.detail ? ` (${p.detail})` : ''}. The card shows it as it is stored now.`;
    }
    case 'stale-version':
      return `Not ${done}: someone else saved this draft after you opened it. Reload it to see it as it is now, then make your changes again.`;
    case 'period-closed': {
      const through = typeof p.closedThrough === 'string' ? ` through ${p.closedThrough}` : '';
      return doing === 'cancel'
        ? `Not cancelled: the ledger is closed${through}. Date the cancellation after the last close.`
        : `Not posted: the ledger is closed${through}, and an invoice is posted on its own date. Edit the draft's date to one after the last close, or reopen the period.`;
    }
    case 'rate-unavailable': {
      const currencies = Array.isArray(p.currencies) ? p.currencies.join(', ') : 'the invoice\'s currency';
      return `Not posted: the Central Bank (CBU) has no rate of ${currencies} stored on or before ${typeof p.date === 'string' ? p.date : 'the invoice date'}, so the invoice cannot be converted to UZS. ` +
        'Post it once the rate is stored, or edit the draft\'s date or currency.';
    }
    case 'document-has-allocations':
      return `Not cancelled: payments are allocated to this invoice${p.detail ? ` (${p.detail})` : ''}. Cancel those payments first.`;
    case 'supplier-number-exists':
      return `Not ${done}: ${p.detail ?? 'an invoice of this supplier has this number'}. A supplier's number is used once among its invoices not cancelled.`;
    default:
      if (err.status === 403) return `You may not ${doing === 'save' ? 'save' : doing} invoices: ${describe(err)}`;
      return describe(err);
  }
}

/**
 * The section, or the list opened from another view (the aging: one counterparty's open invoices) with its filters
 * set as `preset` says and a way `back` to that view.
 * @param {HTMLElement} body
 * @param {{ counterparty?: ComboOption, kind?: Kind, status?: Status, back?: WayBack }} [preset]
 */
export async function invoices(body, preset = {}) {
  const kind = h('select', { name: 'kind' }, h('option', { value: '' }, 'All'), h('option', { value: 'SALES', selected: preset.kind === 'SALES' }, 'Sales'),
    h('option', { value: 'PURCHASE', selected: preset.kind === 'PURCHASE' }, 'Purchases'));
  const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Any'),
    /** @type {Status[]} */ (['DRAFT', 'POSTED', 'PAID', 'CANCELLED']).map((s) => h('option', { value: s, selected: preset.status === s }, s === 'POSTED' ? 'Posted, not paid' : STATUS_LABEL[s])));
  // The preset counterparty is chosen before the list is first read, which reads it once.
  let ready = false;
  const counterparty = counterpartyPicker({ name: 'counterpartyId', label: 'Counterparty', onChange: () => ready && fromStart() });
  if (preset.counterparty) counterparty.choose(preset.counterparty);
  ready = true;
  const dateFrom = h('input', { type: 'date', name: 'dateFrom' });
  const dateTo = h('input', { type: 'date', name: 'dateTo' });
  const q = h('input', { type: 'search', name: 'q', placeholder: 'Starts with', maxlength: 50, class: 'number-search' });
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 25 }, n)));
  const out = h('div', { id: 'invoice-list', 'aria-live': 'polite', 'aria-busy': 'false' });
  const previous = h('button', { type: 'button', id: 'invoices-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'invoices-next', disabled: true }, 'Next →');
  const pageStatus = h('span', { id: 'invoices-page' });
  let page = 0;
  let reading = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  const filtered = () => Boolean(kind.value || status.value || counterparty.value() || dateFrom.value || dateTo.value || q.value.trim());
  /** Reads the page; a later read wins over an earlier one still on its way, and a failed one shows in its place. */
  const load = async () => {
    clearTimeout(timer);
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    out.setAttribute('aria-busy', 'true');
    /** @type {Record<string, string>} */
    const query = { page: String(page), size: size.value };
    for (const [key, value] of /** @type {[string, string][]} */ ([['kind', kind.value], ['status', status.value], ['counterpartyId', counterparty.value()],
      ['dateFrom', dateFrom.value], ['dateTo', dateTo.value], ['q', q.value.trim()]])) if (value) query[key] = value;
    try {
      const { data } = /** @type {import('../api.js').Reply<'listInvoices'>} */ (await api('GET', `${pathOf()}?${new URLSearchParams(query)}`));
      if (mine !== reading) return;
      // A page past the end (its last invoices deleted meanwhile): the last page there is.
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

  /** @param {Schemas['InvoicePage']} data */
  const draw = (data) => {
    const rows = data.items.map((inv) => {
      const open = h('button', { type: 'button', class: 'link', 'data-action': 'open', 'aria-label': `Open ${titleOf(inv)}, ${inv.counterpartyName}` }, inv.number ?? 'Draft');
      open.addEventListener('click', () => openCard(inv.id));
      const settled = inv.status === 'POSTED' || inv.status === 'PAID';
      return h('tr', { 'data-id': inv.id, 'data-status': inv.status, class: inv.status === 'CANCELLED' ? 'cancelled' : undefined },
        h('td', { class: 'number' }, open),
        h('td', {}, KIND_LABEL[inv.kind]),
        h('td', { class: 'date' }, inv.date),
        h('td', { class: 'date' }, inv.dueDate),
        h('td', { class: 'counterparty' }, inv.counterpartyName),
        h('td', { class: 'num total' }, money(inv.totalGross, inv.currency)),
        h('td', { class: 'num outstanding' }, settled ? money(inv.outstanding, inv.currency) : ''),
        h('td', {}, statusBadge(inv.status)));
    });
    const list = table(['Number', 'Kind', 'Date', 'Due', 'Counterparty', 'Total', 'Outstanding', 'Status'], rows);
    alignAmounts(list, [5, 6]);
    out.replaceChildren(rows.length === 0 ? h('p', { class: 'muted' }, filtered() ? 'No invoice matches these filters.' : 'No invoices yet.') : list);
    pageStatus.textContent = data.totalElements === 0 ? '' : `Page ${data.page + 1} of ${data.totalPages} · ${data.totalElements} ${data.totalElements === 1 ? 'invoice' : 'invoices'}`;
    previous.disabled = data.page === 0;
    next.disabled = data.page >= data.totalPages - 1;
  };

  /** The list's part of the section, kept while a card or the form is drawn in its place. */
  /** @type {ChildNode[]} */
  let saved = [];
  /** @type {WayBack} */
  const back = {
    to: () => {
      body.replaceChildren(...saved);
      void load();
    },
    label: '← All invoices',
  };
  /** @param {string} id */
  const openCard = (id) => {
    clearAlert();
    saved = [...body.childNodes];
    showInvoice(body, id, back).catch((err) => failed(body, err));
  };
  const openEditor = () => {
    clearAlert();
    saved = [...body.childNodes];
    editor(body, null, back).catch((err) => failed(body, err));
  };

  q.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(fromStart, SEARCH_DEBOUNCE_MS);
  });
  for (const control of [kind, status, dateFrom, dateTo, size]) control.addEventListener('change', fromStart);
  previous.addEventListener('click', () => {
    page = Math.max(0, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    page += 1;
    void load();
  });
  const filters = h('form', { class: 'inline filters', role: 'search', id: 'invoice-filters', novalidate: true },
    h('label', {}, 'Kind ', kind), h('label', {}, 'Status ', status), h('label', { class: 'counterparty-filter' }, 'Counterparty ', counterparty.element),
    h('label', {}, 'From ', dateFrom), h('label', {}, 'To ', dateTo), h('label', {}, 'Number ', q), h('button', { type: 'submit' }, 'Search'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    fromStart();
  });

  if (preset.back) body.append(h('button', { type: 'button', class: 'link', onclick: preset.back.to }, preset.back.label));
  body.append(h('h1', {}, 'Invoices'));
  if (can('createInvoice')) body.append(h('button', { type: 'button', id: 'new-invoice', class: 'section-action', onclick: openEditor }, 'New invoice'));
  body.append(filters, out, h('nav', { class: 'pager', 'aria-label': 'Invoice pages' }, previous, pageStatus, next, h('label', {}, 'Per page ', size)));
  await load();
}

/**
 * One invoice read from the API, drawn in `body` as its card.
 * @param {HTMLElement} body
 * @param {string} id
 * @param {WayBack} back
 */
async function showInvoice(body, id, back) {
  const { data } = /** @type {import('../api.js').Reply<'getInvoice'>} */ (await api('GET', pathOf(id)));
  await card(body, data, back);
}

/**
 * The invoice's card drawn in `body` in place of another view (a payment's card, a report), whose way back is
 * `back`; a failed read shows in its place.
 * @param {HTMLElement} body
 * @param {string} id
 * @param {WayBack} back
 */
export function openInvoice(body, id, back) {
  clearAlert();
  showInvoice(body, id, back).catch((err) => failed(body, err));
}

/**
 * The invoice's card: what it is, its lines and totals as the API computed them, and what can be done with it.
 * @param {HTMLElement} body
 * @param {Invoice} inv
 * @param {WayBack} back
 */
async function card(body, inv, back) {
  const again = () => showInvoice(body, inv.id, back).catch((err) => failed(body, err));
  const entryLink = await entryLinks(body, [inv.entryId, inv.cancellation?.entryId].filter(/** @returns {x is string} */ (x) => Boolean(x)), () => void again(), '← Back to the invoice');
  /** The way back to this card, read again, from a view drawn in its place. @type {WayBack} */
  const backHere = { to: () => void again(), label: '← Back to the invoice' };

  /** @type {[string, (Node | string)[] | Node | string][]} */
  const facts = [
    ['Counterparty', inv.counterpartyName],
    [inv.kind === 'SALES' ? 'Number' : 'Supplier\'s number', inv.number ?? h('span', { class: 'muted' }, 'given when posted')],
    ['Date', inv.date],
    ['Due', inv.dueDate],
    ['Currency', inv.currency],
  ];
  if (inv.description) facts.push(['Description', inv.description]);
  facts.push(['Total', money(inv.totalGross, inv.currency)]);
  if (inv.status === 'POSTED' || inv.status === 'PAID') {
    facts.push(['Paid', money(inv.allocated, inv.currency)], ['Outstanding', h('span', { id: 'invoice-outstanding' }, money(inv.outstanding, inv.currency))]);
  }
  if (inv.rate && inv.rateDate) facts.push(['Rate', `1 ${inv.currency} = ${groupDigits(inv.rate)} UZS, CBU ${inv.rateDate}`]);
  if (inv.grossUzs && inv.currency !== FUNCTIONAL) facts.push(['Total in UZS', money(inv.grossUzs, FUNCTIONAL)]);
  if (inv.entryId) {
    facts.push(['Posted', [inv.postedAt ? `${new Date(inv.postedAt).toLocaleString()} · ` : '', entryLink(inv.entryId, 'invoice-entry')]]);
  }
  if (inv.cancellation) {
    facts.push(['Cancelled', [`${inv.cancellation.date}: ${inv.cancellation.reason} · reversed by `, entryLink(inv.cancellation.entryId, 'invoice-reversal')]]);
  }

  const lines = table(['No.', 'Description', 'Account', 'Quantity', `Unit price (${inv.currency})`, `Net (${inv.currency})`, 'VAT rate', `VAT (${inv.currency})`, `Gross (${inv.currency})`],
    inv.lines.map((l) => h('tr', { 'data-line': l.lineNo },
      h('td', {}, l.lineNo),
      h('td', { class: 'description' }, h('div', {}, l.description), l.catalogCode ? h('div', { class: 'muted catalog-code' }, `Catalog code ${l.catalogCode}`) : ''),
      h('td', {}, l.account),
      h('td', { class: 'num' }, groupDigits(l.quantity)),
      h('td', { class: 'num' }, groupDigits(l.unitPrice)),
      h('td', { class: 'num net' }, formatAmount(l.net)),
      h('td', { class: 'num' }, l.vatRate === null ? 'exempt' : `${l.vatRate} %`),
      h('td', { class: 'num vat' }, formatAmount(l.vat)),
      h('td', { class: 'num gross' }, formatAmount(l.gross)))));
  lines.classList.add('invoice-card-lines');
  alignAmounts(lines, [3, 4, 5, 6, 7, 8]);
  lines.append(h('tfoot', {}, h('tr', { class: 'total' },
    h('td', { colspan: 5 }, 'Total'),
    h('td', { class: 'num', id: 'invoice-total-net' }, formatAmount(inv.totalNet)),
    h('td', {}),
    h('td', { class: 'num', id: 'invoice-total-vat' }, formatAmount(inv.totalVat)),
    h('td', { class: 'num', id: 'invoice-total-gross' }, formatAmount(inv.totalGross)))));

  const actions = h('div', { class: 'card-actions', id: 'invoice-actions' });
  /**
   * Runs `work` with the card's buttons disabled; a refusal is said in the page's alert, and a document that
   * changed state meanwhile is read again.
   * @param {'post' | 'cancel' | 'delete'} doing
   * @param {() => Promise<void>} work
   */
  const act = async (doing, work) => {
    clearAlert();
    const buttons = [...actions.querySelectorAll('button')];
    buttons.forEach((b) => (b.disabled = true));
    try {
      await work();
    } catch (err) {
      buttons.forEach((b) => (b.disabled = false));
      const message = invoiceProblem(err, doing);
      // Posted, cancelled or deleted by another request: the card as it is stored now, and why nothing was done.
      if (problemType(err) === 'document-state') await again();
      showAlert(message);
    }
  };

  if (inv.status === 'DRAFT') {
    if (can('postInvoice')) {
      actions.append(h('button', { type: 'button', id: 'post-invoice', onclick: () => act('post', async () => {
        const { data } = /** @type {import('../api.js').Reply<'postInvoice'>} */ (await api('POST', pathOf(inv.id, 'posting')));
        await card(body, data, back);
        showAlert(`Posted ${titleOf(data)} into the journal.`, 'info');
      }) }, 'Post'));
    }
    else actions.append(h('span', { class: 'hint' }, 'An administrator or an accountant posts it.'));
    if (can('updateInvoice')) {
      actions.append(h('button', { type: 'button', id: 'edit-invoice', class: 'secondary', onclick: () => {
        clearAlert();
        editor(body, inv, back, () => void again()).catch((err) => failed(body, err));
      } }, 'Edit'));
    }
    if (can('deleteInvoice')) {
      const confirm = h('span', { class: 'confirm', hidden: true }, 'Delete this draft? ',
        h('button', { type: 'button', id: 'confirm-delete', class: 'danger', onclick: () => act('delete', async () => {
          await api('DELETE', pathOf(inv.id));
          back.to();
          showAlert(`Deleted the draft ${inv.kind === 'SALES' ? 'sales' : 'purchase'} invoice${inv.number ? ` ${inv.number}` : ''} of ${inv.counterpartyName}.`, 'info');
        }) }, 'Delete the draft'),
        h('button', { type: 'button', class: 'link', onclick: () => {
          confirm.hidden = true;
          ask.hidden = false;
          ask.focus();
        } }, 'Keep it'));
      const ask = h('button', { type: 'button', id: 'delete-invoice', class: 'link danger-link', onclick: () => {
        ask.hidden = true;
        confirm.hidden = false;
        /** @type {HTMLButtonElement} */ (confirm.querySelector('button')).focus();
      } }, 'Delete');
      actions.append(ask, confirm);
    }
  }
  // Money in for a sale, out for a purchase: recorded here against what is outstanding, and the counterparty's
  // payments one click away (the API lists a payment's allocations, not an invoice's; each payment's card does).
  if (inv.status === 'POSTED' && can('postPayment')) {
    actions.append(h('button', { type: 'button', id: 'record-payment', onclick: () => {
      clearAlert();
      paymentForm(body, { invoice: inv, back: backHere, openInvoice }).catch((err) => failed(body, err));
    } }, 'Record payment'));
  }
  if (inv.status !== 'DRAFT' && can('listPayments')) {
    actions.append(h('button', { type: 'button', id: 'invoice-payments', class: 'link', onclick: () => {
      clearAlert();
      paymentList(body, { counterparty: { value: inv.counterpartyId, label: inv.counterpartyName }, direction: inv.kind === 'SALES' ? 'IN' : 'OUT', back: backHere, openInvoice })
        .catch((err) => failed(body, err));
    } }, `Payments ${inv.kind === 'SALES' ? 'from' : 'to'} ${inv.counterpartyName}`));
  }
  /** @type {HTMLFormElement | null} */
  let cancelForm = null;
  if ((inv.status === 'POSTED' || inv.status === 'PAID') && can('cancelInvoice')) {
    const date = h('input', { type: 'date', name: 'date', required: true, value: today() < inv.date ? inv.date : today(), min: inv.date });
    const reason = h('input', { name: 'reason', required: true, maxlength: 500, class: 'reason' });
    const form = h('form', { id: 'cancel-invoice', class: 'inline cancel-form', novalidate: true, hidden: true },
      h('p', { class: 'hint' }, 'Cancelling posts the reversal of the invoice\'s entry, dated as you say (on or after the invoice\'s date, after the last close).'),
      h('label', {}, 'Cancel on ', date),
      h('label', {}, 'Reason ', reason),
      h('button', { type: 'submit', class: 'danger' }, 'Cancel the invoice'),
      h('button', { type: 'button', class: 'link', onclick: () => {
        form.hidden = true;
        open.hidden = false;
        open.focus();
      } }, 'Keep it'));
    const open = h('button', { type: 'button', id: 'open-cancel', class: 'secondary', onclick: () => {
      open.hidden = true;
      form.hidden = false;
      reason.focus();
    } }, 'Cancel the invoice…');
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      clearAlert();
      if (!date.value || !reason.value.trim()) {
        (date.value ? reason : date).setAttribute('aria-invalid', 'true');
        (date.value ? reason : date).focus();
        return showAlert(date.value ? 'Say why the invoice is cancelled.' : 'Choose the date of the cancellation.');
      }
      date.removeAttribute('aria-invalid');
      reason.removeAttribute('aria-invalid');
      void busy(form, () => act('cancel', async () => {
        // A fresh requestId for each cancellation asked for: the API answers a repeat of one as it answered it.
        const cancellation = /** @satisfies {import('../api.js').RequestBody<'cancelInvoice'>} */ ({ requestId: uuid(), date: date.value, reason: reason.value.trim() });
        const { data } = /** @type {import('../api.js').Reply<'cancelInvoice'>} */ (await api('POST', pathOf(inv.id, 'cancellation'), cancellation));
        await card(body, data, back);
        showAlert(`Cancelled ${titleOf(data)}: its entry is reversed.`, 'info');
      }));
    });
    actions.append(open);
    cancelForm = form;
  }

  const heading = h('h1', { tabindex: -1, id: 'invoice-title' }, titleOf(inv), ' ', statusBadge(inv.status, 'invoice-status'));
  body.replaceChildren(
    h('button', { type: 'button', class: 'link', onclick: back.to }, back.label),
    heading,
    h('dl', { class: 'invoice-facts' }, facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]).flat()),
    h('div', { class: 'lines' }, lines),
    actions.childElementCount ? actions : '',
    cancelForm ?? '',
  );
  heading.focus();
}

/**
 * The company's VAT setting; unknown (not an error) to a caller who may not read the accounting settings.
 * @returns {Promise<VatSetting>}
 */
async function vatSetting() {
  if (!can('getCompanyAccountingSettings')) return { known: false, regime: null, rate: null };
  try {
    const { data } = /** @type {import('../api.js').Reply<'getCompanyAccountingSettings'>} */ (await api('GET', `/api/v1/accounting-settings/${company()}`));
    // A percentage with at most two decimals, as the API keeps it: its shortest text is its decimal ("12", "12.5").
    return { known: true, regime: data.taxRegime ?? null, rate: typeof data.vatRate === 'number' ? String(data.vatRate) : null };
  } catch {
    return { known: false, regime: null, rate: null };
  }
}

/**
 * The accounts of `codes` as the account picker offers them (code and name); a code that cannot be read stands
 * by itself, for the API to check.
 * @param {string[]} codes
 * @returns {Promise<Map<string, ComboOption>>}
 */
async function accountOptions(codes) {
  /** @type {Map<string, ComboOption>} */
  const found = new Map();
  await Promise.all([...new Set(codes)].map(async (code) => {
    try {
      const query = new URLSearchParams({ header: 'false', size: '20', q: code });
      const { data } = /** @type {import('../api.js').Reply<'listCompanyAccounts'>} */ (await api('GET', `/api/v1/accounting-settings/${company()}/accounts?${query}`));
      const account = data.items.find((a) => a.code === code);
      if (account) found.set(code, accountOption(account));
    } catch {
      // the code stands by itself
    }
  }));
  for (const code of codes) if (!found.has(code)) found.set(code, { value: code, label: code, exact: [code] });
  return found;
}

/**
 * A line of the form: its controls, its preview cells and the lines its problems show on.
 * @typedef {object} LineRow
 * @property {HTMLTableRowElement} tr
 * @property {HTMLInputElement} description
 * @property {HTMLInputElement} catalogCode
 * @property {HTMLInputElement} quantity
 * @property {HTMLInputElement} unitPrice
 * @property {import('./combobox.js').Combobox} account
 * @property {HTMLSelectElement} vatChoice
 * @property {HTMLInputElement} vatOther
 * @property {HTMLElement} net
 * @property {HTMLElement} vat
 * @property {HTMLElement} gross
 * @property {HTMLButtonElement} remove
 * @property {Record<LineField, HTMLElement>} errors
 * @property {boolean} defaultAccount the account is the sales default the form put there, not one chosen
 */
/** @typedef {'description' | 'catalogCode' | 'quantity' | 'unitPrice' | 'account' | 'vatRate'} LineField */
const LINE_FIELDS = /** @type {LineField[]} */ (['description', 'catalogCode', 'quantity', 'unitPrice', 'account', 'vatRate']);

/**
 * The form that drafts an invoice (`inv` null) or edits a draft, drawn in `body`; saved, the invoice's card
 * replaces it (whose way back is `back`, to the list); `leave` is the way out without saving.
 * @param {HTMLElement} body
 * @param {Invoice | null} inv
 * @param {WayBack} back
 * @param {() => void} [leave]
 */
async function editor(body, inv, back, leave = back.to) {
  const accountCodes = inv ? inv.lines.map((l) => l.account) : [];
  const [vat, accounts] = await Promise.all([vatSetting(), accountOptions([SALES_REVENUE, ...accountCodes])]);
  const revenue = /** @type {ComboOption} */ (accounts.get(SALES_REVENUE));
  const simplified = vat.regime === 'SIMPLIFIED';

  /** The field each problem path names, and the line its problem shows on. */
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  /** The API's problems of the last refusal, each shown until its field is edited. */
  /** @type {FieldProblem[]} */
  let fromApi = [];

  const field = fieldMaker(places, 'invoice');

  const kind = h('select', { name: 'kind', disabled: Boolean(inv) },
    h('option', { value: 'SALES', selected: inv?.kind !== 'PURCHASE' }, 'Sale, to a customer'),
    h('option', { value: 'PURCHASE', selected: inv?.kind === 'PURCHASE' }, 'Purchase, from a supplier'));
  const number = h('input', { name: 'number', value: inv?.kind === 'PURCHASE' ? inv.number ?? '' : '', maxlength: 50, autocomplete: 'off' });
  const date = h('input', { type: 'date', name: 'date', required: true, value: inv?.date ?? today() });
  const dueDate = h('input', { type: 'date', name: 'dueDate', value: inv?.dueDate ?? '' });
  const counterparty = counterpartyPicker({ label: 'Counterparty' });
  if (inv) counterparty.choose({ value: inv.counterpartyId, label: inv.counterpartyName });
  const currency = h('input', { name: 'currency', value: inv?.currency ?? FUNCTIONAL, maxlength: 3, autocomplete: 'off', spellcheck: 'false', class: 'currency-code' });
  const description = h('input', { name: 'description', id: 'invoice-description', value: inv?.description ?? '', maxlength: 500 });
  const numberField = field('number', 'Supplier\'s invoice number', number, 'As the supplier numbered it.');
  const kindOf = () => /** @type {Kind} */ (kind.value);

  // The lines.
  const tbody = h('tbody');
  /** @type {LineRow[]} */
  const rows = [];
  const addLine = h('button', { type: 'button', class: 'link', id: 'add-invoice-line' }, 'Add a line');
  const totalNet = h('td', { class: 'num', id: 'invoice-preview-net' });
  const totalVat = h('td', { class: 'num', id: 'invoice-preview-vat' });
  const totalGross = h('td', { class: 'num', id: 'invoice-preview-gross' });
  const totalLabel = h('td', { colspan: 5 }, 'Total');
  const previewNote = h('p', { class: 'hint', id: 'invoice-preview-note', 'aria-live': 'polite' });
  const linesError = h('span', { class: 'field-error', id: 'invoice-lines-error', hidden: true });
  places.set('lines', { controls: [], error: linesError });

  /**
   * The choices of a line's VAT: the company's rate (what the API applies when the line names none), a specific
   * rate, exempt (null), or another rate typed. Under the simplified regime no line carries VAT.
   * @param {string | null | undefined} stored the line's rate as saved, undefined for a new line
   */
  const vatChoices = (stored) => {
    if (simplified) return [h('option', { value: 'company' }, 'No VAT (simplified regime)')];
    const companyLabel = vat.rate !== null ? `Company ${vat.rate} %` : vat.known ? 'Company (not set)' : 'Company rate';
    const rates = [...new Set([...(vat.rate !== null ? [vat.rate] : []), ...COMMON_RATES, ...(typeof stored === 'string' ? [stored] : [])])];
    const chosen = stored === undefined ? 'company' : stored === null ? 'exempt' : `rate:${stored}`;
    return [
      h('option', { value: 'company', selected: chosen === 'company' }, companyLabel),
      ...rates.map((r) => h('option', { value: `rate:${r}`, selected: chosen === `rate:${r}` }, `${r} %`)),
      h('option', { value: 'exempt', selected: chosen === 'exempt' }, 'Exempt'),
      h('option', { value: 'other' }, 'Other rate…'),
    ];
  };

  /**
   * A line's VAT rate as the preview applies it: a percentage's text, null for none, undefined when unknown
   * (the company's rate unread) or not yet a rate.
   * @param {LineRow} row
   * @returns {string | null | undefined}
   */
  const rateOf = (row) => {
    const choice = row.vatChoice.value;
    if (simplified || choice === 'exempt') return null;
    if (choice === 'company') return vat.rate ?? undefined;
    if (choice === 'other') return VAT_RATE.test(row.vatOther.value.trim()) ? row.vatOther.value.trim() : undefined;
    return choice.slice('rate:'.length);
  };

  /** Numbers the lines, their labels and their problem places after a line comes or goes. */
  const renumber = () => {
    fromApi = fromApi.filter((p) => !p.path.startsWith('lines/'));
    [...places.keys()].filter((k) => k.startsWith('lines/')).forEach((k) => places.delete(k));
    rows.forEach((row, i) => {
      const n = i + 1;
      /** @type {HTMLElement} */ (row.tr.querySelector('.line-no')).textContent = String(n);
      row.tr.setAttribute('aria-label', `Line ${n}`);
      /** @type {[LineField, HTMLElement, string][]} */
      const labelled = [['description', row.description, `Description of line ${n}`], ['catalogCode', row.catalogCode, `Catalog code of line ${n}`],
        ['quantity', row.quantity, `Quantity of line ${n}`], ['unitPrice', row.unitPrice, `Unit price of line ${n}`],
        ['account', row.account.input, `Account of line ${n}`], ['vatRate', row.vatChoice, `VAT of line ${n}`]];
      for (const [name, control, label] of labelled) {
        control.setAttribute('aria-label', label);
        row.errors[name].id = `invoice-line-${n}-${name}-error`;
        control.setAttribute('aria-describedby', row.errors[name].id);
        const controls = name === 'vatRate' ? [row.vatChoice, row.vatOther] : [control];
        places.set(`lines/${i}/${name}`, { controls, error: row.errors[name] });
      }
      row.vatOther.setAttribute('aria-label', `VAT rate of line ${n} (%)`);
      row.vatOther.setAttribute('aria-describedby', row.errors.vatRate.id);
      places.set(`lines/${i}`, { controls: [], error: row.errors.description });
      row.remove.setAttribute('aria-label', `Remove line ${n}`);
      row.remove.title = `Remove line ${n}`;
      row.remove.disabled = rows.length === 1;
    });
    addLine.disabled = rows.length >= MAX_LINES;
  };

  /**
   * A new line, or one of the draft's.
   * @param {Schemas['InvoiceLine']} [line]
   */
  const lineRow = (line) => {
    const errors = /** @type {Record<LineField, HTMLElement>} */ (Object.fromEntries(LINE_FIELDS.map((f) => [f, h('span', { class: 'field-error', hidden: true })])));
    const account = accountPicker({ name: 'account', onChange: () => (row.defaultAccount = false) });
    /** @type {LineRow} */
    const row = {
      tr: h('tr', { class: 'invoice-line' }),
      description: h('input', { name: 'description', value: line?.description ?? '', maxlength: 500, autocomplete: 'off' }),
      catalogCode: h('input', { name: 'catalogCode', value: line?.catalogCode ?? '', inputmode: 'numeric', maxlength: 17, autocomplete: 'off', placeholder: 'Catalog code (IKPU)', class: 'catalog-code' }),
      quantity: h('input', { name: 'quantity', value: line ? groupDigits(line.quantity) : '1', inputmode: 'decimal', maxlength: 24, autocomplete: 'off', class: 'quantity' }),
      unitPrice: h('input', { name: 'unitPrice', value: line ? groupDigits(line.unitPrice) : '', inputmode: 'decimal', maxlength: 30, autocomplete: 'off', class: 'unit-price' }),
      account,
      vatChoice: h('select', { name: 'vatChoice' }, vatChoices(line === undefined ? undefined : line.vatRate === null ? null : String(line.vatRate))),
      vatOther: h('input', { name: 'vatRate', inputmode: 'decimal', maxlength: 6, autocomplete: 'off', placeholder: '%', class: 'vat-other', hidden: true }),
      net: h('output', { class: 'net' }),
      vat: h('output', { class: 'vat' }),
      gross: h('output', { class: 'gross' }),
      remove: h('button', { type: 'button', class: 'link remove-line' }, '✕'),
      errors,
      defaultAccount: false,
    };
    if (line) account.choose(accounts.get(line.account) ?? { value: line.account, label: line.account, exact: [line.account] });
    else if (kindOf() === 'SALES') account.choose(revenue);
    row.defaultAccount = !line && kindOf() === 'SALES';
    row.tr.append(
      h('td', { class: 'line-no' }),
      h('td', { class: 'description' }, row.description, errors.description, row.catalogCode, errors.catalogCode),
      h('td', { class: 'quantity' }, row.quantity, errors.quantity),
      h('td', { class: 'unit-price' }, row.unitPrice, errors.unitPrice),
      h('td', { class: 'account' }, account.element, errors.account),
      h('td', { class: 'vat-rate' }, row.vatChoice, row.vatOther, errors.vatRate),
      h('td', { class: 'num' }, row.net),
      h('td', { class: 'num' }, row.vat),
      h('td', { class: 'num' }, row.gross),
      h('td', {}, row.remove));
    row.vatChoice.addEventListener('change', () => {
      row.vatOther.hidden = row.vatChoice.value !== 'other';
      if (!row.vatOther.hidden) row.vatOther.focus();
    });
    row.remove.addEventListener('click', () => {
      const at = rows.indexOf(row);
      if (rows.length === 1 || at < 0) return;
      rows.splice(at, 1);
      row.tr.remove();
      renumber();
      preview();
      (rows[at] ?? rows[at - 1]).description.focus();
    });
    return row;
  };
  /** @param {Schemas['InvoiceLine']} [line] */
  const appendLine = (line) => {
    const row = lineRow(line);
    rows.push(row);
    tbody.append(row.tr);
    renumber();
    return row;
  };
  (inv?.lines.length ? inv.lines : [undefined]).forEach((line) => appendLine(line));
  addLine.addEventListener('click', () => {
    if (rows.length >= MAX_LINES) return;
    appendLine().description.focus();
    preview();
  });

  /** Sales lines start on revenue (9020) and purchase lines name their own account: the default follows the kind. */
  const kindChanged = () => {
    numberField.hidden = kindOf() !== 'PURCHASE';
    for (const row of rows) {
      if (kindOf() === 'SALES' && !row.account.value() && !row.account.text()) {
        row.account.choose(revenue);
        row.defaultAccount = true;
      } else if (kindOf() === 'PURCHASE' && row.defaultAccount) {
        row.account.choose(null);
        row.defaultAccount = false;
      }
    }
  };
  kind.addEventListener('change', kindChanged);
  numberField.hidden = kindOf() !== 'PURCHASE';

  /** The currency's decimals, which the API rounds to (2 until the code is one). */
  const decimalsOf = () => (/^[A-Z]{3}$/.test(currency.value.trim()) ? currencyDecimals(currency.value.trim()) : 2);

  /**
   * Each line's net, VAT and gross, and the totals, as the API will compute them: exact, on the typed decimals.
   * A line not yet complete shows nothing and is left out of the totals, which say so.
   */
  const preview = () => {
    const decimals = decimalsOf();
    const code = /^[A-Z]{3}$/.test(currency.value.trim()) ? currency.value.trim() : '';
    /** @param {bigint} units */
    const show = (units) => groupDigits(formatUnits(units, decimals));
    let net = 0n;
    let tax = 0n;
    let taxKnown = true;
    /** @type {number[]} */
    const incomplete = [];
    rows.forEach((row, i) => {
      const quantity = plainAmount(row.quantity.value.trim());
      const unitPrice = plainAmount(row.unitPrice.value.trim());
      if (!QUANTITY.test(quantity) || !/[1-9]/.test(quantity) || !UNIT_PRICE.test(unitPrice)) {
        row.net.textContent = row.vat.textContent = row.gross.textContent = '';
        incomplete.push(i + 1);
        return;
      }
      const rate = rateOf(row);
      const units = invoiceLineUnits(quantity, unitPrice, rate ?? null, decimals);
      net += units.net;
      row.net.textContent = show(units.net);
      if (rate === undefined) {
        taxKnown = false;
        row.vat.textContent = row.gross.textContent = '—';
        return;
      }
      tax += units.vat;
      row.vat.textContent = show(units.vat);
      row.gross.textContent = show(units.gross);
    });
    totalLabel.textContent = code ? `Total (${code})` : 'Total';
    totalNet.textContent = show(net);
    totalVat.textContent = taxKnown ? show(tax) : '—';
    totalGross.textContent = taxKnown ? show(net + tax) : '—';
    const notes = [];
    if (incomplete.length) notes.push(`Not counted until its quantity and unit price are numbers: line ${incomplete.join(', ')}.`);
    if (!taxKnown) {
      notes.push(vat.known
        ? 'The company\'s VAT rate is not set: choose each line\'s rate, or save the accounting settings.'
        : 'The company\'s VAT rate is applied when the draft is saved; the card then shows the VAT.');
    }
    notes.push('A preview computed as the API computes it (each line rounded half-up to the currency\'s decimals); the saved invoice shows the API\'s amounts.');
    previewNote.textContent = notes.join(' ');
  };

  /**
   * What is wrong with the form as typed, each at the path the API would name it by.
   * @returns {FieldProblem[]}
   */
  const check = () => {
    /** @type {FieldProblem[]} */
    const problems = [];
    /**
     * @param {string} path
     * @param {string | null | false} message
     */
    const add = (path, message) => {
      if (message) problems.push({ path, message });
    };
    if (kindOf() === 'PURCHASE') add('number', !number.value.trim() && 'Enter the supplier\'s invoice number.');
    add('date', !date.value && 'Choose the invoice\'s date.');
    add('dueDate', Boolean(date.value && dueDate.value && dueDate.value < date.value) && 'The due date is on or after the invoice\'s date.');
    add('counterpartyId', !counterparty.value() && (counterparty.text() ? `Choose “${counterparty.text()}” from the list.` : 'Choose the counterparty.'));
    add('currency', !/^[A-Z]{3}$/.test(currency.value.trim()) && 'A currency is its three-letter code, e.g. UZS or USD.');
    rows.forEach((row, i) => {
      const quantity = plainAmount(row.quantity.value.trim());
      const unitPrice = plainAmount(row.unitPrice.value.trim());
      add(`lines/${i}/description`, !row.description.value.trim() && 'Describe what is sold or bought.');
      add(`lines/${i}/quantity`, !QUANTITY.test(quantity) ? 'A number with at most three decimals.' : !/[1-9]/.test(quantity) && 'Above zero.');
      add(`lines/${i}/unitPrice`, !UNIT_PRICE.test(unitPrice) && 'A price with at most four decimals.');
      const typed = row.account.text();
      add(`lines/${i}/account`, !row.account.value() && (typed ? `“${typed}” is not an account that takes lines; choose one from the list.` : kindOf() === 'PURCHASE' ? 'Choose the expense, inventory or asset account.' : 'Choose the revenue account.'));
      add(`lines/${i}/vatRate`, row.vatChoice.value === 'other' && !VAT_RATE.test(row.vatOther.value.trim()) && 'A percentage from 0 to 100, at most two decimals.');
      add(`lines/${i}/catalogCode`, Boolean(row.catalogCode.value.trim()) && !/^[0-9]{17}$/.test(row.catalogCode.value.trim()) && 'The catalog code (IKPU) is 17 digits.');
    });
    return problems;
  };

  const { shown, clear: clearProblems, show: showProblems } = fieldProblems(places);
  const firstMarked = () => /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]:not([hidden])'));

  /** The problem paths a control answers to. @param {EventTarget | null} target */
  const pathsOf = (target) => [...places.entries()].filter(([, place]) => place.controls.includes(/** @type {HTMLElement} */ (target))).map(([key]) => key);
  // A field's problem shows once it is left, and goes as soon as it is mended; the API's word on a field holds
  // until the field is edited.
  /** @param {Event} event */
  const recheck = (event) => {
    const leaving = event.type === 'change';
    const mine = pathsOf(event.target);
    if (!mine.length) return;
    if (!leaving && !mine.some((path) => shown.has(path))) return;
    if (!leaving) fromApi = fromApi.filter((p) => !mine.includes(p.path));
    showProblems([...check().filter((p) => shown.has(p.path) || (leaving && mine.includes(p.path))), ...fromApi]);
  };

  const formNotice = h('div', { id: 'invoice-form-notice' });
  const heading = h('h1', { tabindex: -1 }, inv ? `Edit ${titleOf(inv)}` : 'New invoice');
  const lineTable = table(['No.', 'Description and catalog code', 'Quantity', 'Unit price', 'Account', 'VAT rate', 'Net', 'VAT', 'Gross', ''], tbody);
  lineTable.classList.add('invoice-lines');
  alignAmounts(lineTable, [6, 7, 8]);
  lineTable.append(h('tfoot', {}, h('tr', { class: 'total' }, totalLabel, h('td', {}, ''), totalNet, totalVat, totalGross, h('td', {}))));
  const form = h('form', { id: 'invoice-form', class: 'invoice-form', novalidate: true },
    h('div', { class: 'field-row' },
      field('kind', 'Kind', kind, inv ? 'A saved draft keeps its kind.' : undefined),
      numberField,
      field('date', 'Date', date),
      field('dueDate', 'Due date', dueDate, 'Empty: the date plus the counterparty\'s payment terms.')),
    h('div', { class: 'field-row' },
      field('counterpartyId', 'Counterparty', counterparty.element, undefined, counterparty.input),
      field('currency', 'Currency', currency, 'UZS, or converted at the CBU rate of the date when posted.')),
    field('description', 'Description (optional)', description),
    h('fieldset', { class: 'invoice-lines-set' }, h('legend', {}, 'Lines'),
      h('div', { class: 'lines' }, lineTable),
      linesError,
      h('div', { class: 'line-actions' }, addLine),
      previewNote),
    formNotice,
    h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Save the draft'), h('button', { type: 'button', class: 'link', onclick: leave }, inv ? 'Discard the changes' : 'Discard')));
  form.addEventListener('input', (event) => {
    preview();
    recheck(event);
  });
  form.addEventListener('change', (event) => {
    const target = /** @type {HTMLInputElement} */ (event.target);
    // A typed quantity or price is shown grouped once its field is left, as the console shows amounts.
    if (target.name === 'quantity' || target.name === 'unitPrice') {
      const plain = plainAmount(target.value.trim());
      if (/^[0-9]+(\.[0-9]+)?$/.test(plain)) target.value = groupDigits(plain);
    }
    if (target === currency) currency.value = currency.value.trim().toUpperCase();
    preview();
    recheck(event);
  });
  currency.addEventListener('input', () => {
    const at = currency.selectionStart;
    currency.value = currency.value.toUpperCase();
    currency.setSelectionRange(at, at);
  });

  /**
   * The body the API takes but its kind (which a saved draft keeps): every line, in the order shown, so a
   * problem's line index is the row's.
   * @returns {Omit<import('../api.js').RequestBody<'createInvoice'>, 'kind'>}
   */
  const content = () => ({
    ...(kindOf() === 'PURCHASE' ? { number: number.value.trim() } : {}),
    date: date.value,
    ...(dueDate.value ? { dueDate: dueDate.value } : {}),
    counterpartyId: counterparty.value(),
    currency: currency.value.trim(),
    description: description.value.trim() || null,
    lines: rows.map((row) => {
      const choice = row.vatChoice.value;
      /** @type {LineInput} */
      const line = {
        description: row.description.value.trim(),
        quantity: plainAmount(row.quantity.value.trim()),
        unitPrice: plainAmount(row.unitPrice.value.trim()),
        account: row.account.value(),
      };
      // Left out, the company's rate; null, exempt; a number, that rate (its text has at most two decimals,
      // which the JSON number keeps exactly as typed).
      if (!simplified && choice === 'exempt') line.vatRate = null;
      else if (!simplified && choice === 'other') line.vatRate = Number(row.vatOther.value.trim());
      else if (!simplified && choice.startsWith('rate:')) line.vatRate = Number(choice.slice('rate:'.length));
      if (row.catalogCode.value.trim()) line.catalogCode = row.catalogCode.value.trim();
      return line;
    }),
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    formNotice.replaceChildren();
    fromApi = [];
    const problems = check();
    if (problems.length) {
      showProblems(problems);
      showAlert('Check the fields marked below.');
      return firstMarked()?.focus();
    }
    clearProblems();
    const draft = content();
    void busy(form, async () => {
      try {
        let saved;
        if (inv) {
          const update = /** @satisfies {import('../api.js').RequestBody<'updateInvoice'>} */ ({ ...draft, expectedVersion: inv.version });
          saved = /** @type {import('../api.js').Reply<'updateInvoice'>} */ (await api('PUT', pathOf(inv.id), update)).data;
        } else {
          const create = /** @satisfies {import('../api.js').RequestBody<'createInvoice'>} */ ({ kind: kindOf(), ...draft });
          saved = /** @type {import('../api.js').Reply<'createInvoice'>} */ (await api('POST', pathOf(), create)).data;
        }
        await card(body, saved, back);
        showAlert(`Saved the draft: ${groupDigits(saved.totalGross)} ${saved.currency} in all, as the API computed it.`, 'info');
      } catch (err) {
        refused(err);
      }
    });
  });

  /**
   * A refusal: a stale version offers to read the draft again; a draft posted meanwhile, its card; problems of
   * `errors` (and a supplier's number taken) show at their fields; the rest in the page's alert.
   * @param {unknown} err
   */
  const refused = (err) => {
    const message = invoiceProblem(err, 'save');
    if (!(err instanceof ProblemError)) return showAlert(message);
    const type = problemType(err);
    if (inv && (type === 'stale-version' || type === 'document-state')) {
      showAlert(message);
      const stale = type === 'stale-version';
      formNotice.replaceChildren(h('div', { class: 'alert error stale', role: 'alert' },
        h('span', {}, stale ? 'This draft was saved by someone else after you opened it, so your changes are not saved. ' : 'This invoice is no longer a draft, so it is not edited. '),
        h('button', { type: 'button', class: 'link', onclick: () => void reload(stale) }, stale ? 'Reload the draft' : 'Open the invoice')));
      return;
    }
    /** @type {FieldProblem[]} */
    const problems = (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));
    if (type === 'supplier-number-exists') problems.push({ path: 'number', message: err.problem.detail ?? 'An invoice of this supplier has this number.' });
    fromApi = problems.filter((p) => places.has(p.path));
    const elsewhere = showProblems(problems);
    if (problems.length > elsewhere.length) {
      showAlert(`${type === 'supplier-number-exists' ? message : `${err.problem.title ?? 'Not saved'}: check the fields marked below.`}${elsewhere.length ? ` ${elsewhere.map((p) => `${p.path} ${p.message}`).join('; ')}` : ''}`);
      return firstMarked()?.focus();
    }
    showAlert(message);
  };
  /**
   * Reads the invoice again: a draft into the form (the edits dropped), anything else into its card.
   * @param {boolean} asDraft
   */
  const reload = async (asDraft) => {
    if (!inv) return;
    try {
      const { data } = /** @type {import('../api.js').Reply<'getInvoice'>} */ (await api('GET', pathOf(inv.id)));
      clearAlert();
      if (asDraft && data.status === 'DRAFT') {
        await editor(body, data, back, leave);
        showAlert(`Reloaded the draft as it is stored now (version ${data.version}).`, 'info');
      } else await card(body, data, back);
    } catch (err) {
      showAlert(describe(err));
    }
  };

  preview();
  body.replaceChildren(h('button', { type: 'button', class: 'link', onclick: leave }, inv ? '← Back to the invoice' : '← All invoices'), heading, form);
  if (inv) rows[0].description.focus();
  else kind.focus();
}
