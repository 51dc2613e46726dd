// @ts-check
// One account's statement, opened from the trial balance or the turnover sheet: the balance before the range,
// each line with its entry and counter-accounts and the running balance after it, the turnovers and the closing
// balance, a page at a time. Amounts are the API's strings, shown with their digits grouped (money.js).
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, can, company } from '../session.js';
import { failed } from './common.js';
import { FUNCTIONAL } from './currency.js';
import { downloadButtons } from './download.js';
import { showEntry } from './journal.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */

/**
 * What a statement shows: the account (and subaccount, with the label it is named by), the range and the
 * currency whose lines it keeps; the query parameters of GET …/reports/account-statement.
 * @typedef {object} StatementParams
 * @property {string} accountCode
 * @property {string} [subaccountId]
 * @property {string} [subaccountLabel]
 * @property {string} from
 * @property {string} to
 * @property {string} [currency]
 */

const PAGE_SIZES = [10, 25, 50, 100];

/**
 * The account's code as a link to its statement for `params` ({ accountCode, subaccountId?, subaccountLabel?,
 * from, to, currency? }), drawn in place of the section in `body`; `backLabel` names the way back, which puts
 * the section back as it was left. Plain text for a caller who may not read statements.
 * @param {HTMLElement} body
 * @param {string} text
 * @param {StatementParams} params
 * @param {string} backLabel
 */
export function statementLink(body, text, params, backLabel) {
  if (!can('getAccountStatement')) return text;
  const link = h('button', { type: 'button', class: 'link statement-link', 'aria-label': `Statement of ${params.accountCode}${params.subaccountLabel ? ` ${params.subaccountLabel}` : ''}, ${params.from} to ${params.to}` }, text);
  link.addEventListener('click', () => {
    const saved = [...body.childNodes];
    const back = () => {
      body.replaceChildren(...saved);
      link.focus();
    };
    showStatement(body, params, back, backLabel);
  });
  return link;
}

/**
 * Draws the statement's frame in `body` and reads its first page; a failed read shows in the frame, below the way back.
 * @param {HTMLElement} body
 * @param {StatementParams} params
 * @param {() => void} back
 * @param {string} backLabel
 */
