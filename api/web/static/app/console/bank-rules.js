// @ts-check
// The company's bank matching rules, drawn in place of the accounts' list: in the order an import tries them
// (priority, lowest first), each with its conditions and action in words, enabled or disabled from its row, and
// deleted after a second click; a form adds one (name, priority, direction, TIN, account, amount ± tolerance,
// purpose contains or pattern, the action and its account). The API's problems show beside their fields: a 400's
// `errors[].path` (an RE2 pattern refused, a tolerance without an amount), a 409 stale version in the alert with
// the rules read again.
import { ProblemError, describe } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { AMOUNT, formatAmount, plainAmount } from '../money.js';
import { api, can, company } from '../session.js';
import { failed, fieldMaker, fieldProblems, problemType, table } from './common.js';

/** @typedef {import('./bank-common.js').Schemas['BankMatchingRule']} Rule */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {import('./common.js').WayBack} WayBack */

/** @param {string} [ruleId] */
const rulesPath = (ruleId) => `/api/v1/bank-matching-rules/${company()}${ruleId ? `/${ruleId}` : ''}`;

/** @type {Record<Rule['action']['type'], string>} */
const ACTION_LABEL = { SETTLE_INVOICES: 'Propose the counterparty’s open invoices', POST_TO_ACCOUNT: 'Propose posting to an account' };

/**
 * A rule's conditions in words, one a line; none holds for every line.
 * @param {Rule['conditions']} c
 */
function conditionWords(c) {
  const words = [];
  if (c.direction) words.push(c.direction === 'IN' ? 'Money received' : 'Money paid');
  if (c.counterpartyTin) words.push(`${c.counterpartyTin.length === 14 ? 'PINFL' : 'TIN'} ${c.counterpartyTin}`);
  if (c.counterpartyAccount) words.push(`Counterparty’s account ${c.counterpartyAccount}`);
  if (c.amountEquals) words.push(`Amount ${formatAmount(c.amountEquals)}${c.amountTolerance ? ` ± ${formatAmount(c.amountTolerance)}` : ''}`);
  if (c.purposeContains) words.push(`Purpose contains “${c.purposeContains}”`);
  if (c.purposePattern) words.push(`Purpose matches /${c.purposePattern}/`);
  if (c.reference) words.push(`Bank reference ${c.reference}`);
  return words.length ? words : ['Every line'];
}

/**
 * @param {HTMLElement} body
 * @param {WayBack} back the way back to the accounts' list
 */
