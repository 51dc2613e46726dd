// @ts-check
// #counterparties: the company's customers and suppliers. The list is searched as it is typed (the name, or the
// start of a TIN or PINFL), shows the active, the archived or all, a page at a time. A form adds one or edits one
// in place of the list, its bank accounts added and removed; it hints at a field's format as it is typed, and
// shows the API's problems (its `errors`, a TIN or PINFL already registered) next to the fields they are about.
// Archive and restore are in the list, and each counterparty's reconciliation statement. An edit sends the version
// it read: a change saved meanwhile is refused (409 stale-version), and the page says so and offers to read the
// counterparty again.
import { ProblemError, describe } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { api, can, company } from '../session.js';
import { failed, problemType, table, fieldProblems } from './common.js';
import { identification } from './counterparty-picker.js';
import { reconciliationLink } from './reconciliation-statement.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['Counterparty']} Counterparty */
/** @typedef {Schemas['CounterpartyCreate']} Details */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */

const PAGE_SIZES = [10, 25, 50, 100];
const SEARCH_DEBOUNCE_MS = 300;
const MAX_BANK_ACCOUNTS = 10;

/** @param {string} [id] */
const pathOf = (id) => `/api/v1/counterparties/${company()}${id ? `/${id}` : ''}`;

/**
 * The PUT that keeps what the counterparty has, archived or restored.
 * @param {Counterparty} c
 * @param {boolean} archived
 * @returns {import('../api.js').RequestBody<'updateCounterparty'>}
 */
const keepDetails = (c, archived) => ({
  name: c.name, tin: c.tin, pinfl: c.pinfl, vatRegistrationCode: c.vatRegistrationCode, bankAccounts: c.bankAccounts, address: c.address,
  paymentTermsDays: c.paymentTermsDays, archived, expectedVersion: c.version,
});

/**
 * A refusal that asks the person to read again, with the button that does.
 * @param {string} text
 * @param {string} action the button's words
 * @param {() => void} reload
 */
const staleNotice = (text, action, reload) =>
  h('div', { class: 'alert error stale', role: 'alert' }, h('span', {}, text, ' '), h('button', { type: 'button', class: 'link', onclick: reload }, action));

