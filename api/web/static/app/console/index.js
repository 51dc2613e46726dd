// /console on a workspace host: the sections the caller's permissions allow (GET /me/access decides what is
// shown; the API still decides what is served).
import { h } from '../dom.js';
import { can } from '../session.js';
import { accounts } from './accounts.js';
import { failed } from './common.js';
import { journal } from './journal.js';
import { overview } from './overview.js';
import { periods } from './periods.js';
import { trialBalance } from './trial-balance.js';
import { users } from './users.js';

const SECTIONS = [
  ['overview', 'Overview', () => true, overview],
  ['accounts', 'Chart of accounts', () => can('listCompanyAccounts'), accounts],
  ['journal', 'Journal', () => can('listJournalEntries'), journal],
  ['trial-balance', 'Trial balance', () => can('getTrialBalance'), trialBalance],
  ['periods', 'Period closes', () => can('listPeriodCloses'), periods],
  ['users', 'Users and invitations', () => can('listUsers'), users],
];

export { stopPolling } from './periods.js';

export function consoleView(view, section) {
  const visible = SECTIONS.filter(([, , shown]) => shown());
  const nav = h('nav', { class: 'tabs' }, visible.map(([id, label]) => h('a', { href: `#${id}`, class: id === section ? 'active' : '' }, label)));
  const body = h('section', { id: `section-${section}` });
  view.replaceChildren(nav, body);
  // A section opened without its permission is still drawn: its read answers 403, shown as a message.
  const draw = (SECTIONS.find(([id]) => id === section) ?? SECTIONS[0])[3];
  Promise.resolve(draw(body)).catch((err) => failed(body, err));
}
