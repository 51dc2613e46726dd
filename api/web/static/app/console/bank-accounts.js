// @ts-check
// #bank: the company's own bank accounts, the active, the archived or all, and a form that adds one (bank code,
// number, name, currency, the GL account in 51xx–52xx). An account's name opens it in place of the list
// (bank-lines.js): its statements imported and its lines matched; the way back restores the list as it was left.
import { ProblemError, describe } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { api, can } from '../session.js';
import { moneyAccountPicker } from './account-picker.js';
import { accountText, bankPath } from './bank-common.js';
import { bankAccountView } from './bank-lines.js';
import { bankRules } from './bank-rules.js';
import { failed, fieldMaker, fieldProblems, problemType, table } from './common.js';
import { FUNCTIONAL } from './currency.js';

/** @typedef {import('./bank-common.js').BankAccount} BankAccount */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {import('./common.js').WayBack} WayBack */

/** The most accounts one read shows: a company has a handful. */
const SHOWN = 100;

/** @param {HTMLElement} body */
export async function bank(body) {
  const archived = h('select', { name: 'archived' }, h('option', { value: 'false' }, 'Active'), h('option', { value: 'true' }, 'Archived'), h('option', { value: 'all' }, 'All'));
  const out = h('div', { id: 'bank-account-list', 'aria-live': 'polite', 'aria-busy': 'false' });
  let reading = 0;

  /** Reads the accounts; a later read wins over an earlier one still on its way. */
  const load = async () => {
    const mine = ++reading;
    out.setAttribute('aria-busy', 'true');
    try {
      const query = new URLSearchParams({ archived: archived.value, size: String(SHOWN) });
      const { data } = /** @type {import('../api.js').Reply<'listBankAccounts'>} */ (await api('GET', `${bankPath()}?${query}`));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine === reading) failed(out, err);
    } finally {
      if (mine === reading) out.setAttribute('aria-busy', 'false');
    }
  };

  /** @param {import('./bank-common.js').Schemas['BankAccountPage']} data */
  const draw = (data) => {
    const rows = data.items.map((a) => h('tr', { 'data-id': a.id, class: a.archived ? 'archived' : undefined },
      h('td', { class: 'name' }, h('div', {},
        h('button', { type: 'button', class: 'link', 'data-action': 'open', 'aria-label': `Open ${a.name}: its statements and lines`, onclick: () => openAccount(a) }, a.name),
        a.archived ? h('span', { class: 'tag' }, 'archived') : '')),
      h('td', { class: 'identification' }, a.bankCode),
      h('td', { class: 'identification' }, a.accountNumber),
      h('td', {}, a.currency),
      h('td', {}, a.accountCode)));
    const which = { false: '', true: 'archived ', all: '' }[/** @type {'false' | 'true' | 'all'} */ (archived.value)] ?? '';
    out.replaceChildren(
      rows.length === 0
        ? h('p', { class: 'muted' }, `No ${which}bank accounts yet.${can('createBankAccount') && archived.value !== 'true' ? ' Add the company’s first to import its statements.' : ''}`)
        : table(['Name', 'Bank code (MFO)', 'Account number', 'Currency', 'GL account'], rows),
      data.totalElements > rows.length ? h('p', { class: 'hint' }, `The first ${rows.length} of ${data.totalElements} are shown.`) : '',
    );
  };

  /** The list's part of the view, kept while an account is drawn in its place. @type {ChildNode[]} */
  let saved = [];
  /** @param {BankAccount} a */
  const openAccount = (a) => {
    clearAlert();
    saved = [...body.childNodes];
    /** @type {WayBack} */
    const back = {
      to: () => {
        clearAlert();
        body.replaceChildren(...saved);
        void load();
      },
      label: '← All bank accounts',
    };
    bankAccountView(body, a, back);
  };
  /** The matching rules, drawn in place of the list as an account is. */
  const openRules = () => {
    clearAlert();
    saved = [...body.childNodes];
    void bankRules(body, { to: () => {
      clearAlert();
      body.replaceChildren(...saved);
      void load();
    }, label: '← All bank accounts' }).catch((err) => failed(body, err));
  };

  archived.addEventListener('change', () => void load());
  body.replaceChildren(h('h1', { tabindex: -1 }, 'Bank'),
    h('p', { class: 'hint' }, 'The company’s bank accounts: open one to import its statement, match its lines to invoices and reconcile it.'));
  if (can('listBankMatchingRules')) {
    body.append(h('p', {}, h('button', { type: 'button', class: 'link', id: 'open-bank-rules', onclick: openRules }, 'Matching rules'),
      h('span', { class: 'muted' }, ' · what an import proposes for lines the TIN and amount do not settle')));
  }
  if (can('createBankAccount')) {
    const { open, form } = accountForm((a) => {
      void load();
      showAlert(`Added ${a.name} (${accountText(a)}).`, 'info');
    });
    body.append(open, form);
  }
  body.append(h('form', { class: 'inline filters', id: 'bank-account-filters', role: 'search', onsubmit: (event) => event.preventDefault() }, h('label', {}, 'Show ', archived)), out);
  await load();
}