export async function bankRules(body, back) {
  const out = h('div', { id: 'bank-rules', 'aria-live': 'polite', 'aria-busy': 'false' });
  const heading = h('h1', { tabindex: -1 }, 'Matching rules');
  let reading = 0;

  const load = async () => {
    const mine = ++reading;
    out.setAttribute('aria-busy', 'true');
    try {
      const { data } = /** @type {import('../api.js').Reply<'listBankMatchingRules'>} */ (await api('GET', `${rulesPath()}?size=100`));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine === reading) failed(out, err);
    } finally {
      if (mine === reading) out.setAttribute('aria-busy', 'false');
    }
  };

  /**
   * A change sent from a rule's row, its buttons waiting for the answer; a 409 (changed meanwhile) reads the rules again.
   * @param {HTMLElement} cell
   * @param {() => Promise<unknown>} send
   * @param {string} said
   * @param {string} doing "enabled", "deleted"
   */
  const act = async (cell, send, said, doing) => {
    clearAlert();
    const buttons = [...cell.querySelectorAll('button')];
    buttons.forEach((b) => (b.disabled = true));
    try {
      await send();
      showAlert(said, 'info');
    } catch (err) {
      buttons.forEach((b) => (b.disabled = false));
      if (problemType(err) === 'stale-version') showAlert(`Not ${doing}: the rule was changed by someone else meanwhile. The rules are read again: look at it as it is now.`);
      else if (err instanceof ProblemError && err.status === 404) showAlert(`Not ${doing}: the rule is deleted already. The rules are read again.`);
      else return showAlert(`Not ${doing}: ${describe(err)}`);
    }
    await load();
  };

  /** @param {Rule} r @param {HTMLElement} cell */
  const toggle = (r, cell) => act(cell, () => api('PUT', rulesPath(r.id), /** @satisfies {import('../api.js').RequestBody<'updateBankMatchingRule'>} */ ({
    name: r.name, priority: r.priority, enabled: !r.enabled, conditions: r.conditions, action: r.action, autoConfirm: r.autoConfirm, expectedVersion: r.version,
  })), `${r.enabled ? 'Disabled' : 'Enabled'} the rule “${r.name}”.`, r.enabled ? 'disabled' : 'enabled');
  /** @param {Rule} r @param {HTMLElement} cell */
  const remove = (r, cell) => act(cell, () => api('DELETE', rulesPath(r.id)), `Deleted the rule “${r.name}”; what it proposed stays on its lines.`, 'deleted');

  /** @param {Rule} r */
  const actionsCell = (r) => {
    const cell = h('div', { class: 'row-actions' });
    if (can('updateBankMatchingRule')) {
      cell.append(h('button', { type: 'button', class: 'link', 'data-action': r.enabled ? 'disable' : 'enable', 'aria-label': `${r.enabled ? 'Disable' : 'Enable'} the rule ${r.name}`, onclick: () => void toggle(r, cell) }, r.enabled ? 'Disable' : 'Enable'));
    }
    if (can('deleteBankMatchingRule')) {
      const ask = h('button', { type: 'button', class: 'link danger-link', 'data-action': 'delete', 'aria-label': `Delete the rule ${r.name}` }, 'Delete…');
      const sure = h('span', { class: 'confirm-unmatch', hidden: true },
        h('button', { type: 'button', class: 'small danger', 'data-action': 'confirm-delete', onclick: () => void remove(r, cell) }, 'Delete it'),
        h('button', { type: 'button', class: 'link', onclick: () => {
          sure.hidden = true;
          ask.hidden = false;
          ask.focus();
        } }, 'Keep it'));
      ask.addEventListener('click', () => {
        ask.hidden = true;
        sure.hidden = false;
        /** @type {HTMLElement} */ (sure.firstElementChild).focus();
      });
      cell.append(ask, sure);
    }
    return h('td', { class: 'actions' }, cell);
  };

  /** @param {import('./bank-common.js').Schemas['BankMatchingRulePage']} data */
  const draw = (data) => {
    const rows = data.items.map((r) => h('tr', { 'data-id': r.id, 'data-enabled': String(r.enabled), class: r.enabled ? undefined : 'disabled' },
      h('td', { class: 'num priority' }, String(r.priority)),
      h('td', { class: 'name' }, r.name, r.enabled ? '' : h('span', { class: 'tag' }, 'disabled')),
      h('td', { class: 'conditions' }, conditionWords(r.conditions).map((w) => h('div', {}, w))),
      h('td', { class: 'action' }, r.action.type === 'POST_TO_ACCOUNT' ? `Propose posting to account ${r.action.accountCode ?? ''}` : ACTION_LABEL[r.action.type] ?? r.action.type,
        r.autoConfirm ? h('div', { class: 'tag auto-confirm' }, 'confirmed by itself at import') : ''),
      actionsCell(r)));
    const list = table(['Priority', 'Name', 'When the line has', 'Then', ''], rows);
    list.classList.add('bank-rules');
    list.tHead?.rows[0]?.cells[0]?.classList.add('num');
    out.replaceChildren(rows.length === 0
      ? h('p', { class: 'muted' }, 'No rules yet: every new line is proposed by its TIN and amount alone.')
      : list,
    data.totalElements > rows.length ? h('p', { class: 'hint' }, `The first ${rows.length} of ${data.totalElements} are shown.`) : '');
  };

  body.replaceChildren(
    h('button', { type: 'button', class: 'link', onclick: back.to }, back.label),
    heading,
    h('p', { class: 'hint' }, 'Tried on each new line of a later import, lowest priority first, before the proposal by TIN and amount: the first enabled rule whose conditions all hold proposes its action. A proposal is confirmed on the line, unless its rule confirms by itself: then the import posts it, and a line it cannot post waits here with the reason.'));
  if (can('createBankMatchingRule')) {
    const { open, form } = ruleForm(() => void load());
    body.append(open, form);
  }
  body.append(out);
  heading.focus();
  await load();
}