/** @param {HTMLElement} body */
export async function counterparties(body) {
  const q = h('input', { type: 'search', name: 'q', placeholder: 'Name, or the start of a TIN or PINFL', maxlength: 100 });
  const archived = h('select', { name: 'archived' }, h('option', { value: 'false' }, 'Active'), h('option', { value: 'true' }, 'Archived'), h('option', { value: 'all' }, 'All'));
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === 25 }, n)));
  const notice = h('div', { id: 'counterparty-notice' });
  const out = h('div', { id: 'counterparty-list', 'aria-live': 'polite', 'aria-busy': 'false' });
  const previous = h('button', { type: 'button', id: 'counterparties-previous', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', id: 'counterparties-next', disabled: true }, 'Next →');
  const status = h('span', { id: 'counterparties-page' });
  let page = 0;
  let reading = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  /** Reads the page; a later read wins over an earlier one still on its way, and a failed one shows in its place. */
  const load = async () => {
    clearTimeout(timer);
    const mine = ++reading;
    previous.disabled = next.disabled = true;
    out.setAttribute('aria-busy', 'true');
    const text = q.value.trim();
    try {
      const query = new URLSearchParams({ archived: archived.value, page: String(page), size: size.value, ...(text ? { q: text } : {}) });
      const { data } = /** @type {import('../api.js').Reply<'listCounterparties'>} */ (await api('GET', `${pathOf()}?${query}`));
      if (mine !== reading) return;
      // A page past the end (its last rows archived meanwhile): the last page there is.
      if (data.items.length === 0 && page > 0 && data.totalPages > 0) {
        page = data.totalPages - 1;
        return void load();
      }
      draw(data, text);
    } catch (err) {
      if (mine !== reading) return;
      failed(out, err);
      status.textContent = '';
      previous.disabled = page === 0;
    } finally {
      if (mine === reading) out.setAttribute('aria-busy', 'false');
    }
  };
  const fromStart = () => {
    page = 0;
    void load();
  };

  /**
   * @param {Schemas['CounterpartyPage']} data
   * @param {string} text the search it answers
   */
  const draw = (data, text) => {
    const rows = data.items.map((c) => {
      /** @type {HTMLElement[]} */
      const actions = [];
      if (can('updateCounterparty')) {
        actions.push(h('button', { type: 'button', class: 'link', 'data-action': 'edit', 'aria-label': `Edit ${c.name}`, onclick: () => openEditor(c) }, 'Edit'));
        const toggle = h('button', { type: 'button', class: 'link', 'data-action': c.archived ? 'restore' : 'archive', 'aria-label': `${c.archived ? 'Restore' : 'Archive'} ${c.name}` }, c.archived ? 'Restore' : 'Archive');
        toggle.addEventListener('click', () => void setArchived(c, !c.archived, toggle));
        actions.push(toggle);
      }
      // Archived counterparties keep their acts: the documents that name them are still in the books.
      const act = reconciliationLink(body, c, '← All counterparties');
      if (act) actions.push(act);
      return h('tr', { 'data-id': c.id, class: c.archived ? 'archived' : undefined },
        h('td', { class: 'name' }, h('div', {}, c.name, c.archived ? h('span', { class: 'tag' }, 'archived') : ''), c.address ? h('div', { class: 'muted' }, c.address) : ''),
        h('td', { class: 'identification' }, identification(c)),
        h('td', {}, c.vatRegistrationCode ?? ''),
        h('td', { class: 'bank-accounts' }, c.bankAccounts.map((b) => h('div', {}, `${b.bankCode} · ${b.accountNumber}`))),
        h('td', { class: 'num' }, c.paymentTermsDays === 1 ? '1 day' : `${c.paymentTermsDays} days`),
        h('td', { class: 'actions' }, actions));
    });
    const which = { false: '', true: 'archived ', all: '' }[/** @type {'false' | 'true' | 'all'} */ (archived.value)] ?? '';
    out.replaceChildren(
      rows.length === 0
        ? h('p', { class: 'muted' }, text ? `No ${which}counterparty matches “${text}”.` : `No ${which}counterparties yet.`)
        : table(['Name', 'TIN or PINFL', 'VAT code', 'Bank accounts (MFO · account)', 'Payment terms', ''], rows),
    );
    status.textContent = data.totalElements === 0 ? '' : `Page ${data.page + 1} of ${data.totalPages} · ${data.totalElements} ${data.totalElements === 1 ? 'counterparty' : 'counterparties'}`;
    previous.disabled = data.page === 0;
    next.disabled = data.page >= data.totalPages - 1;
  };

  /**
   * Archives or restores the counterparty as the list read it; a change saved meanwhile is refused, and the list
   * offers to read itself again.
   * @param {Counterparty} c
   * @param {boolean} value
   * @param {HTMLButtonElement} button
   */
  const setArchived = async (c, value, button) => {
    clearAlert();
    notice.replaceChildren();
    button.disabled = true;
    try {
      await api('PUT', pathOf(c.id), keepDetails(c, value));
      showAlert(`${c.name} is ${value ? 'archived: it is offered for no new line' : 'restored'}.`, 'info');
      await load();
    } catch (err) {
      button.disabled = false;
      if (problemType(err) !== 'stale-version') return showAlert(describe(err));
      notice.replaceChildren(staleNotice(`${c.name} was changed by someone else after this list was read, so it was not ${value ? 'archived' : 'restored'}. Reload the list to see it as it is now, then try again.`,
        'Reload the list', () => {
          notice.replaceChildren();
          void load();
        }));
    }
  };

  /**
   * The form in place of the list; the way back puts the list back as it was left and reads it again.
   * @param {Counterparty | null} c null for a new one
   */
  const openEditor = (c) => {
    clearAlert();
    notice.replaceChildren();
    const saved = [...body.childNodes];
    const back = () => {
      body.replaceChildren(...saved);
      q.focus();
      void load();
    };
    editor(body, c, back);
  };

  q.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(fromStart, SEARCH_DEBOUNCE_MS);
  });
  archived.addEventListener('change', fromStart);
  size.addEventListener('change', fromStart);
  previous.addEventListener('click', () => {
    page = Math.max(0, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    page += 1;
    void load();
  });
  const search = h('form', { class: 'inline', role: 'search', id: 'counterparty-search' },
    h('label', {}, 'Search ', q), h('label', {}, 'Show ', archived), h('button', { type: 'submit' }, 'Search'));
  search.addEventListener('submit', (event) => {
    event.preventDefault();
    fromStart();
  });

  body.append(h('h1', {}, 'Counterparties'));
  if (can('createCounterparty')) body.append(h('button', { type: 'button', id: 'new-counterparty', class: 'section-action', onclick: () => openEditor(null) }, 'New counterparty'));
  body.append(search, notice, out, h('nav', { class: 'pager', 'aria-label': 'Counterparty pages' }, previous, status, next, h('label', {}, 'Per page ', size)));
  await load();
}

