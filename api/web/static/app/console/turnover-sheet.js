// @ts-check
// #turnover-sheet: per account (or subaccount) the balance before a date range, the range's debit and credit
// turnovers and the balance at its end, each balance on its side; all lines or those of one currency, with the
// foreign amounts when the currency is a foreign one. An account's code opens its statement for the range.
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, can, company } from '../session.js';
import { statementLink } from './account-statement.js';
import { failed, monthEnd, monthStart, today } from './common.js';
import { FUNCTIONAL, readCbuRates } from './currency.js';
import { downloadButtons } from './download.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */

/**
 * The sheet's amount columns: each a pair of debit and credit (`openingDebit`, `openingCredit`, …).
 * @type {['opening' | 'turnover' | 'closing', string][]}
 */
const AMOUNTS = [
  ['opening', 'Opening balance'],
  ['turnover', 'Turnover'],
  ['closing', 'Closing balance'],
];

/** @param {HTMLElement} body */
export async function turnoverSheet(body) {
  const from = h('input', { type: 'date', name: 'from', value: monthStart(today()), required: true });
  const to = h('input', { type: 'date', name: 'to', value: monthEnd(today()), required: true });
  const detail = h('select', { name: 'detail' }, h('option', { value: 'ACCOUNT' }, 'Accounts'), h('option', { value: 'SUBACCOUNT' }, 'Subaccounts'));
  const currency = h('select', { name: 'currency' });
  // The filter offers UZS and the currencies the Central Bank publishes rates of at the range's end (read again
  // when the end changes), and keeps a chosen one the list no longer has.
  /** @type {string[]} */
  let published = [];
  const fillCurrencies = () => {
    const chosen = currency.value;
    const codes = [FUNCTIONAL, ...published];
    if (chosen && !codes.includes(chosen)) codes.push(chosen);
    currency.replaceChildren(h('option', { value: '' }, 'All currencies'), ...codes.map((code) => h('option', { value: code, selected: code === chosen }, code)));
  };
  const readCurrencies = async () => {
    try {
      published = to.value ? [...(await readCbuRates(to.value)).keys()] : [];
    } catch {
      published = []; // the filter still offers UZS and the currency chosen
    }
    fillCurrencies();
  };
  fillCurrencies();
  to.addEventListener('change', () => void readCurrencies());

  // Subaccounts are named by their code and name, read once each.
  /** @type {Map<string, string>} */
  const subaccountNames = new Map();
  /** @param {Schemas['TurnoverRow'][]} rows */
  const nameSubaccounts = async (rows) => {
    if (!can('getCompanySubaccount')) return;
    const missing = rows.filter((r) => r.subaccountId && !subaccountNames.has(r.subaccountId));
    await Promise.all(missing.map(async (r) => {
      // `missing` has only rows with a subaccount.
      const subaccountId = /** @type {string} */ (r.subaccountId);
      try {
        const path = `/api/v1/accounting-settings/${company()}/accounts/${r.accountCode}/subaccounts/${subaccountId}`;
        const { data } = /** @type {import('../api.js').Reply<'getCompanySubaccount'>} */ (await api('GET', path));
        subaccountNames.set(subaccountId, `${data.code} ${data.name}`);
      } catch {
        // The id stands in for a name that cannot be read.
      }
    }));
  };

  const out = h('div');
  const path = () => {
    const query = new URLSearchParams({ from: from.value, to: to.value, detail: detail.value, ...(currency.value ? { currency: currency.value } : {}) });
    return `/api/v1/ledger/${company()}/reports/turnover-sheet?${query}`;
  };
  // A later read wins over an earlier one still on its way, and a failed one shows in its place.
  let reading = 0;
  const load = async () => {
    const mine = ++reading;
    /** @type {Schemas['TurnoverSheet']} */
    let data;
    try {
      ({ data } = /** @type {import('../api.js').Reply<'getTurnoverSheet'>} */ (await api('GET', path())));
      if (data.detail === 'SUBACCOUNT' && mine === reading) await nameSubaccounts(data.rows);
    } catch (err) {
      if (mine === reading) failed(out, err);
      return;
    }
    if (mine !== reading) return;
    const bySubaccount = data.detail === 'SUBACCOUNT';
    const foreign = data.currency !== null && data.currency !== FUNCTIONAL;
    const leading = bySubaccount ? ['Code', 'Account', 'Subaccount'] : ['Code', 'Account'];
    /**
     * @param {string} text
     * @param {import('../dom.js').Attributes} [attrs]
     */
    const th = (text, attrs = {}) => h('th', { scope: 'col', ...attrs }, text);
    const head = h('thead', {},
      h('tr', {},
        leading.map((x) => th(x, { rowspan: 2 })),
        AMOUNTS.map(([, label]) => th(label, { colspan: 2, scope: 'colgroup' })),
        foreign ? th(`In ${data.currency}`, { colspan: 4, scope: 'colgroup' }) : ''),
      h('tr', {},
        AMOUNTS.flatMap(() => [th('Debit', { class: 'num' }), th('Credit', { class: 'num' })]),
        foreign ? ['Opening', 'Debit', 'Credit', 'Closing'].map((x) => th(x, { class: 'num' })) : ''));
    /**
     * @param {Schemas['TurnoverTotals']} sums a row's or the totals' amounts
     * @param {string} [prefix] the ids' prefix, for the totals
     */
    const amounts = (sums, prefix) => AMOUNTS.flatMap(([key]) => /** @type {const} */ (['Debit', 'Credit']).map((side) =>
      h('td', { class: 'num', ...(prefix ? { id: `${prefix}-${key}-${side.toLowerCase()}` } : { 'data-column': `${key}${side}` }) }, formatAmount(sums[`${key}${side}`]))));
    const rows = data.rows.map((r) => {
      const subaccount = r.subaccountId ? subaccountNames.get(r.subaccountId) ?? r.subaccountId : '';
      // A row of an account's lines without a subaccount opens the account's whole statement: the API has no
      // filter for "no subaccount".
      const params = { accountCode: r.accountCode, from: data.from, to: data.to, currency: data.currency ?? undefined, ...(r.subaccountId ? { subaccountId: r.subaccountId, subaccountLabel: subaccount } : {}) };
      return h('tr', { 'data-code': r.accountCode, 'data-subaccount': r.subaccountId ?? '' },
        h('td', {}, statementLink(body, r.accountCode, params, '← Back to the turnover sheet')),
        h('td', {}, r.name),
        bySubaccount ? h('td', {}, subaccount || h('span', { class: 'muted' }, 'none')) : '',
        amounts(r),
        // A foreign sheet's rows all have their foreign amounts; a row without them shows empty cells.
        foreign ? /** @type {const} */ (['opening', 'turnoverDebit', 'turnoverCredit', 'closing']).map((key) => h('td', { class: 'num foreign-amount', 'data-column': `foreign-${key}` }, formatAmount(r.foreign?.[key]))) : '');
    });
    const total = h('tr', { class: 'total' }, h('td', { colspan: leading.length }, 'Total'), amounts(data.totals, 'total'), foreign ? h('td', { colspan: 4 }) : '');
    out.replaceChildren(
      data.currency
        ? h('p', { class: 'hint', id: 'currency-note' },
            `Only the lines in ${data.currency}${data.currency === FUNCTIONAL ? '' : `, at their UZS amounts, with their ${data.currency} amounts (balances debit positive)`}: the totals cover those lines alone.`)
        : '',
      h('table', { class: 'turnover', 'aria-label': `Turnover sheet, ${data.from} to ${data.to}` }, head,
        h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: leading.length + 6 + (foreign ? 4 : 0), class: 'muted' }, 'No balance or movement in this range.'))),
        h('tfoot', {}, total)),
    );
  };
  const form = h('form', { id: 'turnover-form', class: 'inline' },
    h('label', {}, 'From ', from), h('label', {}, 'To ', to), h('label', {}, 'Detail ', detail), h('label', {}, 'Currency ', currency),
    h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  body.append(h('h1', {}, 'Turnover sheet'), form, downloadButtons(path), out);
  await Promise.all([readCurrencies(), load()]);
}
