// @ts-check
// #journal: the entries, one entry with its reversal, and the form that posts a balanced entry (lines in UZS
// or in a foreign currency at the Central Bank's rate of the entry date), each line's account and, if any, its
// counterparty chosen with the pickers.
import { ProblemError, describe } from '../api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from '../dom.js';
import { AMOUNT, convertToMinor, formatAmount, formatMinor, groupDigits, plainAmount, toMinor } from '../money.js';
import { api, can, company } from '../session.js';
import { accountPicker } from './account-picker.js';
import { failed, problemType, table, today, uuid } from './common.js';
import { counterpartyPicker, identification } from './counterparty-picker.js';
import { FUNCTIONAL, currencyDecimals, foreignAmountPattern, foreignText, rateText, readCbuRates } from './currency.js';
import { downloadButtons } from './download.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {import('./currency.js').CbuRate} CbuRate */
/** @typedef {import('./currency.js').ForeignLine} ForeignLine */

/**
 * A line of the posting form as it is sent, with its row in the form (blank rows are left out of the entry,
 * so a problem's line index is mapped back to the row the person sees) and its pickers.
 * @typedef {{ row: number, body: Schemas['JournalLineCreate'], pickers: LinePickers }} FormLine
 */

/**
 * A line's account picker and, for a caller who may list counterparties, its counterparty picker.
 * @typedef {{ account: import('./combobox.js').Combobox, counterparty: import('./combobox.js').Combobox | null }} LinePickers
 */

/**
 * An error of a `conversion-mismatch` problem: the line's path and the UZS amount the stored rate gives.
 * The OpenAPI document names `expectedAmount` only in the operation's description, not in Problem.
 * @typedef {NonNullable<import('../api.js').Problem['errors']>[number] & { expectedAmount?: string | null }} ConversionError
 */

/** @param {HTMLElement} body */
export async function journal(body) {
  body.append(h('h1', {}, 'Journal'));
  const again = () => {
    body.replaceChildren();
    journal(body).catch((err) => failed(body, err));
  };
  if (can('postJournalEntry')) body.append(entryForm(again));
  const list = h('div');
  // The files have every line of every entry, not the page listed.
  body.append(h('h2', {}, 'Entries'), downloadButtons(() => `/api/v1/ledger/${company()}/entries`, ['csv', 'xlsx', 'hledger']), list);
  const res = /** @type {import('../api.js').Reply<'listJournalEntries'>} */ (await api('GET', `/api/v1/ledger/${company()}/entries?size=50`));
  list.replaceChildren(
    res.data.items.length === 0
      ? h('p', { class: 'muted' }, 'No entries yet.')
      : table(
          ['No.', 'Date', 'Description', 'Amount', 'Foreign currency', ''],
          res.data.items.map((e) =>
            h('tr', {}, h('td', {}, e.number), h('td', {}, e.entryDate), h('td', {}, e.description), h('td', { class: 'num' }, formatAmount(e.totalDebit)),
              h('td', { class: 'foreign' }, e.lines.filter(/** @returns {l is ForeignLine} */ (l) => l.currency !== null).map((l) => h('div', {}, foreignText(l)))),
              // A failed read shows in the section, as an entry opened from a statement does.
              h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => showEntry(body, e.id, again).catch((err) => failed(body, err)) }, 'Open'))),
          ),
        ),
  );
}

/**
 * The posting form. A line is in UZS (debit or credit typed) or in a foreign currency: its amount in the
 * currency and its side, converted at the CBU rate of the entry date (GET /rates?date=, read again whenever
 * the date changes) into the UZS debit or credit, exactly as the API checks it. The balance is summed in
 * BigInt minor units as the lines are typed. Amounts may be typed grouped ("1 250 000.00"); a typed one is
 * shown grouped once its field is left, and a converted one always is.
 * @param {() => void} done
 */
