// @ts-check
// #statements: Form No. 1 (the balance sheet at a date) and Form No. 2 (the financial results of a period), each
// row with its amount and the prior column's, as the API answers them. A row read from accounts opens its
// drill-down: the accounts and their amounts, each account's code opening its statement for the period.
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, can, company } from '../session.js';
import { statementLink } from './account-statement.js';
import { failed, monthEnd, today } from './common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']['FinancialStatement']} FinancialStatement */

/** @param {string} date */
const yearStart = (date) => `${date.slice(0, 4)}-01-01`;

/** @param {HTMLElement} body */
export async function statements(body) {
  /** @type {['getBalanceSheet' | 'getFinancialResults', (body: HTMLElement) => Promise<void>][]} */
  const forms = [
    ['getBalanceSheet', balanceSheet],
    ['getFinancialResults', financialResults],
  ];
  // A section opened without either permission draws both forms, whose reads answer 403 as a message.
  const shown = forms.some(([permission]) => can(permission)) ? forms.filter(([permission]) => can(permission)) : forms;
  body.append(h('h1', {}, 'Financial statements'));
  await Promise.all(shown.map(([, part]) => part(body)));
}

/** @param {HTMLElement} body */
function balanceSheet(body) {
  const asOf = h('input', { type: 'date', name: 'asOf', value: today(), required: true });
  // The statement of an account runs from the first of the year to the date of the balances.
  const read = async () => {
    const path = `/api/v1/ledger/${company()}/reports/balance-sheet?${new URLSearchParams({ asOf: asOf.value })}`;
    const { data } = /** @type {import('../api.js').Reply<'getBalanceSheet'>} */ (await api('GET', path));
    return statementTable(body, data, { from: yearStart(data.to), to: data.to }, [`At ${data.to}`, `At ${data.priorTo}`]);
  };
  return part(body, 'Balance sheet (Form No. 1)', 'form-1', [h('label', {}, 'As of ', asOf)], read);
}

/** @param {HTMLElement} body */
function financialResults(body) {
  const from = h('input', { type: 'date', name: 'from', value: yearStart(today()), required: true });
  const to = h('input', { type: 'date', name: 'to', value: monthEnd(today()), required: true });
  const read = async () => {
    const path = `/api/v1/ledger/${company()}/reports/financial-results?${new URLSearchParams({ from: from.value, to: to.value })}`;
    const { data } = /** @type {import('../api.js').Reply<'getFinancialResults'>} */ (await api('GET', path));
    // Form No. 2 always has its period's first day (`from` is null on Form No. 1 only).
    const period = { from: /** @type {string} */ (data.from), to: data.to };
    return statementTable(body, data, period, [`${data.from} to ${data.to}`, `${data.priorFrom} to ${data.priorTo}`]);
  };
  return part(body, 'Financial results (Form No. 2)', 'form-2', [h('label', {}, 'From ', from), h('label', {}, 'To ', to)], read);
}

/**
 * One form's heading, query form and table (in #`id`), appended to the section and read once; `read()` answers
 * the table. A later read wins over an earlier one still on its way, and a failed one shows in its place.
 * @param {HTMLElement} body
 * @param {string} title
 * @param {string} id
 * @param {HTMLElement[]} fields
 * @param {() => Promise<HTMLElement[]>} read
 */
async function part(body, title, id, fields, read) {
  const out = h('div', { id });
  const form = h('form', { id: `${id}-query`, class: 'inline' }, fields, h('button', { type: 'submit' }, 'Show'));
  let reading = 0;
  const load = async () => {
    const mine = ++reading;
    try {
      const drawn = await read();
      if (mine === reading) out.replaceChildren(...drawn);
    } catch (err) {
      if (mine === reading) failed(out, err);
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  body.append(h('h2', {}, title), form, out);
  await load();
}

/**
 * The statement's source and its rows: a heading without amounts, a total in bold, and a row read from accounts
 * with a button that shows or hides its accounts in rows below it. `period` is the range of the accounts' statements.
 * @param {HTMLElement} body
 * @param {FinancialStatement} data
 * @param {{ from: string, to: string }} period
 * @param {string[]} columns the amount columns' headings
 */
function statementTable(body, data, period, columns) {
  const back = `← Back to the ${data.form === 'FORM_1' ? 'balance sheet' : 'financial results'}`;
  const rows = data.rows.flatMap((row) => {
    const heading = row.amount === null && row.priorAmount === null && row.accounts.length === 0 && !row.total;
    const tr = h('tr', { 'data-code': row.code, class: [row.total ? 'total' : '', heading ? 'heading' : ''].filter(Boolean).join(' ') || undefined });
    const accounts = row.accounts.map((a) =>
      h('tr', { class: 'drill', 'data-parent': row.code, 'data-account': a.accountCode, hidden: true },
        h('td', {}),
        h('td', { class: 'account' }, statementLink(body, a.accountCode, { accountCode: a.accountCode, ...period }, back)),
        h('td', { class: 'num' }, formatAmount(a.amount)),
        h('td', { class: 'num' }, formatAmount(a.priorAmount))));
    /** @type {string | (HTMLElement | string)[]} */
    let name = row.name;
    if (accounts.length) {
      const toggle = h('button', { type: 'button', class: 'link drill-toggle', 'aria-expanded': 'false', 'aria-label': `Accounts of row ${row.code}` }, '▸');
      toggle.addEventListener('click', () => {
        const open = toggle.getAttribute('aria-expanded') !== 'true';
        toggle.setAttribute('aria-expanded', String(open));
        toggle.textContent = open ? '▾' : '▸';
        accounts.forEach((a) => (a.hidden = !open));
      });
      name = [toggle, ' ', row.name];
    }
    tr.append(
      h('td', { class: 'code' }, row.code),
      h('td', { title: row.formula ?? undefined }, name),
      h('td', { class: 'num amount' }, formatAmount(row.amount)),
      h('td', { class: 'num prior' }, formatAmount(row.priorAmount)));
    return [tr, ...accounts];
  });
  const source = h('p', { class: 'hint statement-source' }, `${data.source} (version ${data.version}, from ${data.effectiveFrom})`);
  return [source, h('table', { class: 'financial-statement', 'aria-label': data.title },
    h('thead', {}, h('tr', {}, ['Code', 'Row'].map((x) => h('th', { scope: 'col' }, x)), columns.map((x) => h('th', { scope: 'col', class: 'num' }, x)))),
    h('tbody', {}, rows))];
}
