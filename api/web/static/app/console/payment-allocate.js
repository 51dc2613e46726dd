// @ts-check
// The card's form that allocates what a payment holds as an advance to the counterparty's open invoices, dated as
// said (the reclassification's date: on or after the payment and the invoices): oldest first or the amounts
// chosen, what stays unallocated shown as it is typed (payment-allocations.js).
import { ProblemError } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { groupDigits, toUnits } from '../money.js';
import { api } from '../session.js';
import { fieldProblems, problemType, today } from './common.js';
import { currencyDecimals } from './currency.js';
import { allocationChooser } from './payment-allocations.js';
import { paymentPath, paymentProblem } from './payment-common.js';

/** @typedef {import('./payment-common.js').Payment} Payment */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */

/**
 * The button that opens the form, and the form (hidden until then); `done` draws the card of the payment the API
 * answers, `changed` the card as it is stored now (the payment cancelled meanwhile).
 * @param {Payment} p a posted payment with something unallocated
 * @param {{ done: (p: Payment) => Promise<void>, changed: () => Promise<void> }} after
 */
export function allocateForm(p, { done, changed }) {
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  const date = h('input', { type: 'date', name: 'date', required: true, value: today() < p.date ? p.date : today(), min: p.date });
  const dateError = h('span', { class: 'field-error', id: 'allocate-date-error', hidden: true });
  places.set('date', { controls: [date], error: dateError });
  const chooser = allocationChooser({
    id: 'allocate',
    context: () => ({ direction: p.direction, counterpartyId: p.counterpartyId, currency: p.currency, date: date.value }),
    available: () => toUnits(p.unallocated, currencyDecimals(p.currency)),
    availableLabel: 'the advance',
    allowNone: false,
    places,
  });
  const { show: showProblems } = fieldProblems(places);
  const form = h('form', { id: 'allocate-payment', class: 'allocate-form', novalidate: true, hidden: true },
    h('p', { class: 'hint' }, `${groupDigits(p.unallocated)} ${p.currency} of this payment is an advance. Allocating it posts its reclassification, dated as you say.`),
    h('div', { class: 'field' }, h('label', {}, 'Allocate on ', date), dateError),
    chooser.element,
    h('div', { class: 'form-actions' },
      h('button', { type: 'submit' }, 'Allocate'),
      h('button', { type: 'button', class: 'link', onclick: () => {
        form.hidden = true;
        open.hidden = false;
        open.focus();
      } }, 'Keep it as an advance')));
  const open = h('button', { type: 'button', id: 'open-allocate', class: 'secondary', onclick: () => {
    open.hidden = true;
    form.hidden = false;
    date.focus();
    void chooser.refresh();
  } }, 'Allocate…');

  form.addEventListener('input', () => chooser.update());
  date.addEventListener('change', () => {
    date.removeAttribute('aria-invalid');
    dateError.hidden = true;
    void chooser.refresh();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    /** @type {FieldProblem[]} */
    const problems = [...(date.value ? [] : [{ path: 'date', message: 'Choose the date of the allocation.' }]), ...chooser.check()];
    if (problems.length) {
      showProblems(problems);
      showAlert('Check the fields marked below.');
      return /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
    }
    showProblems([]);
    const allocation = /** @satisfies {import('../api.js').RequestBody<'allocatePayment'>} */ ({ date: date.value, ...chooser.request() });
    void busy(form, async () => {
      try {
        const { data } = /** @type {import('../api.js').Reply<'allocatePayment'>} */ (await api('POST', paymentPath(p.id, 'allocations'), allocation));
        await done(data);
        showAlert(/[1-9]/.test(data.unallocated) ? `Allocated: ${groupDigits(data.unallocated)} ${data.currency} of the payment is still an advance.` : 'Allocated: nothing of the payment is an advance now.', 'info');
      } catch (err) {
        const message = paymentProblem(err, 'allocate');
        if (!(err instanceof ProblemError)) return showAlert(message);
        const type = problemType(err);
        if (type === 'document-state') {
          await changed();
          return showAlert(message);
        }
        if (type === 'allocation-exceeds-outstanding' || type === 'allocation-exceeds-payment') {
          // Read again, the invoice shows what it has outstanding now (or is gone, paid meanwhile).
          await chooser.reread();
          const path = typeof err.problem.invoiceId === 'string' ? chooser.pathOf(err.problem.invoiceId) : null;
          showProblems([{ path: path ?? 'allocations', message: type === 'allocation-exceeds-payment' ? 'More than the advance.' : 'More than the invoice has outstanding now.' }]);
          return showAlert(message);
        }
        const problems = (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));
        const elsewhere = showProblems(problems);
        showAlert(problems.length > elsewhere.length ? `${err.problem.title ?? 'Not allocated'}: check the fields marked below.` : message);
      }
    });
  });
  return { open, form };
}