/**
 * What a field holds as the API wants it: digits only, of one length.
 * @param {string} value
 * @param {number} length
 * @param {string} what
 * @returns {string | null} the problem, or null
 */
function digitsProblem(value, length, what) {
  if (new RegExp(`^[0-9]{${length}}$`).test(value)) return null;
  if (!value) return `Enter the ${what.toLowerCase()}, ${length} digits.`;
  return /^[0-9]+$/.test(value) ? `${what} is ${length} digits; ${value.length} typed.` : `${what} is ${length} digits, nothing else.`;
}

/**
 * The button that opens the form adding a bank account, and the form (hidden until then); `added` is told the
 * account the API created.
 * @param {(a: BankAccount) => void} added
 */
function accountForm(added) {
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  const field = fieldMaker(places, 'bank-account');
  const bankCode = h('input', { name: 'bankCode', inputmode: 'numeric', maxlength: 5, autocomplete: 'off', class: 'bank-code' });
  const accountNumber = h('input', { name: 'accountNumber', inputmode: 'numeric', maxlength: 20, autocomplete: 'off', class: 'account-number' });
  const name = h('input', { name: 'name', maxlength: 200, autocomplete: 'off' });
  const currency = h('input', { name: 'currency', value: FUNCTIONAL, maxlength: 3, autocomplete: 'off', spellcheck: 'false', class: 'currency-code' });
  const glAccount = moneyAccountPicker({ name: 'accountCode', label: 'GL account', ranges: ['51', '52'] });
  const code = () => currency.value.trim().toUpperCase();

  /** @returns {FieldProblem[]} */
  const check = () => {
    /** @type {FieldProblem[]} */
    const problems = [];
    /**
     * @param {string} path
     * @param {string | null | false} message
     */
    const add = (path, message) => {
      if (message) problems.push({ path, message });
    };
    add('bankCode', digitsProblem(bankCode.value.trim(), 5, 'A bank code (MFO)'));
    add('accountNumber', digitsProblem(accountNumber.value.trim(), 20, 'An account number'));
    add('name', !name.value.trim() && 'Name the account as you call it, e.g. “Kapitalbank UZS”.');
    add('currency', !/^[A-Z]{3}$/.test(code()) && 'A currency is its three-letter code, e.g. UZS or USD.');
    const typed = glAccount.text();
    add('accountCode', Boolean(typed) && !/^5(1[0-9]{2}|2[0-9]{2})$/.test(glAccount.value()) && `“${typed}” is not a bank account of the chart (5100–5290); choose one from the list, or leave it empty.`);
    return problems;
  };
  const { show: showProblems, clear } = fieldProblems(places);

  const form = h('form', { id: 'bank-account-form', class: 'bank-account-form', novalidate: true, hidden: true },
    h('div', { class: 'field-row' },
      field('bankCode', 'Bank code (MFO)', bankCode, '5 digits.'),
      field('accountNumber', 'Account number', accountNumber, '20 digits, as the bank’s statements name it.'),
      field('name', 'Name', name)),
    h('div', { class: 'field-row' },
      field('currency', 'Currency', currency),
      field('accountCode', 'GL account', glAccount.element, 'Left empty: 5110 for UZS, 5210 for a foreign currency.', glAccount.input)),
    h('div', { class: 'form-actions' },
      h('button', { type: 'submit' }, 'Add the bank account'),
      h('button', { type: 'button', class: 'link', onclick: () => {
        form.hidden = true;
        open.hidden = false;
        open.focus();
      } }, 'Cancel')));
  const open = h('button', { type: 'button', id: 'new-bank-account', class: 'section-action', onclick: () => {
    open.hidden = true;
    form.hidden = false;
    bankCode.focus();
  } }, 'Add a bank account');

  form.addEventListener('input', (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    for (const place of places.values()) {
      if (!place.controls.includes(target)) continue;
      place.controls.forEach((control) => control.removeAttribute('aria-invalid'));
      place.error.hidden = true;
      place.error.textContent = '';
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const problems = check();
    if (problems.length) {
      showProblems(problems);
      showAlert('Check the fields marked below.');
      return /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
    }
    clear();
    const details = /** @satisfies {import('../api.js').RequestBody<'createBankAccount'>} */ ({
      bankCode: bankCode.value.trim(),
      accountNumber: accountNumber.value.trim(),
      name: name.value.trim(),
      currency: code(),
      ...(glAccount.value() ? { accountCode: glAccount.value() } : {}),
    });
    void busy(form, async () => {
      try {
        const { data } = /** @type {import('../api.js').Reply<'createBankAccount'>} */ (await api('POST', bankPath(), details));
        form.reset();
        glAccount.choose(null);
        form.hidden = true;
        open.hidden = false;
        added(data);
      } catch (err) {
        if (!(err instanceof ProblemError)) return showAlert(describe(err));
        /** @type {FieldProblem[]} */
        const named = problemType(err) === 'bank-account-number-exists'
          ? [{ path: 'accountNumber', message: 'Another bank account of the company (an archived one, perhaps) has this number.' }]
          : (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));
        const elsewhere = showProblems(named);
        showAlert(named.length > elsewhere.length ? `${err.problem.title ?? 'Not added'}: check the fields marked below.` : describe(err));
        /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
      }
    });
  });
  return { open, form };
}
