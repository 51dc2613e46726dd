// @ts-check
// #aging: who owes the company (receivables) or whom it owes (payables) as of a date, by days past due. A table per
// currency (a foreign receivable ages in its own currency), a row per counterparty with the five buckets, what is
// outstanding and the advances not yet allocated, and the currency's totals, which are the balances of the
// settlement and advance accounts. A counterparty's name opens its open invoices of that side, and "Reconciliation"
// its reconciliation statement up to the report's date, each drawn in place of the report; the way back puts the
// report back as it was left.
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, can, company } from '../session.js';
import { alignAmounts, failed, table, today } from './common.js';
import { invoices } from './invoices.js';
import { quarter, reconciliationLink } from './reconciliation-statement.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['AgingReport']} AgingReport */
/** @typedef {Schemas['AgingAmounts']} AgingAmounts */

/** The amounts of a row in the order of the columns, with their headers. @type {[keyof AgingAmounts, string][]} */
const COLUMNS = [
  ['notDue', 'Not due'],
  ['days1to30', '1–30 days'],
  ['days31to60', '31–60 days'],
  ['days61to90', '61–90 days'],
  ['over90', 'Over 90 days'],
  ['outstanding', 'Outstanding'],
  ['advances', 'Advances'],
];

/** @param {HTMLElement} body */
export async function aging(body) {
  const side = h('select', { name: 'side' },
    h('option', { value: 'RECEIVABLE' }, 'Receivables: customers owe'),
    h('option', { value: 'PAYABLE' }, 'Payables: owed to suppliers'));
  const asOf = h('input', { type: 'date', name: 'asOf', value: today(), required: true });
  const out = h('div', { id: 'aging', 'aria-live': 'polite' });
  let reading = 0;

  const load = async () => {
    if (!asOf.value) return;
    const mine = ++reading;
    try {
      const query = new URLSearchParams({ asOf: asOf.value, side: side.value });
      const { data } = /** @type {import('../api.js').Reply<'getAgingReport'>} */ (await api('GET', `/api/v1/ledger/${company()}/reports/aging?${query}`));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine === reading) failed(out, err);
    }
  };

  /**
   * A counterparty's invoices of this side that are open, drawn in place of the report.
   * @param {string} id
   * @param {string} name
   * @param {AgingReport['side']} of
   */
  const openInvoices = (id, name, of) => {
    const saved = [...body.childNodes];
    body.replaceChildren();
    const back = { to: () => body.replaceChildren(...saved), label: '← Back to the aging' };
    invoices(body, { counterparty: { value: id, label: name }, kind: of === 'RECEIVABLE' ? 'SALES' : 'PURCHASE', status: 'POSTED', back }).catch((err) => failed(body, err));
  };

  /** @param {AgingReport} data */
  const draw = (data) => {
    const linked = can('listInvoices');
    const parts = data.totals.map((total) => {
      const rows = data.items.filter((item) => item.currency === total.currency).map((item) => {
        const name = item.counterpartyId === null
          ? h('span', { class: 'muted' }, 'Lines without a counterparty')
          : linked
            ? h('button', { type: 'button', class: 'link', 'data-action': 'invoices', onclick: () => openInvoices(/** @type {string} */ (item.counterpartyId), item.name ?? '', data.side) }, item.name ?? '')
            : item.name ?? '';
        // The act up to the report's date, from the start of its quarter.
        const act = item.counterpartyId === null ? '' : reconciliationLink(body, { id: item.counterpartyId, name: item.name ?? '' }, '← Back to the aging', { from: quarter(data.asOf).from, to: data.asOf });
        return h('tr', { 'data-counterparty': item.counterpartyId ?? '' },
          h('td', { class: 'counterparty' }, name),
          h('td', { class: 'identification' }, item.tin ?? ''),
          COLUMNS.map(([key]) => h('td', { class: `num ${key}` }, formatAmount(item[key]))),
          h('td', { class: 'actions' }, act));
      });
      rows.push(h('tr', { class: 'total' }, h('td', { colspan: 2 }, `Total ${total.currency}`), COLUMNS.map(([key]) => h('td', { class: `num ${key}` }, formatAmount(total[key]))), h('td', {})));
      const t = table(['Counterparty', 'TIN or PINFL', ...COLUMNS.map(([, header]) => header), ''], rows);
      t.setAttribute('data-currency', total.currency);
      t.classList.add('aging');
      alignAmounts(t, COLUMNS.map((_, i) => i + 2));
      return [h('h2', {}, total.currency), t];
    });
    const accounts = `${data.settlementAccount} and advances ${data.advanceAccount}`;
    // What the report drawn is of, for whoever waits for it.
    out.setAttribute('data-as-of', data.asOf);
    out.setAttribute('data-side', data.side);
    out.replaceChildren(
      h('p', { class: 'hint' }, `As of ${data.asOf}, by days past the due date. Each currency's totals are the balances of ${accounts} in that currency.`),
      ...(parts.length ? parts.flat() : [h('p', { class: 'muted' }, `Nothing outstanding and no advances as of ${data.asOf}.`)]),
    );
  };

  const form = h('form', { class: 'inline', id: 'aging-form' }, h('label', {}, 'Side ', side), h('label', {}, 'As of ', asOf), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  side.addEventListener('change', () => void load());
  asOf.addEventListener('change', () => void load());
  body.append(h('h1', {}, 'Aging'), form, out);
  await load();
}
