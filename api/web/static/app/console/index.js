// @ts-check
// /console on a workspace host: the sections the caller's permissions allow (GET /me/access decides what is
// shown; the API still decides what is served).
import { h } from '../dom.js';
import { ungroupText } from '../money.js';
import { can } from '../session.js';
import { accounts } from './accounts.js';
import { aging } from './aging.js';
import { bank } from './bank-accounts.js';
import { failed } from './common.js';
import { fixedAssets } from './fixed-assets.js';
import { counterparties } from './counterparties.js';
import { invoices, openInvoice } from './invoices.js';
import { journal } from './journal.js';
import { overview } from './overview.js';
import { paymentList } from './payment-list.js';
import { periods, stopPolling } from './periods.js';
import { statements } from './statements.js';
import { trialBalance } from './trial-balance.js';
import { turnoverSheet } from './turnover-sheet.js';
import { users } from './users.js';
import { vatRegister } from './vat-register.js';

/**
 * Each section: its id (the fragment), its tab's label, whether the caller's permissions show it, and how it
 * is drawn into its body.
 * @type {[string, string, () => boolean, (body: HTMLElement) => unknown][]}
 */
const SECTIONS = [
  ['overview', 'Overview', () => true, overview],
  ['accounts', 'Chart of accounts', () => can('listCompanyAccounts'), accounts],
  ['counterparties', 'Counterparties', () => can('listCounterparties'), counterparties],
  ['invoices', 'Invoices', () => can('listInvoices'), invoices],
  ['payments', 'Payments', () => can('listPayments'), (body) => paymentList(body, { openInvoice })],
  ['bank', 'Bank', () => can('listBankAccounts'), bank],
  ['fixed-assets', 'Fixed assets', () => can('listFixedAssets'), fixedAssets],
  ['aging', 'Aging', () => can('getAgingReport'), aging],
  ['vat-register', 'VAT register', () => can('getVatRegister'), vatRegister],
  ['journal', 'Journal', () => can('listJournalEntries'), journal],
  ['trial-balance', 'Trial balance', () => can('getTrialBalance'), trialBalance],
  ['turnover-sheet', 'Turnover sheet', () => can('getTurnoverSheet'), turnoverSheet],
  ['statements', 'Statements', () => can('getBalanceSheet') || can('getFinancialResults'), statements],
  ['periods', 'Period closes', () => can('listPeriodCloses'), periods],
  ['users', 'Users and invitations', () => can('listUsers'), users],
];

export { stopPolling };

// Amounts are shown grouped by narrow no-break spaces (money.js); text copied from the page has them taken out
// between digits, so an amount pasted into a spreadsheet or a form is the API's decimal ("1250000.00").
document.addEventListener('copy', (event) => {
  const selected = document.getSelection()?.toString() ?? '';
  const plain = ungroupText(selected);
  if (plain === selected || !event.clipboardData) return;
  event.clipboardData.setData('text/plain', plain);
  event.preventDefault();
});

/**
 * @param {HTMLElement} view
 * @param {string} section the section's id, from the fragment
 */
export function consoleView(view, section) {
  const visible = SECTIONS.filter(([, , shown]) => shown());
  // The open section's tab draws the section again: the way back from an entry or a statement drawn in its place.
  /** @param {Event} event */
  const again = (event) => {
    event.preventDefault();
    stopPolling();
    consoleView(view, section);
  };
  const nav = h('nav', { class: 'tabs' }, visible.map(([id, label]) =>
    h('a', { href: `#${id}`, class: id === section ? 'active' : '', 'aria-current': id === section ? 'page' : undefined, onclick: id === section ? again : undefined }, label)));
  const body = h('section', { id: `section-${section}` });
  view.replaceChildren(nav, body);
  // A section opened without its permission is still drawn: its read answers 403, shown as a message.
  const draw = (SECTIONS.find(([id]) => id === section) ?? SECTIONS[0])[3];
  Promise.resolve(draw(body)).catch((err) => failed(body, err));
}
