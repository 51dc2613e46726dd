// @ts-check
// A bank account's reconciliation at a date (getBankReconciliation): the statement's balance against the GL
// account's, the statement lines no payment settles yet and the ledger lines no statement line explains, each
// with its total, and what is left unexplained: 0.00 calm, anything else marked. The date is the last line's day
// until one is chosen; CSV and XLSX of the unmatched lines by Accept, as the reports' exports are.
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { api, company } from '../session.js';
import { bankPath, lineBadge } from './bank-common.js';
import { alignAmounts, failed, table, today } from './common.js';
import { downloadButtons } from './download.js';

/** @typedef {import('./bank-common.js').BankAccount} BankAccount */
/** @typedef {import('./bank-common.js').Schemas['BankReconciliation']} Reconciliation */

/**
 * The reconciliation of `account`: its form, figures and lists; `refresh` reads it again (a line matched or a
 * statement imported changes it), from the last line's day again unless a date was chosen.
 * @param {BankAccount} account
 */
export function bankReconciliation(account) {
  const asOf = h('input', { type: 'date', name: 'asOf', required: true });
  const out = h('div', { id: 'bank-reconciliation', 'aria-live': 'polite', 'aria-busy': 'false' });
  /** A date typed or picked by the reader, kept over the last line's day. */
  let chosen = false;
  let reading = 0;
  const path = () => `/api/v1/ledger/${company()}/reports/bank-reconciliation?${new URLSearchParams({ bankAccountId: account.id, asOf: asOf.value || today() })}`;

  /** The last line's day (the lines are in date order), or today before any. */
  const lastLineDate = async () => {
    const lines = `${bankPath(account.id, 'lines')}?`;
    const first = /** @type {import('../api.js').Reply<'listBankLines'>} */ (await api('GET', `${lines}${new URLSearchParams({ size: '1' })}`));
    const total = first.data.totalElements;
    if (total === 0) return today();
    const last = /** @type {import('../api.js').Reply<'listBankLines'>} */ (await api('GET', `${lines}${new URLSearchParams({ size: '1', page: String(total - 1) })}`));
    return last.data.items[0]?.date ?? today();
  };

  const refresh = async () => {
    const mine = ++reading;
    out.setAttribute('aria-busy', 'true');
    try {
      if (!chosen) {
        const date = await lastLineDate();
        if (mine !== reading) return;
        if (!chosen) asOf.value = date;
      }
      const { data } = /** @type {import('../api.js').Reply<'getBankReconciliation'>} */ (await api('GET', path()));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine === reading) failed(out, err);
    } finally {
      if (mine === reading) out.setAttribute('aria-busy', 'false');
    }
  };

  /**
   * An amount cell, signed as the API gives it (money in positive).
   * @param {string} amount
   */
  const amountCell = (amount) => h('td', { class: `num${amount.startsWith('-') ? ' negative' : ''}` }, formatAmount(amount));

  /**
   * A list's table with its total in the footer, or a line saying there is nothing.
   * @param {string} id
   * @param {string[]} headers the last one the amount's
   * @param {HTMLTableRowElement[]} rows
   * @param {string} total
   * @param {string} none
   */
  const list = (id, headers, rows, total, none) => {
    if (rows.length === 0) return h('p', { class: 'muted', id }, none);
    const t = table(headers, rows);
    t.id = id;
    t.classList.add('reconciliation-lines');
    alignAmounts(t, [headers.length - 1]);
    t.append(h('tfoot', {}, h('tr', { class: 'total' }, h('td', { colspan: headers.length - 1 }, 'Total'), h('td', { class: 'num', 'data-total': total }, formatAmount(total)))));
    return t;
  };

  /** @param {Reconciliation} r */
  const draw = (r) => {
    const c = r.currency;
    const zero = /^-?0(\.0+)?$/.test(r.unexplained);
    const statementRows = r.unmatchedStatementLines.items.map((l) => h('tr', { 'data-id': l.lineId, 'data-status': l.status },
      h('td', { class: 'date' }, l.date),
      h('td', { class: 'counterparty' }, l.counterpartyName ?? h('span', { class: 'muted' }, 'Not named')),
      h('td', { class: 'purpose' }, h('div', { class: 'purpose-text', title: l.purpose }, l.purpose)),
      h('td', { class: 'status' }, lineBadge(l.status)),
      amountCell(l.amount)));
    const ledgerRows = r.unmatchedLedgerLines.items.map((l) => h('tr', { 'data-entry': l.entryNumber },
      h('td', { class: 'date' }, l.date),
      h('td', { class: 'entry' }, String(l.entryNumber)),
      h('td', { class: 'description' }, l.description),
      amountCell(l.amount)));
    /** @type {[string, string, string, string?][]} */
    const figures = [
      ['Statement balance', 'bank-rec-statement', r.statementBalance],
      [`Ledger balance (GL ${r.accountCode})`, 'bank-rec-ledger', r.ledgerBalance],
      [`Unmatched statement lines (${r.unmatchedStatementLines.count})`, 'bank-rec-statement-lines', r.unmatchedStatementLines.total, '−'],
      [`Unmatched ledger lines (${r.unmatchedLedgerLines.count})`, 'bank-rec-ledger-lines', r.unmatchedLedgerLines.total, '+'],
    ];
    out.replaceChildren(
      h('div', { class: 'reconciliation-figures' },
        h('dl', { class: 'reconciliation-summary' }, figures.flatMap(([label, id, amount, sign]) => [
          h('dt', {}, sign ? h('span', { class: 'sign', 'aria-hidden': 'true' }, `${sign} `) : '', label),
          h('dd', { id }, formatAmount(amount), h('span', { class: 'currency' }, ` ${c}`))])),
        h('div', { id: 'bank-rec-unexplained', class: `unexplained ${zero ? 'agreed' : 'differs'}`, 'data-unexplained': r.unexplained },
          h('span', { class: 'label' }, 'Unexplained'),
          h('span', { class: 'amount' }, formatAmount(r.unexplained), h('span', { class: 'currency' }, ` ${c}`)),
          h('span', { class: 'note' }, zero
            ? 'The bank and the books agree.'
            : r.firstStatementDate
              ? `The bank and the books differ by this much: compare the GL account before ${r.firstStatementDate} with the first statement’s opening balance.`
              : 'No statement is imported by this date.'))),
      h('p', { class: 'hint' }, `Statement balance − ledger balance − unmatched statement lines + unmatched ledger lines, as of ${r.asOf}; money in positive.`),
      h('h3', {}, 'Statement lines not matched'),
      list('bank-rec-statement-list', ['Date', 'Counterparty', 'Purpose', 'Status', `Amount (${c})`], statementRows, r.unmatchedStatementLines.total, r.firstStatementDate ? 'Every statement line by this date is matched.' : 'No statement is imported by this date.'),
      h('h3', {}, 'Ledger lines without a statement line'),
      list('bank-rec-ledger-list', ['Date', 'Entry', 'Description', `Amount (${c})`], ledgerRows, r.unmatchedLedgerLines.total, `Every entry on ${r.accountCode} by this date has its statement line.`),
    );
  };

  const form = h('form', { class: 'inline filters', id: 'bank-reconciliation-form', novalidate: true },
    h('label', {}, 'As of ', asOf), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    chosen = Boolean(asOf.value);
    void refresh();
  });
  asOf.addEventListener('change', () => {
    chosen = Boolean(asOf.value);
    void refresh();
  });
  const element = h('div', { class: 'bank-reconciliation' }, form, downloadButtons(path), out);
  return { element, refresh };
}
