// @ts-check
// The form that posts a payment, drawn in place of the view it is opened from (the payments list, or an open
// invoice's card, which fills it in: its counterparty, currency, what it has outstanding, allocated to it). Money
// in from a customer or out to a supplier, through a money account (50xx–52xx), allocated oldest first, to the
// invoices chosen, or held whole as an advance (payment-allocations.js). Posted, the payment's card replaces it.
import { ProblemError } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { groupDigits, plainAmount } from '../money.js';
import { api } from '../session.js';
import { MONEY_ACCOUNT, moneyAccountPicker } from './account-picker.js';
import { fieldMaker, fieldProblems, problemType, today, uuid } from './common.js';
import { counterpartyPicker } from './counterparty-picker.js';
import { FUNCTIONAL, currencyDecimals } from './currency.js';
import { allocationChooser, amountUnits } from './payment-allocations.js';
import { paymentCard } from './payment-card.js';
import { paymentPath, paymentProblem } from './payment-common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {import('./common.js').WayBack} WayBack */
/** @typedef {import('./payment-card.js').OpenInvoice} OpenInvoice */

/** The money account a payment starts on: the settlement (bank) account, or for a foreign currency its account. */
const DEFAULT_MONEY = { [FUNCTIONAL]: '5110', foreign: '5210' };

/**
 * @param {HTMLElement} body
 * @param {object} options
 * @param {Schemas['Invoice']} [options.invoice] an open invoice the payment settles
 * @param {WayBack} options.back the way back without posting, and the posted payment's way back
 * @param {OpenInvoice} options.openInvoice how an invoice's card is drawn, from the payment's card
 */