function entryForm(done) {
  const withCounterparty = can('listCounterparties');
  /** @type {WeakMap<HTMLTableRowElement, LinePickers>} */
  const pickers = new WeakMap();
  /** @param {HTMLTableRowElement} tr */
  const pickersOf = (tr) => /** @type {LinePickers} */ (pickers.get(tr));
  const entryDate = h('input', { name: 'entryDate', type: 'date', required: true, value: today() });
  const ratesNote = h('p', { class: 'hint', id: 'rates-note', hidden: true });
  const lines = h('tbody');
  const lineRows = /** @type {HTMLCollectionOf<HTMLTableRowElement>} */ (lines.children);
  const total = h('p', { class: 'muted', id: 'entry-total', 'aria-live': 'polite' });
  // The CBU rates of the entry date as last read; `pending` while the date's rates are being read.
  /** @type {{ date: string | null, byCode: Map<string, CbuRate>, pending: boolean, note?: string }} */
  let rates = { date: null, byCode: new Map(), pending: true };
  let reading = 0;

  /**
   * A line's control by its name: the currency and the side are pickers, the rest inputs.
   * @template {string} Name
   * @param {HTMLTableRowElement} tr
   * @param {Name} name
   * @returns {Name extends 'currency' | 'side' ? HTMLSelectElement : HTMLInputElement}
   */
  const field = (tr, name) => /** @type {any} */ (tr.querySelector(`[name=${name}]`));
  /**
   * The currency picker's options: UZS and the currencies with a rate; a chosen currency without one stays.
   * @param {HTMLSelectElement} select
   */
  const fillCurrencies = (select) => {
    const chosen = select.value || FUNCTIONAL;
    const codes = [FUNCTIONAL, ...rates.byCode.keys()];
    if (!codes.includes(chosen)) codes.push(chosen);
    select.replaceChildren(...codes.map((code) =>
      h('option', { value: code, selected: code === chosen }, code === FUNCTIONAL || rates.byCode.has(code) || rates.pending ? code : `${code} (no rate)`)));
  };
  /**
   * A foreign line's rate and its UZS amount on its side; a UZS line's amounts are typed.
   * @param {HTMLTableRowElement} tr
   */
  const updateLine = (tr) => {
    const currency = field(tr, 'currency').value;
    const foreign = currency !== FUNCTIONAL;
    const amount = field(tr, 'currencyAmount');
    const side = field(tr, 'side');
    const debit = field(tr, 'debit');
    const credit = field(tr, 'credit');
    if (foreign && tr.dataset.currency === FUNCTIONAL) side.value = credit.value.trim() && !debit.value.trim() ? 'credit' : 'debit';
    tr.dataset.currency = currency;
    amount.hidden = side.hidden = !foreign;
    debit.readOnly = credit.readOnly = foreign;
    const rateCell = /** @type {HTMLTableCellElement} */ (tr.querySelector('.rate'));
    if (!foreign) return (rateCell.textContent = '');
    const known = rates.byCode.get(currency);
    let uzs = '';
    if (rates.pending) rateCell.textContent = 'Reading the CBU rate…';
    else if (!rates.date) rateCell.textContent = 'Choose the entry date for its CBU rate';
    else if (!known) rateCell.textContent = `No CBU rate of ${currency} on or before ${rates.date}`;
    else {
      rateCell.textContent = rateText(currency, known);
      const text = plainAmount(amount.value.trim());
      const minor = foreignAmountPattern(currency).test(text) ? convertToMinor(text, known.rate) : null;
      if (minor !== null && minor > 0n) uzs = groupDigits(formatMinor(minor));
    }
    debit.value = side.value === 'debit' ? uzs : '';
    credit.value = side.value === 'credit' ? uzs : '';
  };
  const line = () => {
    const currency = h('select', { name: 'currency', 'aria-label': 'Currency' });
    fillCurrencies(currency);
    const row = lineRows.length + 1;
    const account = accountPicker({ label: `Account of line ${row}` });
    const counterparty = withCounterparty ? counterpartyPicker({ label: `Counterparty of line ${row} (optional)` }) : null;
    const tr = h('tr', { 'data-currency': FUNCTIONAL },
      h('td', { class: 'account' }, account.element),
      counterparty ? h('td', { class: 'counterparty' }, counterparty.element) : '',
      h('td', {}, currency),
      h('td', {}, h('div', { class: 'pair' },
        h('input', { name: 'currencyAmount', inputmode: 'decimal', maxlength: 20, hidden: true, 'aria-label': 'Amount in currency' }),
        h('select', { name: 'side', hidden: true, 'aria-label': 'Side' }, h('option', { value: 'debit' }, 'Debit'), h('option', { value: 'credit' }, 'Credit')))),
      h('td', { class: 'rate' }),
      h('td', {}, h('input', { name: 'debit', inputmode: 'decimal', maxlength: 30, 'aria-label': 'Debit (UZS)' })),
      h('td', {}, h('input', { name: 'credit', inputmode: 'decimal', maxlength: 30, 'aria-label': 'Credit (UZS)' })));
    pickers.set(tr, { account, counterparty });
    updateLine(tr);
    return tr;
  };
  lines.append(line(), line());

  /**
   * The lines to post (blank rows left out), each with its row number, or the first thing wrong with one.
   * @returns {{ ls: FormLine[], error?: undefined } | { error: string, ls?: undefined }}
   */
  const readLines = () => {
    /** @type {FormLine[]} */
    const ls = [];
    for (const [i, tr] of [...lineRows].entries()) {
      const [currency, amount, debit, credit] = ['currency', 'currencyAmount', 'debit', 'credit'].map((name) => plainAmount(field(tr, name).value.trim()));
      const linePickers = pickersOf(tr);
      const code = linePickers.account.value();
      const counterpartyId = linePickers.counterparty?.value() ?? '';
      const foreign = currency !== FUNCTIONAL;
      if (!code && !linePickers.account.text() && !linePickers.counterparty?.text() && !debit && !credit && !(foreign && amount)) continue;
      const row = i + 1;
      // A body without counterpartyId is the request it was before lines had one.
      const base = { accountCode: code, ...(counterpartyId ? { counterpartyId } : {}) };
      if (!foreign) {
        ls.push({ row, pickers: linePickers, body: { ...base, debit: debit || '0', credit: credit || '0' } });
        continue;
      }
      if (rates.pending) return { error: 'The CBU rates of the entry date are still being read; post again in a moment.' };
      if (!rates.date) return { error: `Line ${row} is in ${currency}: choose the entry date, whose CBU rate converts it.` };
      if (!rates.byCode.has(currency)) return { error: `Line ${row}: there is no CBU rate of ${currency} on or before ${rates.date}. Choose another currency or date.` };
      if (!foreignAmountPattern(currency).test(amount) || !/[1-9]/.test(amount)) {
        return { error: `Line ${row}: the amount in ${currency} must be a number above zero with at most ${currencyDecimals(currency)} decimals.` };
      }
      if (!debit && !credit) return { error: `Line ${row}: ${amount} ${currency} is more than a line can hold in UZS.` };
      // The rate is the API's to apply (the stored CBU rate of the date): the UZS amount shown is checked against it.
      ls.push({ row, pickers: linePickers, body: { ...base, debit: debit || '0', credit: credit || '0', currency, currencyAmount: amount, rateSource: 'CBU' } });
    }
    return { ls };
  };
  /**
   * Sums the lines into the total line; what to post, and whether it balances, or what is wrong.
   * @returns {{ ls: FormLine[], balanced: boolean, error?: undefined } | { error: string, ls?: undefined, balanced?: undefined }}
   */
  const sum = () => {
    const { ls, error } = readLines();
    if (error !== undefined) return (total.textContent = error), { error };
    if (ls.some((l) => !AMOUNT.test(l.body.debit) || !AMOUNT.test(l.body.credit))) {
      total.textContent = `Amounts are decimals with at most two places, e.g. 1250.00 or ${groupDigits('1250.00')}`;
      return { error: 'Some amount is not a decimal with at most two places.' };
    }
    const debit = ls.reduce((s, l) => s + toMinor(l.body.debit), 0n);
    const credit = ls.reduce((s, l) => s + toMinor(l.body.credit), 0n);
    total.textContent = `Debit ${groupDigits(formatMinor(debit))} · Credit ${groupDigits(formatMinor(credit))}${debit === credit ? ' · balanced' : ' · not balanced'}`;
    return { ls, balanced: debit === credit && debit > 0n };
  };
  /** @param {HTMLTableRowElement | null} tr */
  const recalculate = (tr) => {
    if (tr) updateLine(tr);
    sum();
  };
  /** Reads the CBU rates of the entry date, then redraws every line; a later read wins over an earlier one. */
  const readRates = async () => {
    const date = entryDate.value;
    const mine = ++reading;
    rates = { ...rates, pending: true };
    [...lineRows].forEach((tr) => updateLine(tr));
    /** @type {{ date: string, byCode: Map<string, CbuRate>, pending: boolean, note: string }} */
    const next = { date, byCode: new Map(), pending: false, note: '' };
    if (!date) next.note = 'Choose the date to read its Central Bank (CBU) rates; until then lines are in UZS.';
    else {
      try {
        next.byCode = await readCbuRates(date);
        if (next.byCode.size === 0) next.note = `No Central Bank (CBU) rate is stored on or before ${date}: lines are in UZS.`;
      } catch (err) {
        next.note = `The Central Bank (CBU) rates could not be read (${describe(err)}): lines are in UZS.`;
      }
    }
    if (mine !== reading) return;
    rates = next;
    ratesNote.textContent = next.note;
    ratesNote.hidden = !next.note;
    for (const tr of lineRows) {
      fillCurrencies(field(tr, 'currency'));
      updateLine(tr);
    }
    sum();
  };
  // Input events come from the lines' controls, inside their rows.
  lines.addEventListener('input', (event) => recalculate(/** @type {Element} */ (event.target).closest('tr')));
  // A typed amount is shown grouped once its field is left (a converted one already is).
  lines.addEventListener('change', (event) => {
    const target = /** @type {HTMLInputElement} */ (event.target);
    if (!['debit', 'credit', 'currencyAmount'].includes(target.name) || target.readOnly) return;
    const plain = plainAmount(target.value.trim());
    if (/^[0-9]+(\.[0-9]+)?$/.test(plain)) target.value = groupDigits(plain);
  });
  entryDate.addEventListener('change', () => void readRates());

  const form = h(
    'form',
    { id: 'post-entry', novalidate: true },
    h('h2', {}, 'Post an entry'),
    h('label', {}, 'Date ', entryDate),
    h('label', {}, 'Description ', h('input', { name: 'description', required: true, maxlength: 500 })),
    h('p', { class: 'hint' }, 'Choose each line\'s account (type its code or name, then pick it with ↓ ↑ and Enter)',
      withCounterparty ? ' and, if the line is with a customer or supplier, its counterparty' : '',
      '. A line in a foreign currency takes the Central Bank (CBU) rate of the entry date; its UZS debit or credit is the amount at that rate, rounded half-up to the tiyin.'),
    ratesNote,
    h('div', { class: 'lines' }, table(['Account', ...(withCounterparty ? ['Counterparty'] : []), 'Currency', 'Amount in currency', 'Rate', 'Debit (UZS)', 'Credit (UZS)'], lines)),
    h('button', { type: 'button', class: 'link', onclick: () => lines.append(line()) }, 'Add a line'),
    total,
    h('button', { type: 'submit' }, 'Post'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const checked = sum();
    if (checked.error !== undefined) return showAlert(checked.error);
    const unchosen = unchosenPick(checked.ls);
    if (unchosen) {
      unchosen.input.setAttribute('aria-invalid', 'true');
      unchosen.input.focus();
      return showAlert(unchosen.message);
    }
    if (!checked.balanced) return showAlert('Debits and credits must be equal and more than zero.');
    const f = fieldsOf(form);
    void busy(form, async () => {
      try {
        const entry = /** @satisfies {import('../api.js').RequestBody<'postJournalEntry'>} */ ({ requestId: uuid(), entryDate: f.entryDate, description: f.description, lines: checked.ls.map((l) => l.body) });
        const res = /** @type {import('../api.js').Reply<'postJournalEntry'>} */ (await api('POST', `/api/v1/ledger/${company()}/entries`, entry));
        showAlert(`Posted entry ${res.data.number}.`, 'info');
        done();
      } catch (err) {
        showAlert(postingProblem(err, checked.ls));
        markLines(err, checked.ls);
        // The stored rates changed since the form read them: read them again, so the lines show what the API takes.
        const type = problemType(err);
        if (type === 'rate-unavailable' || type === 'conversion-mismatch') await readRates();
      }
    });
  });
  void readRates();
  return form;
}

