// @ts-check
// #trial-balance: the trial balance as of a date, with each account's foreign-currency balances, all lines or
// those of one currency. An account's code opens its statement for the month of the date, up to the date.
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, company } from '../session.js';
import { statementLink } from './account-statement.js';
import { failed, monthStart, table, today } from './common.js';
import { FUNCTIONAL } from './currency.js';
import { downloadButtons } from './download.js';

/** @param {HTMLElement} body */
export async function trialBalance(body) {
  const asOf = h('input', { type: 'date', name: 'asOf', value: today(), required: true });
  const currency = h('select', { name: 'currency' });
  // The filter offers UZS and every foreign currency a balance has shown so far (the API lists no others).
  /** @type {Set<string>} */
  const seen = new Set();
  const fillCurrencies = () => {
    const chosen = currency.value;
    currency.replaceChildren(
      h('option', { value: '' }, 'All currencies'),
      ...[FUNCTIONAL, ...[...seen].sort()].map((code) => h('option', { value: code, selected: code === chosen }, code)),
    );
  };
  fillCurrencies();
  const out = h('div');
  const path = () => `/api/v1/ledger/${company()}/trial-balance?${new URLSearchParams({ asOf: asOf.value, ...(currency.value ? { currency: currency.value } : {}) })}`;
  // A later read wins over an earlier one still on its way, and a failed one shows in its place.
  let reading = 0;
  const load = async () => {
    const mine = ++reading;
    /** @type {import('../../../../../contracts/openapi').components['schemas']['TrialBalance']} */
    let data;
    try {
      ({ data } = /** @type {import('../api.js').Reply<'getTrialBalance'>} */ (await api('GET', path())));
    } catch (err) {
      if (mine === reading) failed(out, err);
      return;
    }
    if (mine !== reading) return;
    data.lines.forEach((l) => l.currencies.forEach((c) => seen.add(c.currency)));
    fillCurrencies();
    out.replaceChildren(
      data.currency
        ? h('p', { class: 'hint', id: 'currency-note' }, `Only the lines in ${data.currency}${data.currency === FUNCTIONAL ? '' : ', at their UZS amounts'}: the totals cover those lines alone and need not balance.`)
        : '',
      table(['Code', 'Account', 'Debit', 'Credit', 'Balance', 'In foreign currency'], [
        ...data.lines.map((l) =>
          h('tr', { 'data-code': l.code },
            h('td', {}, statementLink(body, l.code, { accountCode: l.code, from: monthStart(data.asOf), to: data.asOf, currency: data.currency ?? undefined }, '← Back to the trial balance')),
            h('td', {}, l.name), h('td', { class: 'num' }, formatAmount(l.debit)), h('td', { class: 'num' }, formatAmount(l.credit)), h('td', { class: 'num' }, formatAmount(l.balance)),
            // Each foreign balance on the account's normal side, and the UZS amount it is carried at in the books.
            h('td', { class: 'currencies' }, l.currencies.map((c) =>
              h('div', { class: 'currency-balance', 'data-currency': c.currency }, `${c.currency} ${formatAmount(c.balance)}`, h('span', { class: 'muted' }, ` · carried at ${formatAmount(c.carryingAmount)} UZS`)))))),
        h('tr', { class: 'total' }, h('td', {}), h('td', {}, 'Total'), h('td', { class: 'num', id: 'total-debit' }, formatAmount(data.totalDebit)), h('td', { class: 'num', id: 'total-credit' }, formatAmount(data.totalCredit)), h('td', {}), h('td', {})),
      ]),
    );
  };
  const form = h('form', { class: 'inline' }, h('label', {}, 'As of ', asOf), h('label', {}, 'Currency ', currency), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  body.append(h('h1', {}, 'Trial balance'), form, downloadButtons(path), out);
  await load();
}