export function showStatement(body, params, back, backLabel) {
  const foreign = Boolean(params.currency) && params.currency !== FUNCTIONAL;
  const title = h('h1', { tabindex: -1 }, `Statement of ${params.accountCode}`);
  const scope = [
    `${params.from} to ${params.to}`,
    params.subaccountId ? `subaccount ${params.subaccountLabel ?? params.subaccountId}` : '',
    params.currency ? `only the lines in ${params.currency}` : '',
  ].filter(Boolean).join(' · ');
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 50 }, n)));
  const out = h('div', { id: 'statement' });
  const previous = h('button', { type: 'button', id: 'statement-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'statement-next', disabled: true }, 'Next →');
  const status = h('span', { id: 'statement-page', 'aria-live': 'polite' });
  let page = 0;
  let reading = 0;

  /** @param {Schemas['AccountStatement']} s */
  const draw = (s) => {
    title.textContent = `Statement of ${s.accountCode} ${s.name}`;
    const side = s.normalSide === 'DEBIT' ? 'debit' : 'credit';
    // The entry is drawn in place of the statement; the way back returns to this page of it, read again (the
    // entry may have been reversed meanwhile).
    /** @param {Schemas['AccountStatementLine']} line */
    const openEntry = (line) => {
      const saved = [...body.childNodes];
      const backHere = () => {
        body.replaceChildren(...saved);
        title.focus();
        void load();
      };
      showEntry(body, line.entryId, backHere, '← Back to the statement').catch((err) => failed(body, err));
    };
    /** @typedef {[label: string, id: string, amount: string | null]} SummaryItem */
    /** @type {SummaryItem[]} */
    const summary = [
      ['Opening balance', 'opening-balance', s.openingBalance],
      ['Debit turnover', 'turnover-debit', s.turnoverDebit],
      ['Credit turnover', 'turnover-credit', s.turnoverCredit],
      ['Closing balance', 'closing-balance', s.closingBalance],
      ...(foreign
        ? /** @satisfies {SummaryItem[]} */ ([
            [`Opening balance in ${s.currency}`, 'currency-opening-balance', s.currencyOpeningBalance],
            [`Closing balance in ${s.currency}`, 'currency-closing-balance', s.currencyClosingBalance],
          ])
        : []),
    ];
    const headers = ['Date', 'Entry', 'Description', 'Counter-accounts'];
    const amountHeaders = ['Debit', 'Credit', 'Balance', ...(foreign ? [`In ${s.currency}`, `Balance in ${s.currency}`] : [])];
    const rows = s.items.map((l) =>
      h('tr', { 'data-entry': l.entryNumber, 'data-line': l.lineNo },
        h('td', {}, l.entryDate),
        h('td', {}, h('button', { type: 'button', class: 'link', 'aria-label': `Entry ${l.entryNumber}`, onclick: () => openEntry(l) }, l.entryNumber)),
        h('td', {}, l.description, l.memo ? h('div', { class: 'muted' }, l.memo) : ''),
        h('td', { class: 'counter' }, l.counterAccounts.join(', ')),
        h('td', { class: 'num debit' }, formatAmount(l.debit)),
        h('td', { class: 'num credit' }, formatAmount(l.credit)),
        h('td', { class: 'num balance' }, formatAmount(l.balance)),
        foreign ? [h('td', { class: 'num' }, formatAmount(l.currencyAmount)), h('td', { class: 'num' }, formatAmount(l.currencyBalance))] : []));
    out.replaceChildren(
      h('p', { class: 'hint' }, `Balances are on the ${side} side, the account's normal side.`,
        foreign ? ` Only the ${s.currency} lines, at their UZS amounts, with their ${s.currency} amounts (debit positive) and ${s.currency} balance.` : ''),
      h('dl', { class: 'statement-summary' }, summary.flatMap(([label, id, value]) => [h('dt', {}, label), h('dd', { id }, formatAmount(value))])),
      h('table', { 'aria-label': `Lines of the statement, ${scope}` },
        h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)), amountHeaders.map((x) => h('th', { scope: 'col', class: 'num' }, x)))),
        h('tbody', {},
          // Each page starts from the running balance of the lines before it.
          h('tr', { class: 'carried' }, h('td', { colspan: 6 }, s.page === 0 ? 'Opening balance' : 'Brought forward'),
            h('td', { class: 'num', id: 'page-opening-balance' }, formatAmount(s.pageOpeningBalance)), foreign ? [h('td', {}), h('td', {})] : []),
          rows.length ? rows : h('tr', {}, h('td', { colspan: headers.length + amountHeaders.length, class: 'muted' }, 'No lines on the account in this range.')))),
    );
    status.textContent = s.totalElements === 0 ? 'No lines' : `Page ${s.page + 1} of ${s.totalPages} · ${s.totalElements} lines`;
    previous.disabled = s.page === 0;
    next.disabled = s.page >= s.totalPages - 1;
  };
  /**
   * The statement's query, with the page's `extra` parameters.
   * @param {{ page?: string, size?: string }} [extra]
   */
  const query = (extra = {}) => new URLSearchParams({
    accountCode: params.accountCode,
    from: params.from,
    to: params.to,
    ...extra,
    ...(params.subaccountId ? { subaccountId: params.subaccountId } : {}),
    ...(params.currency ? { currency: params.currency } : {}),
  });
  /** @param {{ page?: string, size?: string }} [extra] */
  const path = (extra) => `/api/v1/ledger/${company()}/reports/account-statement?${query(extra)}`;
  /** Reads the page; a later read wins over an earlier one, and the buttons wait for it. */
  const load = async () => {
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    try {
      const { data } = /** @type {import('../api.js').Reply<'getAccountStatement'>} */ (await api('GET', path({ page: String(page), size: size.value })));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine !== reading) return;
      failed(out, err);
      status.textContent = '';
      previous.disabled = page === 0;
    }
  };
  /** @param {number} step */
  const turn = (step) => {
    page = Math.max(0, page + step);
    void load();
  };
  previous.addEventListener('click', () => turn(-1));
  next.addEventListener('click', () => turn(1));
  size.addEventListener('change', () => {
    page = 0;
    void load();
  });

  body.replaceChildren(
    h('button', { type: 'button', class: 'link', onclick: back }, backLabel),
    title,
    h('p', { id: 'statement-scope' }, scope),
    // The files have every line of the statement, not the page shown.
    downloadButtons(() => path()),
    out,
    h('nav', { class: 'pager', 'aria-label': 'Statement pages' }, previous, status, next, h('label', {}, 'Lines per page ', size)),
  );
  title.focus();
  void load();
}