/**
 * The first picker of a line to post that holds text but no choice: an account typed that is not one (a
 * four-digit code stands as typed, for the API to check), or a counterparty typed but not picked.
 * @param {FormLine[]} ls
 * @returns {{ input: HTMLInputElement, message: string } | null}
 */
function unchosenPick(ls) {
  for (const { row, body, pickers } of ls) {
    if (!body.accountCode) {
      const typed = pickers.account.text();
      return { input: pickers.account.input, message: typed ? `Line ${row}: “${typed}” is not an account that takes lines; choose one from the list.` : `Line ${row}: choose its account.` };
    }
    const counterparty = pickers.counterparty;
    if (counterparty && counterparty.text() && !counterparty.value()) {
      return { input: counterparty.input, message: `Line ${row}: choose the counterparty “${counterparty.text()}” from the list, or clear it.` };
    }
  }
  return null;
}

/**
 * The row a problem's `errors` path names (`/body/lines/2/counterpartyId`: the third line sent), and the field.
 * @param {string | undefined} path
 * @param {FormLine[]} sent
 * @returns {{ line: FormLine | undefined, row: number | string, field: string } | null}
 */
function lineOf(path, sent) {
  const found = /\/lines\/([0-9]+)(?:\/([A-Za-z]+))?/.exec(path ?? '');
  if (!found) return null;
  const line = sent[Number(found[1])];
  return { line, row: line?.row ?? Number(found[1]) + 1, field: found[2] ?? '' };
}

