// @ts-check
// The reconciliation statement (act of mutual settlements) with one counterparty, opened from its row in the
// counterparties or the aging and drawn in place of that view: the balance before the period with who owes whom,
// each document's line with the running balance after it, a page at a time, the turnovers and the closing
// balance, in the company's books or as the counterparty keeps them (debit and credit exchanged, balances
// negated). A document opens its invoice's or payment's card, a journal entry the entry. CSV and XLSX are the
// whole statement, the act as it is sent to the counterparty.
import { h } from '../dom.js';
import { formatAmount, toMinor } from '../money.js';
import { api, can, company } from '../session.js';
import { failed, monthEnd, monthStart, today } from './common.js';
import { downloadButtons } from './download.js';
import { openInvoice } from './invoices.js';
import { showEntry } from './journal.js';
import { showPayment } from './payment-card.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['ReconciliationStatement']} Statement */
/** @typedef {Schemas['ReconciliationLine']} Line */
/** @typedef {import('./common.js').WayBack} WayBack */
/** @typedef {{ id: string, name: string }} Counterparty */
/** @typedef {{ from: string, to: string }} Period */

const PAGE_SIZES = [10, 25, 50, 100];

/**
 * The calendar quarter `shift` quarters from the one holding `date`: quarter("2026-05-20") → 2026-04-01 to 2026-06-30.
 * @param {string} date
 * @param {number} [shift]
 * @returns {Period}
 */
export function quarter(date, shift = 0) {
  const [year, month] = date.split('-').map(Number);
  // Zero-based; Date.UTC carries a month before January or after December into the year.
  const first = Math.floor((month - 1) / 3) * 3 + shift * 3;
  /**
   * @param {number} m
   * @param {number} d
   */
  const day = (m, d) => new Date(Date.UTC(year, m, d)).toISOString().slice(0, 10);
  return { from: day(first, 1), to: day(first + 3, 0) };
}

/** The periods offered beside the dates; an act is usually the quarter's, so the statement opens on this one. @type {[string, () => Period][]} */
const PRESETS = [
  ['This month', () => ({ from: monthStart(today()), to: monthEnd(today()) })],
  ['This quarter', () => quarter(today())],
  ['Last quarter', () => quarter(today(), -1)],
  ['This year', () => ({ from: `${today().slice(0, 4)}-01-01`, to: `${today().slice(0, 4)}-12-31` })],
];

/**
 * A signed balance of the statement ("-1250.50") in minor units.
 * @param {string} text
 */
const signedMinor = (text) => (text.startsWith('-') ? -toMinor(text.slice(1)) : toMinor(text));

/**
 * Who owes whom by a balance of `view`: positive is the counterparty's debt in the company's books, the company's
 * in the counterparty's. The words are the company's ("us", "we") whichever view the figures are in.
 * @param {string} balance
 * @param {Statement['view']} view
 * @param {string} name
 */
function owedWords(balance, view, name) {
  const minor = signedMinor(balance);
  if (minor === 0n) return 'Settled: neither owes the other.';
  const amount = `${formatAmount(balance.replace(/^-/, ''))} UZS`;
  return (minor > 0n) === (view === 'COMPANY') ? `${name} owes us ${amount}.` : `We owe ${name} ${amount}.`;
}

/**
 * A link (a button) that draws the counterparty's reconciliation statement in place of the view in `body`, for
 * `period` (the current quarter when left out); its way back, named `backLabel`, puts that view back as it was
 * left. Nothing for a caller who may not read the statement.
 * @param {HTMLElement} body
 * @param {Counterparty} counterparty
 * @param {string} backLabel
 * @param {Period} [period]
 */
export function reconciliationLink(body, counterparty, backLabel, period) {
  if (!can('getReconciliationStatement')) return '';
  const link = h('button', { type: 'button', class: 'link', 'data-action': 'reconciliation', 'aria-label': `Reconciliation statement with ${counterparty.name}` }, 'Reconciliation');
  link.addEventListener('click', () => {
    const saved = [...body.childNodes];
    const back = () => {
      body.replaceChildren(...saved);
      link.focus();
    };
    showReconciliationStatement(body, counterparty, { to: back, label: backLabel }, period ?? quarter(today()));
  });
  return link;
}

/**
 * Draws the statement's frame in `body` and reads its first page; a failed read shows in the frame, below the way back.
 * @param {HTMLElement} body
 * @param {Counterparty} counterparty
 * @param {WayBack} back
 * @param {Period} period
 */
