// @ts-check
// One bank account, drawn in place of the accounts' list: its statement imported (bank-import.js) and its lines in
// date order, filtered on status, dates and the last import, a page at a time. Each line shows what the bank said
// (the day, money in or out, the counterparty, the purpose), its status at a glance, and what matching proposes
// (the invoice and why). On a line: Confirm the proposal, Choose invoices… or take it as an advance (bank-match.js),
// Unmatch a matched one (its payment cancelled); a matched line's payment and a proposed invoice open their cards
// in place of the lines, whose way back restores them as they were left.
import { clearAlert, h, showAlert } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, can } from '../session.js';
import { accountText, bankPath, lineBadge, lineProblem, lineText } from './bank-common.js';
import { statementImport } from './bank-import.js';
import { matchForm } from './bank-match.js';
import { bankReconciliation } from './bank-reconciliation.js';
import { alignAmounts, failed, problemType, table } from './common.js';
import { openInvoice } from './invoices.js';
import { showPayment } from './payment-card.js';

/** @typedef {import('./bank-common.js').BankAccount} BankAccount */
/** @typedef {import('./bank-common.js').BankLine} BankLine */
/** @typedef {import('./common.js').WayBack} WayBack */

const PAGE_SIZES = [10, 25, 50, 100];

/**
 * @param {HTMLElement} body
 * @param {BankAccount} account
 * @param {WayBack} back the way back to the accounts' list
 */
