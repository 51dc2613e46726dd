// #journal: the entries, one entry with its reversal, and the form that posts a balanced entry.
import { describe } from '../api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from '../dom.js';
import { AMOUNT, formatMinor, toMinor } from '../money.js';
import { api, can, company } from '../session.js';
import { failed, table, today, uuid } from './common.js';

export async function journal(body) {
  body.append(h('h1', {}, 'Journal'));
  const again = () => {
    body.replaceChildren();
    journal(body).catch((err) => failed(body, err));
  };
  if (can('postJournalEntry')) body.append(entryForm(again));
  const list = h('div');
  body.append(h('h2', {}, 'Entries'), list);
  const res = await api('GET', `/api/v1/ledger/${company()}/entries?size=50`);
  list.replaceChildren(
    res.data.items.length === 0
      ? h('p', { class: 'muted' }, 'No entries yet.')
      : table(
          ['No.', 'Date', 'Description', 'Amount', ''],
          res.data.items.map((e) =>
            h('tr', {}, h('td', {}, e.number), h('td', {}, e.entryDate), h('td', {}, e.description), h('td', { class: 'num' }, e.totalDebit),
              h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => showEntry(body, e.id, again) }, 'Open'))),
          ),
        ),
  );
}

/** The posting form; the balance is summed in BigInt minor units as the lines are typed. */
function entryForm(done) {
  const lines = h('tbody');
  const total = h('p', { class: 'muted', id: 'entry-total' });
  const line = (code = '', debit = '', credit = '') =>
    h('tr', {}, h('td', {}, h('input', { name: 'accountCode', value: code, pattern: '[0-9]{4}', maxlength: 4, required: true, 'aria-label': 'Account code' })),
      h('td', {}, h('input', { name: 'debit', value: debit, inputmode: 'decimal', 'aria-label': 'Debit' })),
      h('td', {}, h('input', { name: 'credit', value: credit, inputmode: 'decimal', 'aria-label': 'Credit' })));
  lines.append(line(), line());
  const readLines = () =>
    [...lines.children].map((tr) => {
      const [code, debit, credit] = [...tr.querySelectorAll('input')].map((i) => i.value.trim());
      return { accountCode: code, debit: debit || '0', credit: credit || '0' };
    }).filter((l) => l.accountCode || l.debit !== '0' || l.credit !== '0');
  const sum = () => {
    const ls = readLines();
    if (ls.some((l) => !AMOUNT.test(l.debit) || !AMOUNT.test(l.credit))) return (total.textContent = 'Amounts are decimals with at most two places, e.g. 1250.00'), null;
    const debit = ls.reduce((s, l) => s + toMinor(l.debit), 0n);
    const credit = ls.reduce((s, l) => s + toMinor(l.credit), 0n);
    total.textContent = `Debit ${formatMinor(debit)} · Credit ${formatMinor(credit)}${debit === credit ? ' · balanced' : ' · not balanced'}`;
    return { ls, balanced: debit === credit && debit > 0n };
  };
  lines.addEventListener('input', sum);
  const form = h(
    'form',
    { id: 'post-entry', novalidate: true },
    h('h2', {}, 'Post an entry'),
    h('label', {}, 'Date ', h('input', { name: 'entryDate', type: 'date', required: true, value: today() })),
    h('label', {}, 'Description ', h('input', { name: 'description', required: true, maxlength: 500 })),
    table(['Account', 'Debit', 'Credit'], lines),
    h('button', { type: 'button', class: 'link', onclick: () => lines.append(line()) }, 'Add a line'),
    total,
    h('button', { type: 'submit' }, 'Post'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const checked = sum();
    if (!checked) return showAlert('Some amount is not a decimal with at most two places.');
    if (!checked.balanced) return showAlert('Debits and credits must be equal and more than zero.');
    const f = fieldsOf(form);
    void busy(form, async () => {
      try {
        const res = await api('POST', `/api/v1/ledger/${company()}/entries`, { requestId: uuid(), entryDate: f.entryDate, description: f.description, lines: checked.ls });
        showAlert(`Posted entry ${res.data.number}.`, 'info');
        done();
      } catch (err) {
        showAlert(describe(err));
      }
    });
  });
  return form;
}

/** One entry with its lines; an entry that is neither reversed nor a reversal can be reversed here. */
async function showEntry(body, id, back) {
  const { data: e } = await api('GET', `/api/v1/ledger/${company()}/entries/${id}`);
  const parts = [
    h('button', { type: 'button', class: 'link', onclick: back }, '← All entries'),
    h('h1', {}, `Entry ${e.number}: ${e.description}`),
    h('p', {}, `Dated ${e.entryDate}, posted ${new Date(e.postedAt).toLocaleString()}`, e.reversalOf ? ' · reverses another entry' : '', e.reversedBy ? ' · reversed' : ''),
    table(['Line', 'Account', 'Debit', 'Credit', 'Memo'], e.lines.map((l) => h('tr', {}, h('td', {}, l.lineNo), h('td', {}, l.accountCode), h('td', { class: 'num' }, l.debit), h('td', { class: 'num' }, l.credit), h('td', {}, l.memo ?? '')))),
  ];
  if (can('reverseJournalEntry') && !e.reversedBy && !e.reversalOf) {
    const form = h('form', { id: 'reverse', class: 'inline', novalidate: true },
      h('label', {}, 'Reverse on ', h('input', { name: 'entryDate', type: 'date', required: true, value: today() })),
      h('label', {}, 'because ', h('input', { name: 'reason', required: true, maxlength: 400 })),
      h('button', { type: 'submit' }, 'Reverse'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const f = fieldsOf(form);
      void busy(form, async () => {
        try {
          const res = await api('POST', `/api/v1/ledger/${company()}/entries/${id}/reversal`, { requestId: uuid(), entryDate: f.entryDate, reason: f.reason });
          showAlert(`Reversed by entry ${res.data.number}.`, 'info');
          await showEntry(body, id, back);
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    parts.push(form);
  }
  body.replaceChildren(...parts);
}