/**
 * Marks the pickers of the lines a refusal names (an unknown or archived counterparty, a header account).
 * @param {unknown} err
 * @param {FormLine[]} sent
 */
function markLines(err, sent) {
  if (!(err instanceof ProblemError) || !Array.isArray(err.problem.errors)) return;
  for (const e of err.problem.errors) {
    const at = lineOf(e.path, sent);
    if (!at?.line) continue;
    if (at.field === 'accountCode') at.line.pickers.account.input.setAttribute('aria-invalid', 'true');
    if (at.field === 'counterpartyId') at.line.pickers.counterparty?.input.setAttribute('aria-invalid', 'true');
  }
}

/**
 * A refused posting in plain words; the two currency problems name what to do, the rest read as the API says.
 * @param {unknown} err
 * @param {FormLine[]} sent
 */
function postingProblem(err, sent) {
  if (!(err instanceof ProblemError)) return describe(err);
  const type = problemType(err);
  if (type === 'rate-unavailable') {
    const currencies = Array.isArray(err.problem.currencies) ? err.problem.currencies.join(', ') : 'a line\'s currency';
    return `The Central Bank (CBU) has no rate of ${currencies} stored on or before ${err.problem.date ?? 'the entry date'}, so the entry cannot be converted to UZS. ` +
      'Choose another date, or enter those lines in UZS.';
  }
  if (type === 'conversion-mismatch') {
    /** @type {ConversionError[]} */
    const errors = Array.isArray(err.problem.errors) ? err.problem.errors : [];
    const lines = errors.map((e) => {
      const row = lineOf(e.path, sent)?.row ?? '?';
      return e.expectedAmount ? `line ${row} comes to ${groupDigits(e.expectedAmount)} UZS` : `line ${row}: ${e.message}`;
    });
    return `The UZS amounts do not match the Central Bank (CBU) rate stored now; it may have been corrected since the form read it (${lines.join('; ')}). ` +
      'The form has read the rate again: check the lines and post again.';
  }
  // Problems about lines (an unknown counterparty, a header account…) name the rows the person sees.
  const errors = Array.isArray(err.problem.errors) ? err.problem.errors : [];
  if (errors.some((e) => lineOf(e.path, sent))) {
    const whole = describe(new ProblemError(err.status, { ...err.problem, errors: [] }, err.retryAfter));
    const each = errors.map((e) => {
      const at = lineOf(e.path, sent);
      return at ? `line ${at.row}${at.field ? ` (${at.field})` : ''}: ${e.message ?? ''}` : [e.path, e.message].filter(Boolean).join(' ');
    });
    return `${whole} — ${each.join('; ')}`;
  }
  return describe(err);
}