/**
 * What a field holds, as the API wants it: digits only, of one length.
 * @param {string} value
 * @param {number} length
 * @param {string} what
 * @returns {string | null} the problem, or null
 */
function digitsProblem(value, length, what) {
  if (!value || new RegExp(`^[0-9]{${length}}$`).test(value)) return null;
  return /^[0-9]+$/.test(value) ? `${what} is ${length} digits; ${value.length} typed.` : `${what} is ${length} digits, nothing else.`;
}

/**
 * The form that adds a counterparty (`c` null) or edits one, drawn in `body`.
 * @param {HTMLElement} body
 * @param {Counterparty | null} c
 * @param {() => void} back
 */
function editor(body, c, back) {
  /** The field (or bank account row) each problem path names, and the line its problem shows on. */
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  /** The rows sent, in the order of `bankAccounts`: the API's paths name a bank account by its place there. */
  /** @type {number[]} */
  let sentRows = [];
  /** The API's problems of the last refusal, each shown until its field is edited. */
  /** @type {FieldProblem[]} */
  let fromApi = [];
  /**
   * A labelled control with its hint and its problem line, which describe it.
   * @param {string} label
   * @param {HTMLInputElement | HTMLTextAreaElement} control
   * @param {string} [hint]
   */
  const field = (label, control, hint) => {
    const key = control.name;
    const hintLine = hint ? h('span', { class: 'hint', id: `counterparty-${key}-hint` }, hint) : '';
    const error = h('span', { class: 'field-error', id: `counterparty-${key}-error`, hidden: true });
    control.setAttribute('aria-describedby', [hintLine ? `counterparty-${key}-hint` : '', error.id].filter(Boolean).join(' '));
    places.set(key, { controls: [control], error });
    return h('div', { class: 'field', 'data-field': key }, h('label', {}, label, control), hintLine, error);
  };
  /**
   * @param {string} name
   * @param {string | null | undefined} value
   * @param {import('../dom.js').Attributes} [attrs]
   */
  const input = (name, value, attrs = {}) => h('input', { name, value: value ?? '', autocomplete: 'off', ...attrs });

  const name = input('name', c?.name, { required: true, maxlength: 200 });
  const tin = input('tin', c?.tin, { inputmode: 'numeric', maxlength: 9, pattern: '[0-9]{9}' });
  const pinfl = input('pinfl', c?.pinfl, { inputmode: 'numeric', maxlength: 14, pattern: '[0-9]{14}' });
  const vat = input('vatRegistrationCode', c?.vatRegistrationCode, { inputmode: 'numeric', maxlength: 12, pattern: '[0-9]{12}' });
  const address = h('textarea', { name: 'address', rows: 2, maxlength: 500 }, c?.address ?? '');
  const terms = input('paymentTermsDays', String(c?.paymentTermsDays ?? 0), { inputmode: 'numeric', maxlength: 3, pattern: '[0-9]{1,3}', class: 'short' });

  // The bank accounts, one row each; the rows' problem paths follow their order.
  const bankList = h('div', { class: 'bank-account-list' });
  const bankRows = /** @type {HTMLCollectionOf<HTMLElement>} */ (bankList.children);
  const bankError = h('span', { class: 'field-error', id: 'counterparty-bankAccounts-error', hidden: true });
  const addBank = h('button', { type: 'button', class: 'link', id: 'add-bank-account' }, 'Add a bank account');
  /** @param {HTMLElement} row */
  const bankFields = (row) => ({
    bankCode: /** @type {HTMLInputElement} */ (row.querySelector('input[name=bankCode]')),
    accountNumber: /** @type {HTMLInputElement} */ (row.querySelector('input[name=accountNumber]')),
    error: /** @type {HTMLElement} */ (row.querySelector('.field-error')),
    remove: /** @type {HTMLButtonElement} */ (row.querySelector('button')),
  });
  /** Numbers the rows' labels and problem places after a row comes or goes. */
  const renumber = () => {
    // The API's word on a bank account named it by a place that has changed.
    fromApi = fromApi.filter((p) => !p.path.startsWith('bankAccounts/'));
    [...places.keys()].filter((k) => k.startsWith('bankAccounts/')).forEach((k) => places.delete(k));
    [...bankRows].forEach((row, i) => {
      const f = bankFields(row);
      f.error.id = `counterparty-bank-${i}-error`;
      f.bankCode.setAttribute('aria-describedby', f.error.id);
      f.accountNumber.setAttribute('aria-describedby', f.error.id);
      f.remove.setAttribute('aria-label', `Remove bank account ${i + 1}`);
      row.setAttribute('aria-label', `Bank account ${i + 1}`);
      places.set(`bankAccounts/${i}`, { controls: [f.bankCode, f.accountNumber], error: f.error });
      places.set(`bankAccounts/${i}/bankCode`, { controls: [f.bankCode], error: f.error });
      places.set(`bankAccounts/${i}/accountNumber`, { controls: [f.accountNumber], error: f.error });
    });
    addBank.disabled = bankRows.length >= MAX_BANK_ACCOUNTS;
    addBank.textContent = bankRows.length >= MAX_BANK_ACCOUNTS ? `At most ${MAX_BANK_ACCOUNTS} bank accounts` : 'Add a bank account';
  };
  /** @param {Schemas['CounterpartyBankAccount']} [account] */
  const bankRow = (account) => {
    const row = h('div', { class: 'bank-account', role: 'group' },
      h('label', {}, 'Bank code (MFO) ', input('bankCode', account?.bankCode, { inputmode: 'numeric', maxlength: 5, pattern: '[0-9]{5}', class: 'bank-code' })),
      h('label', {}, 'Account number ', input('accountNumber', account?.accountNumber, { inputmode: 'numeric', maxlength: 20, pattern: '[0-9]{20}', class: 'account-number' })),
      h('button', { type: 'button', class: 'link remove' }, 'Remove'),
      h('span', { class: 'field-error', hidden: true }));
    bankFields(row).remove.addEventListener('click', () => {
      const at = [...bankRows].indexOf(row);
      row.remove();
      renumber();
      // The focus goes to the row that took its place, or to the way to add one.
      (bankRows[at] ? bankFields(bankRows[at]).bankCode : addBank).focus();
    });
    return row;
  };
  (c?.bankAccounts ?? []).forEach((b) => bankList.append(bankRow(b)));
  addBank.addEventListener('click', () => {
    if (bankRows.length >= MAX_BANK_ACCOUNTS) return;
    const row = bankRow();
    bankList.append(row);
    renumber();
    bankFields(row).bankCode.focus();
  });
  places.set('bankAccounts', { controls: [], error: bankError });
  renumber();

  /** The bank accounts typed (rows left blank are left out), each with its row. */
  const typedBanks = () => [...bankRows].map((row, index) => {
    const f = bankFields(row);
    return { index, bankCode: f.bankCode.value.trim(), accountNumber: f.accountNumber.value.trim() };
  }).filter((b) => b.bankCode || b.accountNumber);

  /**
   * What is wrong with the form as typed, each at the path the API would name it by.
   * @returns {FieldProblem[]}
   */
  const check = () => {
    /** @type {FieldProblem[]} */
    const problems = [];
    /**
     * @param {string | null} message
     * @param {string} path
     */
    const add = (message, path) => {
      if (message) problems.push({ path, message });
    };
    if (!name.value.trim()) add('Enter the name.', 'name');
    add(digitsProblem(tin.value.trim(), 9, 'A TIN'), 'tin');
    add(digitsProblem(pinfl.value.trim(), 14, 'A PINFL'), 'pinfl');
    if (tin.value.trim() && pinfl.value.trim()) add('Give a TIN (a legal entity) or a PINFL (an individual), not both.', 'pinfl');
    add(digitsProblem(vat.value.trim(), 12, 'A VAT registration code'), 'vatRegistrationCode');
    const days = terms.value.trim();
    if (days && (!/^[0-9]{1,3}$/.test(days) || Number(days) > 365)) add('Payment terms are whole days from 0 to 365.', 'paymentTermsDays');
    /** @type {Set<string>} */
    const seen = new Set();
    for (const b of typedBanks()) {
      const bankCode = b.bankCode ? digitsProblem(b.bankCode, 5, 'A bank code (MFO)') : 'Enter the bank code (MFO), 5 digits.';
      const accountNumber = b.accountNumber ? digitsProblem(b.accountNumber, 20, 'An account number') : 'Enter the account number, 20 digits.';
      add(bankCode, `bankAccounts/${b.index}/bankCode`);
      add(accountNumber, `bankAccounts/${b.index}/accountNumber`);
      const key = `${b.bankCode}/${b.accountNumber}`;
      if (!bankCode && !accountNumber && seen.has(key)) add('This bank account is listed above already.', `bankAccounts/${b.index}`);
      seen.add(key);
    }
    return problems;
  };

  const { shown, clear: clearProblems, show: showProblems } = fieldProblems(places);
  /** The first control marked, for the focus. */
  const firstMarked = () => /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'));

  // Hints as the person types: a field's problem shows once they leave it, and goes as soon as it is mended.
  /** @param {Event} event */
  const recheck = (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    if (!(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement)) return;
    const leaving = event.type === 'change';
    if (!leaving && target.getAttribute('aria-invalid') !== 'true') return;
    const mine = [...places.entries()].filter(([, place]) => place.controls.includes(target)).map(([key]) => key);
    // The API's word on a field holds until the field is edited; the form's own hints are checked again: those
    // shown stay while they hold, and the field left adds its own.
    if (!leaving) fromApi = fromApi.filter((p) => !mine.includes(p.path));
    showProblems([...check().filter((p) => shown.has(p.path) || (leaving && mine.includes(p.path))), ...fromApi]);
  };

  const heading = h('h1', { tabindex: -1 }, c ? `Edit ${c.name}` : 'New counterparty');
  const formNotice = h('div', { id: 'counterparty-form-notice' });
  const submit = h('button', { type: 'submit' }, c ? 'Save' : 'Add the counterparty');
  const form = h('form', { id: 'counterparty-form', novalidate: true, class: 'counterparty-form' },
    c?.archived ? h('p', { class: 'hint' }, 'Archived: kept for the documents that name it, offered for no new line. Restore it from the list to use it again.') : '',
    field('Name', name),
    h('div', { class: 'field-row' },
      field('TIN', tin, 'A legal entity: 9 digits (STIR).'),
      field('PINFL', pinfl, 'An individual: 14 digits.'),
      field('VAT registration code', vat, '12 digits, if registered.')),
    h('p', { class: 'hint' }, 'One of TIN and PINFL, or neither for a foreign counterparty.'),
    field('Address', address),
    field('Payment terms (days)', terms, 'From an invoice’s date to its due date, 0 to 365.'),
    h('fieldset', { class: 'bank-accounts' }, h('legend', {}, 'Bank accounts'),
      h('span', { class: 'hint' }, 'Bank code (MFO) of 5 digits and account number of 20; at most 10.'), bankList, bankError, addBank),
    formNotice,
    h('div', { class: 'form-actions' }, submit, h('button', { type: 'button', class: 'link', onclick: back }, 'Cancel')));
  form.addEventListener('input', recheck);
  form.addEventListener('change', recheck);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    formNotice.replaceChildren();
    fromApi = [];
    const problems = check();
    if (problems.length) {
      showProblems(problems);
      showAlert('Check the fields marked below.');
      return firstMarked()?.focus();
    }
    clearProblems();
    const banks = typedBanks();
    sentRows = banks.map((b) => b.index);
    /** @type {Details} */
    const details = {
      name: name.value.trim(),
      tin: tin.value.trim() || null,
      pinfl: pinfl.value.trim() || null,
      vatRegistrationCode: vat.value.trim() || null,
      bankAccounts: banks.map(({ bankCode, accountNumber }) => ({ bankCode, accountNumber })),
      address: address.value.trim() || null,
      paymentTermsDays: Number(terms.value.trim() || '0'),
    };
    void busy(form, async () => {
      try {
        if (c) {
          const update = /** @satisfies {import('../api.js').RequestBody<'updateCounterparty'>} */ ({ ...details, archived: c.archived, expectedVersion: c.version });
          await api('PUT', pathOf(c.id), update);
          showAlert(`Saved ${details.name}.`, 'info');
        } else {
          await api('POST', pathOf(), /** @satisfies {import('../api.js').RequestBody<'createCounterparty'>} */ (details));
          showAlert(`Added ${details.name}.`, 'info');
        }
        back();
      } catch (err) {
        refused(err);
      }
    });
  });

  /**
   * A refusal: a stale version offers to read the counterparty again; a TIN or PINFL taken, and the problems
   * of `errors`, show at their fields; the rest as the page's alert.
   * @param {unknown} err
   */
  const refused = (err) => {
    if (!(err instanceof ProblemError)) return showAlert(describe(err));
    const type = problemType(err);
    if (type === 'stale-version' && c) {
      showAlert('Not saved: someone else changed this counterparty after you opened it.');
      formNotice.replaceChildren(staleNotice('This counterparty was saved by someone else after you opened it, so your changes are not saved. Reload it to see it as it is now, then make your changes again.',
        'Reload the counterparty', () => void reload()));
      return;
    }
    if (type === 'counterparty-tin-exists') {
      const taken = typeof err.problem.pinfl === 'string' ? 'pinfl' : 'tin';
      fromApi = [{ path: taken, message: err.problem.detail ?? err.problem.title ?? 'Another counterparty has this number.' }];
      showProblems(fromApi);
      showAlert(describe(err));
      return firstMarked()?.focus();
    }
    const errors = Array.isArray(err.problem.errors) ? err.problem.errors : [];
    // The validator names a field `/body/tin`, a bank account's `/body/bankAccounts/0/accountNumber` (its place
    // among those sent, which leave out blank rows).
    const problems = errors.map((e) => ({
      path: (e.path ?? '').replace(/^\/body\/?/, '').replace(/^bankAccounts\/([0-9]+)/, (whole, i) => (sentRows[Number(i)] === undefined ? whole : `bankAccounts/${sentRows[Number(i)]}`)),
      message: e.message ?? 'is not valid',
    }));
    fromApi = problems.filter((p) => places.has(p.path));
    const elsewhere = showProblems(problems);
    if (problems.length > elsewhere.length) {
      showAlert(`${err.problem.title ?? 'Not saved'}: check the fields marked below.${elsewhere.length ? ` ${elsewhere.map((p) => `${p.path} ${p.message}`).join('; ')}` : ''}`);
      return firstMarked()?.focus();
    }
    showAlert(describe(err));
  };
  /** Reads the counterparty again and draws the form with what is stored now; the edits are dropped. */
  const reload = async () => {
    if (!c) return;
    try {
      const { data } = /** @type {import('../api.js').Reply<'getCounterparty'>} */ (await api('GET', pathOf(c.id)));
      clearAlert();
      editor(body, data, back);
      showAlert(`Reloaded ${data.name} as it is stored now.`, 'info');
    } catch (err) {
      showAlert(describe(err));
    }
  };

  body.replaceChildren(h('button', { type: 'button', class: 'link', onclick: back }, '← All counterparties'), heading, form);
  name.focus();
}
