// @ts-check
// #vat-register: the month's VAT register of sales (output VAT) or purchases (input VAT): its totals per rate and
// for the month, the VAT account's turnover from the invoices' entries beside the total VAT (the two tie), and its
// rows a page at a time, as the account statement pages its lines. An invoice's number opens its card in place of
// the register. The CSV and XLSX files have every row of the month.
import { h } from '../dom.js';
import { formatAmount, formatMinor, toMinor } from '../money.js';
import { api, can, company } from '../session.js';
import { alignAmounts, failed, table, today } from './common.js';
import { downloadButtons } from './download.js';
import { openInvoice } from './invoices.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['VatRegister']} VatRegister */

const PAGE_SIZES = [10, 25, 50, 100];

/**
 * A signed UZS amount of the register ("-1250.50") in minor units.
 * @param {string} text
 */
const signedMinor = (text) => (text.startsWith('-') ? -toMinor(text.slice(1)) : toMinor(text));

/**
 * A rate of the register: "12 %", or "exempt" for null.
 * @param {number | null} rate
 */
const rateText = (rate) => (rate === null ? 'exempt' : `${rate} %`);

/** @param {HTMLElement} body */
export async function vatRegister(body) {
  // A browser without a month picker shows a text box: the pattern says what it takes.
  const month = h('input', { type: 'month', name: 'month', value: today().slice(0, 7), required: true, pattern: '[0-9]{4}-[0-9]{2}', placeholder: 'YYYY-MM' });
  const side = h('select', { name: 'side' }, h('option', { value: 'SALES' }, 'Sales: output VAT (6410)'), h('option', { value: 'PURCHASES' }, 'Purchases: input VAT (4410)'));
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 50 }, n)));
  const summary = h('div', { id: 'vat-register-totals', 'aria-live': 'polite' });
  const out = h('div', { id: 'vat-register' });
  const previous = h('button', { type: 'button', id: 'vat-register-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'vat-register-next', disabled: true }, 'Next →');
  const status = h('span', { id: 'vat-register-page', 'aria-live': 'polite' });
  let page = 0;
  let reading = 0;

  /** @param {{ page?: string, size?: string }} [extra] */
  const path = (extra = {}) => `/api/v1/ledger/${company()}/reports/vat-register?${new URLSearchParams({ month: month.value, side: side.value, ...extra })}`;

  /**
   * An invoice's card in place of the register; the way back returns to this page of it, read again.
   * @param {string} id
   */
  const open = (id) => {
    const saved = [...body.childNodes];
    openInvoice(body, id, { to: () => {
      body.replaceChildren(...saved);
      void load();
    }, label: '← Back to the VAT register' });
  };

  /** @param {VatRegister} r */
  const drawTotals = (r) => {
    const byRate = table(['Rate', 'Net (UZS)', 'VAT (UZS)', 'Gross (UZS)'], [
      ...r.totalsByRate.map((t) => h('tr', { 'data-rate': t.rate === null ? 'exempt' : String(t.rate) },
        h('td', {}, rateText(t.rate)), h('td', { class: 'num net' }, formatAmount(t.net)), h('td', { class: 'num vat' }, formatAmount(t.vat)), h('td', { class: 'num gross' }, formatAmount(t.gross)))),
      h('tr', { class: 'total', id: 'vat-register-total' }, h('td', {}, 'Total'),
        h('td', { class: 'num net' }, formatAmount(r.totals.net)), h('td', { class: 'num vat' }, formatAmount(r.totals.vat)), h('td', { class: 'num gross' }, formatAmount(r.totals.gross))),
    ]);
    byRate.classList.add('vat-totals');
    alignAmounts(byRate, [1, 2, 3]);
    const difference = signedMinor(r.ledgerVat) - signedMinor(r.totals.vat);
    const account = r.side === 'SALES' ? '6410' : '4410';
    summary.replaceChildren(
      h('h2', {}, `Totals of ${r.month}`),
      r.totalsByRate.length ? byRate : h('p', { class: 'muted' }, 'No invoice of this side in the month.'),
      h('dl', { class: 'statement-summary ledger-vat' },
        h('dt', {}, 'VAT in the register'), h('dd', { id: 'register-vat' }, formatAmount(r.totals.vat)),
        h('dt', {}, `VAT in the ledger (${account}, invoice entries)`), h('dd', { id: 'ledger-vat' }, formatAmount(r.ledgerVat)),
        h('dt', {}, 'Tie'), h('dd', { id: 'vat-tie', 'data-ties': String(difference === 0n), class: difference === 0n ? '' : 'field-error' },
          difference === 0n ? 'The register ties to the ledger.' : `The ledger differs by ${formatAmount(formatMinor(difference))}.`)),
    );
  };

  /** @param {VatRegister} r */
  const draw = (r) => {
    drawTotals(r);
    const withLinks = can('getInvoice');
    const rows = r.rows.map((row) => h('tr', { 'data-invoice': row.invoiceId, 'data-kind': row.kind, class: row.kind === 'CANCELLATION' ? 'cancellation' : undefined },
      h('td', { class: 'date' }, row.date),
      h('td', { class: 'number' }, withLinks ? h('button', { type: 'button', class: 'link', 'data-action': 'open-invoice', onclick: () => open(row.invoiceId) }, row.number) : row.number),
      h('td', {}, row.kind === 'CANCELLATION' ? 'Cancellation' : 'Invoice'),
      h('td', { class: 'counterparty' }, row.counterpartyName),
      h('td', { class: 'identification' }, row.counterpartyTin ?? ''),
      h('td', { class: 'identification' }, row.vatRegistrationCode ?? ''),
      h('td', {}, row.currency),
      h('td', { class: 'num rate' }, rateText(row.rate)),
      h('td', { class: 'num net' }, formatAmount(row.net)),
      h('td', { class: 'num vat' }, formatAmount(row.vat)),
      h('td', { class: 'num gross' }, formatAmount(row.gross))));
    const t = table(['Date', 'Number', 'Kind', 'Counterparty', 'TIN or PINFL', 'VAT code', 'Currency', 'Rate', 'Net (UZS)', 'VAT (UZS)', 'Gross (UZS)'], rows);
    t.classList.add('vat-rows');
    alignAmounts(t, [7, 8, 9, 10]);
    out.replaceChildren(h('h2', {}, 'Invoices'), rows.length ? t : h('p', { class: 'muted' }, 'No rows in this month.'));
    status.textContent = r.totalElements === 0 ? 'No rows' : `Page ${r.page + 1} of ${r.totalPages} · ${r.totalElements} ${r.totalElements === 1 ? 'row' : 'rows'}`;
    // What the page drawn is of, for whoever waits for it.
    out.setAttribute('data-month', r.month);
    out.setAttribute('data-side', r.side);
    out.setAttribute('data-page', String(r.page));
    previous.disabled = r.page === 0;
    next.disabled = r.page >= r.totalPages - 1;
  };

  /** Reads the page; a later read wins over an earlier one, and the buttons wait for it. */
  const load = async () => {
    if (!month.value) return;
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    try {
      const { data } = /** @type {import('../api.js').Reply<'getVatRegister'>} */ (await api('GET', path({ page: String(page), size: size.value })));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine !== reading) return;
      summary.replaceChildren();
      failed(out, err);
      status.textContent = '';
      previous.disabled = page === 0;
    }
  };
  const fromStart = () => {
    page = 0;
    void load();
  };
  /** @param {number} step */
  const turn = (step) => {
    page = Math.max(0, page + step);
    void load();
  };
  previous.addEventListener('click', () => turn(-1));
  next.addEventListener('click', () => turn(1));
  for (const control of [month, side, size]) control.addEventListener('change', fromStart);
  const form = h('form', { class: 'inline', id: 'vat-register-form' }, h('label', {}, 'Month ', month), h('label', {}, 'Side ', side), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fromStart();
  });

  body.append(
    h('h1', {}, 'VAT register'),
    form,
    // The files have every row of the month, not the page shown.
    downloadButtons(() => path()),
    summary,
    out,
    h('nav', { class: 'pager', 'aria-label': 'VAT register pages' }, previous, status, next, h('label', {}, 'Rows per page ', size)),
  );
  await load();
}
