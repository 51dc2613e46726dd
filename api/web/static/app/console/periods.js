// @ts-check
// #periods: the period closes, polled while one runs, and the form that starts one.
import { describe } from '../api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from '../dom.js';
import { api, can, company } from '../session.js';
import { failed, table, uuid } from './common.js';

/** @type {ReturnType<typeof setTimeout> | undefined} */
let poller;

/** Called whenever the console leaves this section (or the session ends). */
export function stopPolling() {
  clearTimeout(poller);
  poller = undefined;
}

/** @param {HTMLElement} body */
export async function periods(body) {
  const list = h('div');
  const load = async () => {
    const { data: closes } = /** @type {import('../api.js').Reply<'listPeriodCloses'>} */ (await api('GET', `/api/v1/ledger/${company()}/periods`));
    list.replaceChildren(
      closes.length === 0
        ? h('p', { class: 'muted' }, 'No period has been closed.')
        : table(['Closed through', 'Status', 'Requested', 'Entries', ''], closes.map((c) =>
            h('tr', {}, h('td', {}, c.closeDate), h('td', { class: `status ${c.status}` }, c.status), h('td', {}, new Date(c.requestedAt).toLocaleString()),
              h('td', {}, c.entryCount ?? ''), h('td', {}, c.failureReason ?? '')))),
    );
    // A close runs in the background: poll while one is RUNNING and the list is still on the page (a read that
    // answers after the section was left would otherwise poll on, out of stopPolling's reach).
    if (list.isConnected && closes.some((c) => c.status === 'RUNNING')) poller = setTimeout(() => load().catch((err) => failed(list, err)), 1000);
  };
  body.append(h('h1', {}, 'Period closes'));
  if (can('closePeriod')) {
    const form = h('form', { id: 'close-period', class: 'inline', novalidate: true },
      h('label', {}, 'Close through ', h('input', { name: 'closeDate', type: 'date', required: true })),
      h('button', { type: 'submit' }, 'Close period'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      clearAlert();
      const { closeDate } = fieldsOf(form);
      void busy(form, async () => {
        try {
          await api('POST', `/api/v1/ledger/${company()}/periods/close`, /** @satisfies {import('../api.js').RequestBody<'closePeriod'>} */ ({ requestId: uuid(), closeDate }));
          stopPolling();
          await load();
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    body.append(form);
  }
  body.append(list);
  await load();
}