export function showReconciliationStatement(body, counterparty, back, period) {
  const title = h('h1', { tabindex: -1 }, `Reconciliation statement with ${counterparty.name}`);
  const identification = h('p', { id: 'reconciliation-counterparty' });
  const from = h('input', { type: 'date', name: 'from', value: period.from, required: true });
  const to = h('input', { type: 'date', name: 'to', value: period.to, required: true });
  const view = h('select', { name: 'view' },
    h('option', { value: 'COMPANY' }, 'Ours (the company’s view)'),
    h('option', { value: 'COUNTERPARTY' }, `Theirs (as ${counterparty.name} keeps them)`));
  const presets = h('div', { class: 'presets' }, PRESETS.map(([label, of]) => h('button', { type: 'button', class: 'link', onclick: () => choose(of()) }, label)));
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 50 }, n)));
  const summary = h('div', { id: 'reconciliation-summary', 'aria-live': 'polite' });
  const out = h('div', { id: 'reconciliation' });
  const previous = h('button', { type: 'button', id: 'reconciliation-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'reconciliation-next', disabled: true }, 'Next →');
  const status = h('span', { id: 'reconciliation-page', 'aria-live': 'polite' });
  let page = 0;
  let reading = 0;

  /** @param {{ page?: string, size?: string }} [extra] */
  const path = (extra = {}) =>
    `/api/v1/counterparties/${company()}/${counterparty.id}/reconciliation-statement?${new URLSearchParams({ from: from.value, to: to.value, view: view.value, ...extra })}`;

  /**
   * A card or an entry drawn in place of the statement; the way back returns to this page of it, read again (a
   * document may have been cancelled meanwhile).
   * @param {(back: WayBack) => void} draw
   */
  const away = (draw) => {
    const saved = [...body.childNodes];
    draw({ to: () => {
      body.replaceChildren(...saved);
      title.focus();
      void load();
    }, label: '← Back to the reconciliation statement' });
  };
  /** @param {string} entryId */
  const openEntry = (entryId) => away((b) => showEntry(body, entryId, b.to, b.label).catch((err) => failed(body, err)));
  /**
   * What opens the line's document, or null when the console cannot open it for this caller.
   * @param {Line} l
   * @returns {(() => void) | null}
   */
  const opener = (l) => {
    const source = l.source;
    if (source?.type === 'INVOICE' && can('getInvoice')) return () => away((b) => openInvoice(body, source.id, b));
    if (source?.type === 'PAYMENT' && can('getPayment')) return () => away((b) => showPayment(body, source.id, { back: b, openInvoice }).catch((err) => failed(body, err)));
    if (!source && can('getJournalEntry')) return () => openEntry(l.entryId);
    return null;
  };

  /**
   * A debit or credit cell: the UZS amount, and the foreign one below it when the line is in a currency.
   * @param {string} amount
   * @param {string | null} foreign
   * @param {string | null} currency
   * @param {string} side
   */
  const amountCell = (amount, foreign, currency, side) => h('td', { class: `num ${side}` }, formatAmount(amount),
    currency && foreign && signedMinor(foreign) !== 0n ? h('div', { class: 'foreign muted' }, `${currency} ${formatAmount(foreign)}`) : '');

  /** @param {Statement} s */
  const draw = (s) => {
    title.textContent = `Reconciliation statement with ${s.counterpartyName}`;
    identification.textContent = s.counterpartyTin ? `${s.counterpartyTin.length === 14 ? 'PINFL' : 'TIN'} ${s.counterpartyTin}` : 'No TIN or PINFL';
    /** @type {[label: string, id: string, amount: string, owed: boolean][]} */
    const figures = [
      [`Opening balance on ${s.from}`, 'reconciliation-opening', s.openingBalance, true],
      ['Debit turnover', 'reconciliation-turnover-debit', s.turnoverDebit, false],
      ['Credit turnover', 'reconciliation-turnover-credit', s.turnoverCredit, false],
      [`Closing balance on ${s.to}`, 'reconciliation-closing', s.closingBalance, true],
    ];
    summary.replaceChildren(
      h('p', { class: 'hint' }, s.view === 'COMPANY'
        ? `In our books, in UZS: a debit is what ${s.counterpartyName} owes us more, a credit what it owes us less; a positive balance is its debt to us, a negative one ours to it.`
        : `As ${s.counterpartyName} keeps them, in UZS: debit and credit exchanged and the balances negated, so a positive balance is our debt to it.`),
      h('dl', { class: 'statement-summary' }, figures.flatMap(([label, id, amount, owed]) => [h('dt', {}, label),
        h('dd', { id }, h('span', { class: 'amount' }, formatAmount(amount)), owed ? h('span', { class: 'owed' }, ` · ${owedWords(amount, s.view, s.counterpartyName)}`) : '')])),
    );
    const withEntries = can('getJournalEntry');
    const rows = s.lines.map((l) => {
      const open = opener(l);
      return h('tr', { 'data-entry': l.entryNumber, 'data-kind': l.kind },
        h('td', { class: 'date' }, l.date),
        h('td', {}, withEntries ? h('button', { type: 'button', class: 'link', 'aria-label': `Entry ${l.entryNumber}`, onclick: () => openEntry(l.entryId) }, l.entryNumber) : l.entryNumber),
        h('td', { class: 'document' }, open ? h('button', { type: 'button', class: 'link', 'data-action': 'open-document', onclick: open }, l.document) : l.document),
        h('td', { class: 'counter' }, l.accounts.join(', ')),
        amountCell(l.debit, l.currencyDebit, l.currency, 'debit'),
        amountCell(l.credit, l.currencyCredit, l.currency, 'credit'),
        h('td', { class: 'num balance' }, formatAmount(l.balance)));
    });
    const last = s.page >= s.totalPages - 1;
    out.replaceChildren(h('table', { 'aria-label': `Lines of the reconciliation statement, ${s.from} to ${s.to}` },
      h('thead', {}, h('tr', {}, ['Date', 'Entry', 'Document', 'Accounts'].map((x) => h('th', { scope: 'col' }, x)),
        ['Debit (UZS)', 'Credit (UZS)', 'Balance (UZS)'].map((x) => h('th', { scope: 'col', class: 'num' }, x)))),
      h('tbody', {},
        // Each page starts from the running balance of the lines before it.
        h('tr', { class: 'carried' }, h('td', { colspan: 6 }, s.page === 0 ? `Opening balance on ${s.from}` : 'Brought forward'),
          h('td', { class: 'num', id: 'reconciliation-page-opening' }, formatAmount(s.pageOpeningBalance))),
        rows.length ? rows : h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No documents with this counterparty in the period.')),
        last ? h('tr', { class: 'total' }, h('td', { colspan: 4 }, `Turnovers and closing balance on ${s.to}`),
          h('td', { class: 'num debit' }, formatAmount(s.turnoverDebit)), h('td', { class: 'num credit' }, formatAmount(s.turnoverCredit)),
          h('td', { class: 'num balance' }, formatAmount(s.closingBalance))) : '')));
    status.textContent = s.totalElements === 0 ? 'No lines' : `Page ${s.page + 1} of ${s.totalPages} · ${s.totalElements} ${s.totalElements === 1 ? 'line' : 'lines'}`;
    // What the page drawn is of, for whoever waits for it.
    out.setAttribute('data-from', s.from);
    out.setAttribute('data-to', s.to);
    out.setAttribute('data-view', s.view);
    out.setAttribute('data-page', String(s.page));
    previous.disabled = s.page === 0;
    next.disabled = last;
  };

  /** Reads the page; a later read wins over an earlier one, and the buttons wait for it. */
  const load = async () => {
    if (!from.value || !to.value) return;
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    if (to.value < from.value) {
      summary.replaceChildren();
      out.replaceChildren(h('p', { class: 'alert error', role: 'alert' }, 'The period ends before it starts: choose a “To” date on or after “From”.'));
      status.textContent = '';
      return;
    }
    try {
      const { data } = /** @type {import('../api.js').Reply<'getReconciliationStatement'>} */ (await api('GET', path({ page: String(page), size: size.value })));
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
  /** @param {Period} p */
  const choose = (p) => {
    from.value = p.from;
    to.value = p.to;
    fromStart();
  };
  /** @param {number} step */
  const turn = (step) => {
    page = Math.max(0, page + step);
    void load();
  };
  previous.addEventListener('click', () => turn(-1));
  next.addEventListener('click', () => turn(1));
  for (const control of [from, to, view, size]) control.addEventListener('change', fromStart);
  const form = h('form', { class: 'inline', id: 'reconciliation-form' },
    h('label', {}, 'From ', from), h('label', {}, 'To ', to), h('label', {}, 'Books ', view), h('button', { type: 'submit' }, 'Show'), presets);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fromStart();
  });

  body.replaceChildren(
    h('button', { type: 'button', class: 'link', onclick: back.to }, back.label),
    title,
    identification,
    form,
    // The files are the whole statement in the books chosen, not the page shown.
    downloadButtons(() => path()),
    summary,
    out,
    h('nav', { class: 'pager', 'aria-label': 'Reconciliation statement pages' }, previous, status, next, h('label', {}, 'Lines per page ', size)),
  );
  title.focus();
  void load();
}
