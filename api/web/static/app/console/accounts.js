// @ts-check
// #accounts: the company's chart of accounts with a literal search.
import { h } from '../dom.js';
import { api, company } from '../session.js';
import { failed, table } from './common.js';

/** @param {HTMLElement} body */
export async function accounts(body) {
  const search = h('input', { type: 'search', name: 'q', placeholder: 'Code or name', maxlength: 100 });
  const results = h('div');
  const load = async () => {
    const q = search.value.trim();
    const path = `/api/v1/accounting-settings/${company()}/accounts?${new URLSearchParams({ size: '100', ...(q ? { q } : {}) })}`;
    const res = /** @type {import('../api.js').Reply<'listCompanyAccounts'>} */ (await api('GET', path));
    results.replaceChildren(
      h('p', { class: 'muted' }, `${res.data.totalElements} accounts`),
      table(['Code', 'Name', 'Type', 'Enabled'], res.data.items.map((a) => h('tr', {}, h('td', {}, a.code), h('td', {}, a.name), h('td', {}, a.type), h('td', {}, a.enabled ? 'yes' : 'no')))),
    );
  };
  const form = h('form', { class: 'inline', role: 'search' }, search, h('button', { type: 'submit' }, 'Search'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load().catch((err) => failed(results, err));
  });
  body.append(h('h1', {}, 'Chart of accounts'), form, results);
  await load();
}