/**
 * The button that opens the form adding a rule, and the form (hidden until then); `added` is told the rule created.
 * @param {(r: Rule) => void} added
 */
function ruleForm(added) {
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  const field = fieldMaker(places, 'bank-rule');
  const text = (/** @type {string} */ name, /** @type {Record<string, string | number>} */ attrs = {}) => h('input', { name, autocomplete: 'off', ...attrs });
  const name = text('name', { maxlength: 200 });
  const priority = text('priority', { inputmode: 'numeric', value: '10', size: 5 });
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: true });
  const autoConfirm = h('input', { type: 'checkbox', name: 'autoConfirm' });
  const direction = h('select', { name: 'direction' }, h('option', { value: '' }, 'Either'), h('option', { value: 'IN' }, 'Received'), h('option', { value: 'OUT' }, 'Paid'));
  const tin = text('counterpartyTin', { inputmode: 'numeric', maxlength: 14 });
  const account = text('counterpartyAccount', { inputmode: 'numeric', maxlength: 20 });
  const amount = text('amountEquals', { inputmode: 'decimal' });
  const tolerance = text('amountTolerance', { inputmode: 'decimal' });
  const contains = text('purposeContains', { maxlength: 200 });
  const pattern = text('purposePattern', { maxlength: 200, spellcheck: 'false' });
  const type = h('select', { name: 'actionType' }, h('option', { value: 'SETTLE_INVOICES' }, ACTION_LABEL.SETTLE_INVOICES), h('option', { value: 'POST_TO_ACCOUNT' }, ACTION_LABEL.POST_TO_ACCOUNT));
  const accountCode = text('accountCode', { inputmode: 'numeric', maxlength: 4, size: 4, placeholder: '9430' });
  const accountField = field('action/accountCode', 'Account', accountCode, 'The account the line is posted to, e.g. 9430 for bank fees.');
  accountField.hidden = true;
  type.addEventListener('change', () => (accountField.hidden = /** @type {HTMLSelectElement} */ (type).value !== 'POST_TO_ACCOUNT'));
  const value = (/** @type {HTMLInputElement | HTMLSelectElement} */ control) => control.value.trim();

  /** The rule as the API takes it, without the conditions left empty. */
  const rule = () => {
    /** @type {import('./bank-common.js').Schemas['BankMatchingRuleConditions']} */
    const conditions = {};
    if (value(direction)) conditions.direction = /** @type {'IN' | 'OUT'} */ (value(direction));
    if (value(tin)) conditions.counterpartyTin = value(tin);
    if (value(account)) conditions.counterpartyAccount = value(account);
    if (value(amount)) conditions.amountEquals = plainAmount(value(amount));
    if (value(tolerance)) conditions.amountTolerance = plainAmount(value(tolerance));
    if (value(contains)) conditions.purposeContains = value(contains);
    if (value(pattern)) conditions.purposePattern = value(pattern);
    const actionType = /** @type {Rule['action']['type']} */ (value(type));
    return /** @satisfies {import('../api.js').RequestBody<'createBankMatchingRule'>} */ ({
      name: value(name),
      priority: Number(value(priority)),
      enabled: /** @type {HTMLInputElement} */ (enabled).checked,
      conditions,
      action: actionType === 'POST_TO_ACCOUNT' ? { type: actionType, accountCode: value(accountCode) } : { type: actionType },
      autoConfirm: /** @type {HTMLInputElement} */ (autoConfirm).checked,
    });
  };

  /** @returns {FieldProblem[]} */
  const check = () => {
    /** @type {FieldProblem[]} */
    const problems = [];
    /** @param {string} path @param {string | false} message */
    const add = (path, message) => {
      if (message) problems.push({ path, message });
    };
    add('name', !value(name) && 'Name the rule, e.g. “Bank fees”.');
    add('priority', !/^[1-9][0-9]{0,4}$/.test(value(priority)) || Number(value(priority)) > 10000 ? 'A priority is a whole number from 1 to 10000, lowest tried first.' : false);
    add('conditions/counterpartyTin', Boolean(value(tin)) && !/^([0-9]{9}|[0-9]{14})$/.test(value(tin)) && 'A TIN is 9 digits, a PINFL 14.');
    add('conditions/counterpartyAccount', Boolean(value(account)) && !/^[0-9]{20}$/.test(value(account)) && 'An account number is 20 digits.');
    add('conditions/amountEquals', Boolean(value(amount)) && !AMOUNT.test(plainAmount(value(amount))) && 'An amount, e.g. 5 000.00.');
    add('conditions/amountTolerance', Boolean(value(tolerance)) && (!AMOUNT.test(plainAmount(value(tolerance))) ? 'A tolerance is an amount, e.g. 100.00.' : !value(amount) && 'A tolerance is around an amount: type the amount too.'));
    add('action/accountCode', value(type) === 'POST_TO_ACCOUNT' && !/^[0-9]{4}$/.test(value(accountCode)) && 'The account to post to, 4 digits.');
    return problems;
  };
  const { show: showProblems, clear } = fieldProblems(places);

  const form = h('form', { id: 'bank-rule-form', class: 'bank-rule-form', novalidate: true, hidden: true },
    h('div', { class: 'field-row' },
      field('name', 'Name', name),
      field('priority', 'Priority', priority, 'Lowest tried first.'),
      h('label', { class: 'choice' }, enabled, ' Enabled')),
    h('fieldset', {}, h('legend', {}, 'When a new line has (every condition given must hold)'),
      h('div', { class: 'field-row' },
        field('conditions/direction', 'Direction', direction),
        field('conditions/counterpartyTin', 'Counterparty’s TIN or PINFL', tin),
        field('conditions/counterpartyAccount', 'Counterparty’s account', account)),
      h('div', { class: 'field-row' },
        field('conditions/amountEquals', 'Amount', amount),
        field('conditions/amountTolerance', '± Tolerance', tolerance, 'Either way from the amount.')),
      h('div', { class: 'field-row' },
        field('conditions/purposeContains', 'Purpose contains', contains, 'Any case.'),
        field('conditions/purposePattern', 'Purpose pattern', pattern, 'A regular expression (RE2), any case, e.g. комисси|commission.'))),
    h('div', { class: 'field-row' }, field('action/type', 'Then', type), accountField),
    h('label', { class: 'choice' }, autoConfirm, ' Confirm by itself at import: post the payment or the entry without waiting for a person'),
    h('div', { class: 'form-actions' },
      h('button', { type: 'submit' }, 'Add the rule'),
      h('button', { type: 'button', class: 'link', onclick: () => {
        form.hidden = true;
        open.hidden = false;
        open.focus();
      } }, 'Cancel')));
  const open = h('button', { type: 'button', id: 'new-bank-rule', class: 'section-action', onclick: () => {
    open.hidden = true;
    form.hidden = false;
    name.focus();
  } }, 'Add a rule');

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
    const details = rule();
    void busy(form, async () => {
      try {
        const { data } = /** @type {import('../api.js').Reply<'createBankMatchingRule'>} */ (await api('POST', rulesPath(), details));
        form.reset();
        accountField.hidden = true;
        form.hidden = true;
        open.hidden = false;
        showAlert(`Added the rule “${data.name}”: it is tried on the lines of the next import.`, 'info');
        added(data);
      } catch (err) {
        if (!(err instanceof ProblemError)) return showAlert(describe(err));
        /** @type {FieldProblem[]} */
        const named = (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));
        const elsewhere = showProblems(named);
        showAlert(named.length > elsewhere.length ? `${err.problem.title ?? 'Not added'}: check the fields marked below.` : describe(err));
        /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
      }
    });
  });
  return { open, form };
}
