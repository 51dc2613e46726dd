// #trial-balance: the trial balance as of a date.
import { h } from '../dom.js';
import { api, company } from '../session.js';
import { failed, table, today } from './common.js';

export async function trialBalance(body) {
  const asOf = h('input', { type: 'date', name: 'asOf', value: today(), required: true });
  const out = h('div');
  const load = async () => {
    const { data } = await api('GET', `/api/v1/ledger/${company()}/trial-balance?asOf=${asOf.value}`);
    out.replaceChildren(
      table(['Code', 'Account', 'Debit', 'Credit', 'Balance'], [
        ...data.lines.map((l) => h('tr', {}, h('td', {}, l.code), h('td', {}, l.name), h('td', { class: 'num' }, l.debit), h('td', { class: 'num' }, l.credit), h('td', { class: 'num' }, l.balance))),
        h('tr', { class: 'total' }, h('td', {}), h('td', {}, 'Total'), h('td', { class: 'num', id: 'total-debit' }, data.totalDebit), h('td', { class: 'num', id: 'total-credit' }, data.totalCredit), h('td', {})),
      ]),
    );
  };
  const form = h('form', { class: 'inline' }, h('label', {}, 'As of ', asOf), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load().catch((err) => failed(out, err));
  });
  body.append(h('h1', {}, 'Trial balance'), form, out);
  await load();
}