export async function paymentForm(body, { invoice, back, openInvoice }) {
  // One requestId for the form: a second submit of the same payment (a lost answer, a double click) is answered
  // with the payment the first one posted, never posted twice.
  const requestId = uuid();
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();

  const field = fieldMaker(places, 'payment');

  const direction = h('select', { name: 'direction' },
    h('option', { value: 'IN', selected: invoice?.kind !== 'PURCHASE' }, 'Received from a customer'),
    h('option', { value: 'OUT', selected: invoice?.kind === 'PURCHASE' }, 'Paid to a supplier'));
  const date = h('input', { type: 'date', name: 'date', required: true, value: invoice && invoice.date > today() ? invoice.date : today() });
  const counterparty = counterpartyPicker({ label: 'Counterparty', onChange: () => void chooser.refresh() });
  const amount = h('input', { name: 'amount', inputmode: 'decimal', maxlength: 30, autocomplete: 'off', class: 'amount', value: invoice ? groupDigits(invoice.outstanding) : '' });
  const currency = h('input', { name: 'currency', value: invoice?.currency ?? FUNCTIONAL, maxlength: 3, autocomplete: 'off', spellcheck: 'false', class: 'currency-code' });
  let moneyByDefault = true;
  const cashAccount = moneyAccountPicker({ label: 'Money account', onChange: () => (moneyByDefault = false) });
  cashAccount.input.addEventListener('input', () => (moneyByDefault = false));
  const description = h('input', { name: 'description', id: 'payment-description', maxlength: 400, value: invoice ? `Invoice ${invoice.number ?? ''}`.trim() : '' });

  const code = () => currency.value.trim();
  const decimals = () => (/^[A-Z]{3}$/.test(code()) ? currencyDecimals(code()) : 2);
  const chooser = allocationChooser({
    id: 'payment',
    context: () => ({ direction: /** @type {'IN' | 'OUT'} */ (direction.value), counterpartyId: counterparty.value(), currency: /^[A-Z]{3}$/.test(code()) ? code() : '', date: date.value }),
    available: () => amountUnits(amount.value, decimals()),
    availableLabel: 'the amount',
    allowNone: true,
    places,
    preset: invoice ? { invoiceId: invoice.id, amount: groupDigits(invoice.outstanding) } : undefined,
  });
  if (invoice) counterparty.choose({ value: invoice.counterpartyId, label: invoice.counterpartyName });

  /** The money account follows the currency until one is chosen: 5110 for UZS, 5210 for a foreign currency. */
  const preferMoney = async () => {
    const wanted = code() === FUNCTIONAL ? DEFAULT_MONEY[FUNCTIONAL] : DEFAULT_MONEY.foreign;
    if (!moneyByDefault || cashAccount.value() === wanted) return;
    cashAccount.choose(null);
    await cashAccount.prefer(wanted);
    // Chosen meanwhile by hand, the account stays as chosen.
    moneyByDefault = !cashAccount.text() || cashAccount.value() === wanted;
  };

  /**
   * What is wrong with the form as typed, each at the path the API would name it by.
   * @returns {FieldProblem[]}
   */
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
    add('date', !date.value && 'Choose the payment\'s date.');
    add('counterpartyId', !counterparty.value() && (counterparty.text() ? `Choose “${counterparty.text()}” from the list.` : 'Choose the counterparty.'));
    add('currency', !/^[A-Z]{3}$/.test(code()) && 'A currency is its three-letter code, e.g. UZS or USD.');
    add('amount', amountUnits(amount.value, decimals()) === null && `An amount above zero with at most ${decimals()} decimals${/^[A-Z]{3}$/.test(code()) ? ` (${code()})` : ''}.`);
    const typed = cashAccount.text();
    add('cashAccount', !MONEY_ACCOUNT.test(cashAccount.value()) && (typed ? `“${typed}” is not a money account (50xx–52xx); choose one from the list.` : 'Choose the cash or bank account the money goes through.'));
    return [...problems, ...chooser.check()];
  };

  const { show: showProblems } = fieldProblems(places);
  const firstMarked = () => /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]:not([hidden])'));

  const heading = h('h1', { tabindex: -1 }, invoice ? `Payment of ${invoice.kind === 'SALES' ? 'sales' : 'purchase'} invoice ${invoice.number ?? ''}`.trim() : 'New payment');
  const form = h('form', { id: 'payment-form', class: 'payment-form', novalidate: true },
    h('div', { class: 'field-row' },
      field('direction', 'Direction', direction),
      field('date', 'Date', date),
      field('counterpartyId', 'Counterparty', counterparty.element, undefined, counterparty.input)),
    h('div', { class: 'field-row' },
      field('amount', 'Amount', amount),
      field('currency', 'Currency', currency, 'UZS, or converted at the CBU rate of the date.'),
      field('cashAccount', 'Money account', cashAccount.element, 'Cash 50xx, bank 51xx, foreign currency 52xx.', cashAccount.input)),
    field('description', 'Description (optional)', description),
    chooser.element,
    h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Post the payment'), h('button', { type: 'button', class: 'link', onclick: back.to }, 'Discard')));

  // What is typed changes what stays unallocated at once; the open invoices are read again when what they
  // depend on is left (the direction, the date, the currency) or chosen (the counterparty).
  form.addEventListener('input', (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    // A field's problem goes once it is edited.
    for (const place of places.values()) {
      if (!place.controls.includes(target)) continue;
      place.controls.forEach((control) => control.removeAttribute('aria-invalid'));
      place.error.textContent = '';
      place.error.hidden = true;
    }
    if (target === currency) {
      const at = currency.selectionStart;
      currency.value = currency.value.toUpperCase();
      currency.setSelectionRange(at, at);
    }
    chooser.update();
  });
  form.addEventListener('change', (event) => {
    const target = event.target;
    if (target === amount) {
      const plain = plainAmount(amount.value.trim());
      if (/^[0-9]+(\.[0-9]+)?$/.test(plain)) amount.value = groupDigits(plain);
    }
    if (target === currency) void preferMoney();
    if (target === direction || target === date || target === currency) void chooser.refresh();
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const problems = check();
    if (problems.length) {
      showProblems(problems);
      showAlert('Check the fields marked below.');
      return firstMarked()?.focus();
    }
    showProblems([]);
    const payment = /** @satisfies {import('../api.js').RequestBody<'postPayment'>} */ ({
      requestId,
      direction: /** @type {'IN' | 'OUT'} */ (direction.value),
      date: date.value,
      counterpartyId: counterparty.value(),
      amount: plainAmount(amount.value.trim()),
      currency: code(),
      cashAccount: cashAccount.value(),
      ...(description.value.trim() ? { description: description.value.trim() } : {}),
      ...chooser.request(),
    });
    void busy(form, async () => {
      try {
        const { data } = /** @type {import('../api.js').Reply<'postPayment'>} */ (await api('POST', paymentPath(), payment));
        await paymentCard(body, data, { back, openInvoice });
        const advance = /[1-9]/.test(data.unallocated) ? `, ${groupDigits(data.unallocated)} ${data.currency} held as an advance` : '';
        showAlert(`Posted the payment: ${groupDigits(data.allocated)} ${data.currency} allocated to ${data.allocations.length} ${data.allocations.length === 1 ? 'invoice' : 'invoices'}${advance}.`, 'info');
      } catch (err) {
        await refused(err);
      }
    });
  });

  /**
   * A refusal: problems of `errors` show at their fields, an allocation beyond an invoice's outstanding at its row
   * (the invoices read again); the rest in the page's alert.
   * @param {unknown} err
   */
  const refused = async (err) => {
    const message = paymentProblem(err, 'post');
    if (!(err instanceof ProblemError)) return showAlert(message);
    const type = problemType(err);
    if (type === 'allocation-exceeds-outstanding' || type === 'allocation-exceeds-payment') {
      const invoiceId = typeof err.problem.invoiceId === 'string' ? err.problem.invoiceId : null;
      // Read again, the invoice shows what it has outstanding now (or is gone, paid meanwhile).
      await chooser.reread();
      const path = invoiceId ? chooser.pathOf(invoiceId) : null;
      showProblems([{ path: path ?? 'allocations', message: type === 'allocation-exceeds-payment' ? 'More than the payment.' : 'More than the invoice has outstanding now.' }]);
      return showAlert(message);
    }
    /** @type {FieldProblem[]} */
    const problems = (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));
    const elsewhere = showProblems(problems);
    if (problems.length > elsewhere.length) {
      showAlert(`${err.problem.title ?? 'Not posted'}: check the fields marked below.${elsewhere.length ? ` ${elsewhere.map((p) => `${p.path} ${p.message}`).join('; ')}` : ''}`);
      return firstMarked()?.focus();
    }
    showAlert(message);
  };

  body.replaceChildren(h('button', { type: 'button', class: 'link', onclick: back.to }, back.label), heading, form);
  heading.focus();
  await Promise.all([preferMoney(), chooser.refresh()]);
}
