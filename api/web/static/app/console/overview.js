// @ts-check
// #overview: the company at a glance (getCompanyOverview): money per currency, who owes us and whom we owe
// with the overdue part, revenue and expenses of the last twelve months, what waits, the last close and the
// newest rate; each figure links to the section it comes from. The workspace and the caller's roles below it.
import { h } from '../dom.js';
import { api, can, company, me } from '../session.js';
import { alignAmounts, failed, money, table, today } from './common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */

/**
 * A figure with its label, linking to the section behind it.
 * @param {string} id
 * @param {string} label
 * @param {HTMLElement | string} value
 * @param {string | null} section the fragment of the section behind it, if the console has one
 * @param {string} [note]
 */
const figure = (id, label, value, section, note) =>
  h(section ? 'a' : 'div', { class: 'figure', id, ...(section ? { href: `#${section}` } : {}) },
    h('span', { class: 'figure-label' }, label), h('span', { class: 'figure-value' }, value), note ? h('span', { class: 'figure-note' }, note) : '');

/**
 * @param {Schemas['OverviewSettlement'][]} items
 * @param {string} label
 * @param {string} id
 */
const settlement = (items, label, id) =>
  items.length === 0
    ? [figure(id, label, 'nothing', 'aging')]
    : items.map((s) => figure(`${id}-${s.currency}`, label, money(s.outstanding, s.currency), 'aging', /^0(\.0+)?$/.test(s.overdue) ? 'none overdue' : `overdue ${s.overdue}`));

/** @param {Schemas['CompanyOverview']} o */
function drawOverview(o) {
  const rows = o.months.map((m) => h('tr', { 'data-month': m.month },
    h('td', {}, m.month),
    h('td', { class: 'num' }, money(m.revenue, 'UZS')),
    h('td', { class: 'num' }, money(m.expenses, 'UZS')),
    h('td', { class: `num ${m.result.startsWith('-') ? 'loss' : ''}` }, money(m.result, 'UZS'))));
  const months = table(['Month', 'Revenue', 'Expenses', 'Result'], rows);
  months.id = 'overview-months';
  alignAmounts(months, [1, 2, 3]);
  const w = o.waiting;
  return [
    h('section', { class: 'figures', 'aria-label': 'Money' },
      ...(o.money.length === 0 ? [figure('money-none', 'Money', 'no balance yet', 'trial-balance')] : o.money.map((m) => figure(`money-${m.currency}`, m.currency === 'UZS' ? 'Cash and bank' : `In ${m.currency}`, money(m.balance, m.currency), 'trial-balance', m.currency === 'UZS' ? undefined : `${m.carryingAmount} UZS`))),
      ...settlement(o.receivables, 'Owed to us', 'receivables'),
      ...settlement(o.payables, 'We owe', 'payables')),
    h('section', { class: 'figures waiting', 'aria-label': 'What waits' },
      figure('waiting-drafts', 'Draft invoices', String(w.draftInvoices), 'invoices'),
      figure('waiting-overdue', 'Invoices overdue', String(w.overdueInvoices), 'aging'),
      figure('waiting-bank', 'Bank lines to match', String(w.unmatchedBankLines), 'bank'),
      figure('waiting-webhooks', 'Failed webhook deliveries', String(w.failedWebhookDeliveries), null),
      figure('last-close', 'Closed through', o.lastClose ? o.lastClose.closeDate : 'no close yet', 'periods'),
      figure('latest-rate', 'CBU rates of', o.latestRateDate ?? 'none stored', null)),
    h('h2', {}, 'The last twelve months'),
    months,
  ];
}

/** @param {HTMLElement} body */
export async function overview(body) {
  const who = me();
  const out = h('div', { id: 'overview', 'aria-live': 'polite' });
  body.append(
    h('h1', {}, who.company.name ?? 'Your workspace'),
    out,
    h('dl', { class: 'workspace' }, h('dt', {}, 'Workspace'), h('dd', {}, who.company.slug), h('dt', {}, 'Your roles'), h('dd', { id: 'roles' }, who.roles.join(', '))),
  );
  if (!can('getCompanyOverview')) return;
  try {
    const { data } = /** @type {import('../api.js').Reply<'getCompanyOverview'>} */ (await api('GET', `/api/v1/ledger/${company()}/overview?${new URLSearchParams({ asOf: today() })}`));
    out.replaceChildren(h('p', { class: 'hint' }, `As of ${data.asOf}.`), ...drawOverview(data));
  } catch (err) {
    failed(out, err);
  }
}
