// @ts-check
// #overview: the company at a glance (getCompanyOverview): money per currency, who owes us and whom we owe
// with the overdue part, the month's VAT due, revenue and expenses of the last twelve months, what waits, the last close and the
// newest rate; each figure links to the section it comes from. Two charts, drawn with uPlot (served from our
// own origin, loaded only here): revenue and expenses by month, receivables by days past due, cash over the last
// 90 days. The page is whole
// without them: the table and the figures hold every number. The workspace and the caller's roles below it.
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

const BUCKETS = /** @type {const} */ ([['notDue', 'not due'], ['days1to30', '1–30'], ['days31to60', '31–60'], ['days61to90', '61–90'], ['over90', 'over 90']]);

/**
 * uPlot from our own origin, its style sheet added once; null when it cannot be loaded (the page stands without it).
 * @returns {Promise<any>}
 */
async function chartLibrary() {
  try {
    const where = '/app/vendor/uplot.js';
    const loaded = /** @type {{ default: any }} */ (await import(where));
    if (!document.querySelector('link[data-charts]')) document.head.append(h('link', { rel: 'stylesheet', href: '/app/vendor/uplot.css', 'data-charts': '' }));
    return loaded.default;
  } catch {
    return null;
  }
}

/**
 * The width a chart drawn in `place` has: its card's, less the card's padding.
 * @param {HTMLElement} place
 */
const chartWidth = (place) => Math.max(240, Math.min((place.parentElement?.clientWidth ?? 600) - 28, 1040));

/**
 * A bar chart in `place`: one bar per label and series. Amounts are drawn as numbers (a bar's height needs no
 * exactness); the figures and the table beside it are the decimal strings themselves.
 * @param {any} uPlot
 * @param {HTMLElement} place
 * @param {string[]} labels
 * @param {{ label: string, color: string, values: string[] }[]} series
 * @param {string} across what the labels are, the legend's first entry
 */
function bars(uPlot, place, labels, series, across) {
  const xs = labels.map((_, i) => i);
  const width = chartWidth(place);
  // A label under every bar while they fit, else under every other one.
  const every = width / labels.length < 44 ? 2 : 1;
  // Side by side: with two series, the first to the left of each label and the second to its right.
  const share = series.length === 1 ? 0.6 : 0.4;
  return new uPlot({
    width,
    height: 220,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false, range: [-0.5, labels.length - 0.5] } },
    axes: [
      { splits: () => xs, values: (/** @type {unknown} */ _u, /** @type {number[]} */ splits) => splits.map((i) => ((labels.length - 1 - i) % every === 0 ? labels[i] ?? '' : '')) },
      { size: 80, values: (/** @type {unknown} */ _u, /** @type {number[]} */ ticks) => ticks.map((t) => (Math.abs(t) >= 1e6 ? `${(t / 1e6).toFixed(1)} M` : String(t))) },
    ],
    series: [
      { label: across, value: (/** @type {unknown} */ _u, /** @type {number | null} */ i) => (i === null ? '--' : labels[i] ?? '--') },
      ...series.map((s, i) => ({
        label: s.label,
        stroke: s.color,
        fill: `${s.color}99`,
        paths: uPlot.paths.bars({ size: [share, 60], align: series.length === 1 ? 0 : i === 0 ? -1 : 1 }),
        points: { show: false },
      })),
    ],
  }, [xs, ...series.map((s) => s.values.map(Number))], place);
}

/**
 * The charts, drawn once uPlot is there; each is a link to the report behind it.
 * @param {Schemas['CompanyOverview']} o
 * @param {HTMLElement} place
 */
async function drawCharts(o, place) {
  const uPlot = await chartLibrary();
  if (!uPlot) return;
  const months = h('div', { id: 'chart-months', class: 'chart' });
  const cash = h('div', { id: 'chart-cash', class: 'chart' });
  const ages = h('div', { id: 'chart-aging', class: 'chart' });
  const receivable = o.receivables.find((r) => r.currency === 'UZS');
  place.replaceChildren(
    h('a', { href: '#turnover-sheet', class: 'chart-link', 'aria-label': 'Revenue and expenses by month: open the turnover sheet' }, h('h2', {}, 'Revenue and expenses'), months),
    receivable ? h('a', { href: '#aging', class: 'chart-link', 'aria-label': 'Receivables by days past due: open the aging' }, h('h2', {}, 'Owed to us, by days past due'), ages) : '',
    h('a', { href: '#trial-balance', class: 'chart-link', 'aria-label': 'Cash and bank over the last 90 days: open the trial balance' }, h('h2', {}, 'Cash and bank, the last 90 days (UZS)'), cash),
  );
  new uPlot({
    width: chartWidth(cash),
    height: 220,
    cursor: { drag: { x: false, y: false } },
    axes: [{}, { size: 80, values: (/** @type {unknown} */ _u, /** @type {number[]} */ ticks) => ticks.map((t) => (Math.abs(t) >= 1e6 ? `${(t / 1e6).toFixed(1)} M` : String(t))) }],
    series: [{ label: 'Day' }, { label: 'UZS', stroke: '#1f5fbf', fill: '#1f5fbf22', width: 2, points: { show: false } }],
  }, [o.cash.map((c) => Date.parse(`${c.date}T00:00:00Z`) / 1000), o.cash.map((c) => Number(c.balance))], cash);
  bars(uPlot, months, o.months.map((m) => m.month.slice(2).replace('-', '/')), [
    { label: 'Revenue', color: '#1d6b3a', values: o.months.map((m) => m.revenue) },
    { label: 'Expenses', color: '#a32020', values: o.months.map((m) => m.expenses) },
  ], 'Month');
  if (receivable) bars(uPlot, ages, BUCKETS.map(([, label]) => label), [{ label: 'UZS', color: '#1f5fbf', values: BUCKETS.map(([field]) => receivable[field]) }], 'Past due');
}

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
      ...settlement(o.payables, 'We owe', 'payables'),
      figure('vat-due', `VAT due for ${o.vat.month}`, money(o.vat.due, 'UZS'), 'vat-register', `output ${o.vat.output}, input ${o.vat.input}`)),
    h('section', { class: 'figures waiting', 'aria-label': 'What waits' },
      figure('waiting-drafts', 'Draft invoices', String(w.draftInvoices), 'invoices'),
      figure('waiting-overdue', 'Invoices overdue', String(w.overdueInvoices), 'aging'),
      figure('waiting-bank', 'Bank lines to match', String(w.unmatchedBankLines), 'bank'),
      figure('waiting-webhooks', 'Failed webhook deliveries', String(w.failedWebhookDeliveries), null),
      figure('last-close', 'Closed through', o.lastClose ? o.lastClose.closeDate : 'no close yet', 'periods'),
      figure('latest-rate', 'CBU rates of', o.latestRateDate ?? 'none stored', null)),
    h('div', { class: 'charts', id: 'overview-charts' }),
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
    await drawCharts(data, /** @type {HTMLElement} */ (out.querySelector('#overview-charts')));
  } catch (err) {
    failed(out, err);
  }
}