export function bankAccountView(body, account, back) {
  const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Any'),
    h('option', { value: 'UNMATCHED' }, 'Unmatched'), h('option', { value: 'PROPOSED' }, 'Proposed'), h('option', { value: 'MATCHED' }, 'Matched'));
  const from = h('input', { type: 'date', name: 'from' });
  const to = h('input', { type: 'date', name: 'to' });
  const lastImport = h('input', { type: 'checkbox', name: 'importId' });
  const lastImportLabel = h('label', { class: 'choice', hidden: true }, lastImport, ' Only the last import’s new lines');
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 25 }, n)));
  const out = h('div', { id: 'bank-lines', 'aria-live': 'polite', 'aria-busy': 'false' });
  const previous = h('button', { type: 'button', id: 'bank-lines-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'bank-lines-next', disabled: true }, 'Next →');
  const pageStatus = h('span', { id: 'bank-lines-page' });
  const heading = h('h1', { tabindex: -1 }, account.name, account.archived ? h('span', { class: 'tag' }, 'archived') : '');
  let page = 0;
  let reading = 0;
  /** The import whose lines the filter may show. @type {string | null} */
  let importId = null;

  const filtered = () => Boolean(status.value || from.value || to.value || lastImport.checked);
  /** Reads the page; a later read wins over an earlier one still on its way, and a failed one shows in its place. */
  const load = async () => {
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    out.setAttribute('aria-busy', 'true');
    /** @type {Record<string, string>} */
    const query = { page: String(page), size: size.value };
    for (const [key, value] of /** @type {[string, string][]} */ ([['status', status.value], ['from', from.value], ['to', to.value],
      ['importId', lastImport.checked && importId ? importId : '']])) if (value) query[key] = value;
    try {
      const { data } = /** @type {import('../api.js').Reply<'listBankLines'>} */ (await api('GET', `${bankPath(account.id, 'lines')}?${new URLSearchParams(query)}`));
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

  /**
   * A card drawn in place of the account; the way back puts the account back as it was left and reads its lines.
   * @param {(back: WayBack) => void} draw
   */
  const away = (draw) => {
    clearAlert();
    const saved = [...body.childNodes];
    draw({ to: () => {
      clearAlert();
      body.replaceChildren(...saved);
      heading.focus();
      importer?.resume();
      void load();
      void reconciliation?.refresh();
    }, label: `← Back to ${account.name}` });
  };

  /**
   * The line's status at a glance, and under it what the match says: the proposal's invoices (each opens its card) and why; once matched, the payment that
   * settles it instead, whose card shows what it settled (the proposal, kept, may not be what was chosen).
   * @param {BankLine} l
   */
  const statusCell = (l) => {
    /** @type {(Node | string)[]} */
    const parts = [];
    if (l.proposal && l.status !== 'MATCHED' && l.proposal.type === 'POST_TO_ACCOUNT') {
      parts.push(h('div', { class: 'proposal-account' }, `Post to account ${l.proposal.accountCode ?? ''}`), h('div', { class: 'reason muted' }, l.proposal.reason));
    } else if (l.proposal && l.status !== 'MATCHED') {
      const invoices = l.proposal.allocations.map((a) => {
        const label = `Invoice ${a.invoiceNumber ?? ''}`.trim();
        const amount = l.proposal && l.proposal.allocations.length > 1 ? ` · ${formatAmount(a.amount)}` : '';
        return h('div', { class: 'proposal-invoice', 'data-invoice': a.invoiceId },
          can('getInvoice') ? h('button', { type: 'button', class: 'link', 'data-action': 'open-invoice', onclick: () => away((b) => openInvoice(body, a.invoiceId, b)) }, label) : label, amount);
      });
      parts.push(...invoices, h('div', { class: 'reason muted' }, l.proposal.reason));
    }
    if (l.status === 'MATCHED' && l.paymentId) {
      const paymentId = l.paymentId;
      parts.push(can('getPayment')
        ? h('button', { type: 'button', class: 'link payment-link', 'data-action': 'open-payment', onclick: () => away((b) => showPayment(body, paymentId, { back: b, openInvoice }).catch((err) => failed(body, err))) }, 'Open the payment')
        : h('span', {}, 'Payment posted'));
      if (l.matchedAt) parts.push(h('div', { class: 'reason muted' }, `Matched on ${new Date(l.matchedAt).toLocaleDateString()}`));
    }
    if (l.status === 'MATCHED' && l.entryId) {
      parts.push(h('span', { class: 'entry-posted' }, 'Posted to an account'));
      if (l.matchedAt) parts.push(h('div', { class: 'reason muted' }, `Matched on ${new Date(l.matchedAt).toLocaleDateString()}`));
    }
    return h('td', { class: 'status' }, lineBadge(l.status), parts.length ? h('div', { class: 'match' }, parts) : '');
  };

  /**
   * The line's buttons, each only when /me/access allows it: Confirm and Choose invoices… on a line not matched,
   * Unmatch… (asked twice: it cancels the payment) on a matched one.
   * @param {BankLine} l
   */
  const actionsCell = (l) => {
    const cell = h('div', { class: 'row-actions' });
    const what = `the line of ${l.date}, ${formatAmount(l.amount)} ${l.currency}`;
    if (l.status !== 'MATCHED' && can('matchBankLine')) {
      if (l.status === 'PROPOSED') cell.append(h('button', { type: 'button', class: 'small', 'data-action': 'confirm', 'aria-label': `Confirm the proposal for ${what}`, onclick: () => void confirm(l, cell) }, 'Confirm'));
      cell.append(h('button', { type: 'button', class: 'link', 'data-action': 'choose', 'aria-label': `Choose the invoices ${what} settles, or take it as an advance`,
        onclick: () => away((b) => void matchForm(body, account, l, b).catch((err) => failed(body, err))) }, 'Choose invoices…'));
      // A bank fee or interest: the line posted straight to an account, no invoice or counterparty involved.
      const code = h('input', { type: 'text', inputmode: 'numeric', pattern: '[0-9]{4}', maxlength: '4', size: '4', placeholder: '9430', 'aria-label': `Account to post ${what} to` });
      const post = h('span', { class: 'post-to-account', hidden: true }, code,
        h('button', { type: 'button', class: 'small', 'data-action': 'post-to-account', onclick: () => void postTo(l, cell, /** @type {HTMLInputElement} */ (code).value.trim()) }, 'Post'));
      const open = h('button', { type: 'button', class: 'link', 'data-action': 'open-post-to-account', 'aria-label': `Post ${what} to an account`, onclick: () => {
        open.hidden = true;
        post.hidden = false;
        /** @type {HTMLInputElement} */ (code).focus();
      } }, 'Post to an account…');
      cell.append(open, post);
    }
    if (l.status === 'MATCHED' && can('unmatchBankLine')) {
      const ask = h('button', { type: 'button', class: 'link danger-link', 'data-action': 'unmatch', 'aria-label': `Unmatch ${what}` }, 'Unmatch…');
      const sure = h('span', { class: 'confirm-unmatch', hidden: true },
        h('button', { type: 'button', class: 'small danger', 'data-action': 'confirm-unmatch', onclick: () => void unmatch(l, cell) }, l.entryId ? 'Reverse its entry' : 'Cancel its payment'),
        h('button', { type: 'button', class: 'link', onclick: () => {
          sure.hidden = true;
          ask.hidden = false;
          ask.focus();
        } }, 'Keep it'));
      ask.addEventListener('click', () => {
        ask.hidden = true;
        sure.hidden = false;
        /** @type {HTMLElement} */ (sure.firstElementChild).focus();
      });
      cell.append(ask, sure);
    }
    return h('td', { class: 'actions' }, cell);
  };

  /**
   * A match or an unmatch sent from the line's row: its buttons wait for the answer, which the alert words and the
   * lines show, read again (a 409 means someone changed the line meanwhile).
   * @param {HTMLElement} cell
   * @param {() => Promise<unknown>} send
   * @param {string} said
   * @param {'confirm' | 'unmatch'} doing
   */
  const act = async (cell, send, said, doing) => {
    clearAlert();
    const buttons = [...cell.querySelectorAll('button')];
    buttons.forEach((b) => (b.disabled = true));
    try {
      await send();
      showAlert(said, 'info');
      await load();
      void reconciliation?.refresh();
    } catch (err) {
      buttons.forEach((b) => (b.disabled = false));
      showAlert(lineProblem(err, doing));
      if (err && problemType(err)?.startsWith('bank-line-')) await load();
    }
  };
  /** @param {BankLine} l @param {HTMLElement} cell */
  const confirm = (l, cell) => act(cell, () => api('POST', bankPath(account.id, 'lines', l.id, 'match'), /** @satisfies {import('../api.js').RequestBody<'matchBankLine'>} */ ({ acceptProposal: true })),
    l.proposal?.type === 'POST_TO_ACCOUNT'
      ? `Confirmed: the line ${lineText(l)} is posted to account ${l.proposal.accountCode ?? ''}.`
      : `Confirmed: the payment of the line ${lineText(l)} is posted, settling ${l.proposal?.allocations.map((a) => `invoice ${a.invoiceNumber ?? ''}`.trim()).join(', ') ?? 'its invoice'}.`, 'confirm');
  /** @param {BankLine} l @param {HTMLElement} cell @param {string} accountCode */
  const postTo = (l, cell, accountCode) => act(cell, () => api('POST', bankPath(account.id, 'lines', l.id, 'match'), /** @satisfies {import('../api.js').RequestBody<'matchBankLine'>} */ ({ accountCode })),
    `Posted: the line ${lineText(l)} is posted to account ${accountCode}.`, 'confirm');
  /** @param {BankLine} l @param {HTMLElement} cell */
  const unmatch = (l, cell) => act(cell, () => api('POST', bankPath(account.id, 'lines', l.id, 'unmatch')),
    l.entryId
      ? `Unmatched: the entry of the line ${lineText(l)} is reversed.`
      : `Unmatched: the payment of the line ${lineText(l)} is cancelled and its invoices are open again.`, 'unmatch');

  /** @param {import('./bank-common.js').Schemas['BankLinePage']} data */
  const draw = (data) => {
    const rows = data.items.map((l) => h('tr', { 'data-id': l.id, 'data-status': l.status, 'data-direction': l.direction, class: `line-${l.status.toLowerCase()}` },
      h('td', { class: 'date' }, l.date),
      h('td', { class: 'counterparty' },
        h('div', {}, l.counterpartyName ?? h('span', { class: 'muted' }, 'Not named')),
        l.counterpartyTin ? h('div', { class: 'muted small' }, `${l.counterpartyTin.length === 14 ? 'PINFL' : 'TIN'} ${l.counterpartyTin}`) : ''),
      h('td', { class: 'purpose' }, h('div', { class: 'purpose-text', title: l.purpose }, l.purpose),
        l.documentNumber ? h('div', { class: 'muted small' }, `No. ${l.documentNumber}`) : ''),
      h('td', { class: 'num in' }, l.direction === 'IN' ? formatAmount(l.amount) : ''),
      h('td', { class: 'num out' }, l.direction === 'OUT' ? formatAmount(l.amount) : ''),
      statusCell(l),
      actionsCell(l)));
    const list = table(['Date', 'Counterparty', 'Purpose', `Received (${account.currency})`, `Paid (${account.currency})`, 'Status', ''], rows);
    list.classList.add('bank-lines');
    alignAmounts(list, [3, 4]);
    out.replaceChildren(rows.length === 0 ? h('p', { class: 'muted' }, filtered() ? 'No line matches these filters.' : 'No lines yet: import the account’s statement.') : list);
    pageStatus.textContent = data.totalElements === 0 ? '' : `Page ${data.page + 1} of ${data.totalPages} · ${data.totalElements} ${data.totalElements === 1 ? 'line' : 'lines'}`;
    previous.disabled = data.page === 0;
    next.disabled = data.page >= data.totalPages - 1;
  };

  // What the statement and the books say at a date, and the lines that make the difference.
  const reconciliation = can('getBankReconciliation') ? bankReconciliation(account) : null;

  const importer = can('importBankStatement') && !account.archived ? statementImport(account, (imp) => {
    if (imp.status !== 'COMPLETED') return;
    importId = imp.id;
    lastImportLabel.hidden = false;
    fromStart();
    void reconciliation?.refresh();
  }) : null;

  for (const control of [status, from, to, lastImport, size]) control.addEventListener('change', fromStart);
  previous.addEventListener('click', () => {
    page = Math.max(0, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    page += 1;
    void load();
  });
  const filters = h('form', { class: 'inline filters', role: 'search', id: 'bank-line-filters', novalidate: true },
    h('label', {}, 'Status ', status), h('label', {}, 'From ', from), h('label', {}, 'To ', to), lastImportLabel, h('button', { type: 'submit' }, 'Search'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    fromStart();
  });

  body.replaceChildren(
    h('button', { type: 'button', class: 'link', onclick: back.to }, back.label),
    heading,
    h('p', { class: 'muted', id: 'bank-account-details' }, accountText(account)),
    importer ? h('h2', {}, 'Import a statement') : '',
    importer?.element ?? '',
    h('h2', {}, 'Lines'),
    filters, out,
    h('nav', { class: 'pager', 'aria-label': 'Bank line pages' }, previous, pageStatus, next, h('label', {}, 'Per page ', size)),
    reconciliation ? h('h2', { id: 'bank-reconciliation-heading' }, 'Reconciliation') : '',
    reconciliation?.element ?? '');
  heading.focus();
  void load();
  void reconciliation?.refresh();
}