/**
 * The names of the counterparties lines name ("Name · TIN …"), read once each; one that cannot be read (no
 * permission, or gone) is left out, for its id to stand in.
 * @param {(string | null)[]} ids
 * @returns {Promise<Map<string, string>>}
 */
async function counterpartyNames(ids) {
  /** @type {Map<string, string>} */
  const names = new Map();
  if (!can('getCounterparty')) return names;
  const unique = [...new Set(ids.filter(/** @returns {id is string} */ (id) => Boolean(id)))];
  await Promise.all(unique.map(async (id) => {
    try {
      const { data } = /** @type {import('../api.js').Reply<'getCounterparty'>} */ (await api('GET', `/api/v1/counterparties/${company()}/${id}`));
      names.set(id, [data.name, identification(data)].filter(Boolean).join(' · '));
    } catch {
      // The id stands in for a name that cannot be read.
    }
  }));
  return names;
}

/**
 * One entry with its lines, drawn in `body` with a way `back` (named by `backLabel`); an entry that is neither
 * reversed nor a reversal can be reversed here. Account statements open their lines' entries here too.
 * @param {HTMLElement} body
 * @param {string} id the entry's id
 * @param {() => void} back
 * @param {string} [backLabel]
 */
export async function showEntry(body, id, back, backLabel = '← All entries') {
  const { data: e } = /** @type {import('../api.js').Reply<'getJournalEntry'>} */ (await api('GET', `/api/v1/ledger/${company()}/entries/${id}`));
  const names = await counterpartyNames(e.lines.map((l) => l.counterpartyId));
  const withCounterparty = e.lines.some((l) => l.counterpartyId);
  /** @type {HTMLElement[]} */
  const parts = [
    h('button', { type: 'button', class: 'link', onclick: back }, backLabel),
    h('h1', {}, `Entry ${e.number}: ${e.description}`),
    h('p', {}, `Dated ${e.entryDate}, posted ${new Date(e.postedAt).toLocaleString()}`, e.reversalOf ? ' · reverses another entry' : '', e.reversedBy ? ' · reversed' : '',
      e.kind === 'REVALUATION' ? ' · a currency revaluation' : ''),
    table(['Line', 'Account', ...(withCounterparty ? ['Counterparty'] : []), 'Debit (UZS)', 'Credit (UZS)', 'In currency', 'Rate', 'Memo'], e.lines.map((l) =>
      h('tr', { 'data-line': l.lineNo }, h('td', {}, l.lineNo), h('td', {}, l.accountCode),
        withCounterparty ? h('td', { class: 'counterparty' }, l.counterpartyId ? names.get(l.counterpartyId) ?? l.counterpartyId : '') : '',
        h('td', { class: 'num' }, formatAmount(l.debit)), h('td', { class: 'num' }, formatAmount(l.credit)),
        h('td', { class: 'num' }, l.currency === null ? '' : `${l.currency} ${formatAmount(l.currencyAmount)}`),
        h('td', { class: 'rate' }, l.currency === null ? '' : `${groupDigits(/** @type {ForeignLine} */ (l).rate)} (${l.rateSource} ${l.rateDate})`),
        h('td', {}, l.memo ?? '')))),
  ];
  // A revaluation entry is never reversed (the next revaluation corrects it), nor is a reversal.
  if (can('reverseJournalEntry') && !e.reversedBy && !e.reversalOf && e.kind !== 'REVALUATION') {
    const form = h('form', { id: 'reverse', class: 'inline', novalidate: true },
      h('label', {}, 'Reverse on ', h('input', { name: 'entryDate', type: 'date', required: true, value: today() })),
      h('label', {}, 'because ', h('input', { name: 'reason', required: true, maxlength: 400 })),
      h('button', { type: 'submit' }, 'Reverse'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const f = fieldsOf(form);
      void busy(form, async () => {
        try {
          const reversal = /** @satisfies {import('../api.js').RequestBody<'reverseJournalEntry'>} */ ({ requestId: uuid(), entryDate: f.entryDate, reason: f.reason });
          const res = /** @type {import('../api.js').Reply<'reverseJournalEntry'>} */ (await api('POST', `/api/v1/ledger/${company()}/entries/${id}/reversal`, reversal));
          showAlert(`Reversed by entry ${res.data.number}.`, 'info');
          await showEntry(body, id, back, backLabel);
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    parts.push(form);
  }
  body.replaceChildren(...parts);
}
