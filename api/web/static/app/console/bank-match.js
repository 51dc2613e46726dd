// @ts-check
// The form that matches one bank line, drawn in place of the account's lines: the counterparty (the proposal's, or
// the register's one with the line's TIN), then the invoices chosen among its open ones of the kind the line's
// direction settles, in the account's currency, dated on or before the line (payment-allocations.js), or none:
// the whole line an advance. What the invoices leave of the line is an advance too. The API posts the line's
// payment in the same commit; its refusals show beside the fields they name, or in the page's alert.
import { ProblemError } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { formatAmount, formatUnits, groupDigits, plainAmount, toUnits } from '../money.js';
import { api, company } from '../session.js';
import { bankPath, lineProblem, lineText } from './bank-common.js';
import { fieldProblems, problemType } from './common.js';
import { counterpartyOption, counterpartyPicker } from './counterparty-picker.js';
import { currencyDecimals } from './currency.js';
import { allocationChooser } from './payment-allocations.js';

/** @typedef {import('./bank-common.js').BankAccount} BankAccount */
/** @typedef {import('./bank-common.js').BankLine} BankLine */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {import('./common.js').WayBack} WayBack */
/** @typedef {import('./combobox.js').ComboOption} ComboOption */

/**
 * The counterparty a line is matched to unless another is chosen: the proposal's, else the one active counterparty
 * whose TIN or PINFL is the line's; null when there is none (or it cannot be read).
 * @param {BankLine} line
 * @returns {Promise<ComboOption | null>}
 */
async function likelyCounterparty(line) {
  try {
    if (line.proposal) {
      const { data } = /** @type {import('../api.js').Reply<'getCounterparty'>} */ (await api('GET', `/api/v1/counterparties/${company()}/${line.proposal.counterpartyId}`));
      return counterpartyOption(data);
    }
    const tin = line.counterpartyTin;
    if (!tin) return null;
    const { data } = /** @type {import('../api.js').Reply<'listCounterparties'>} */ (await api('GET', `/api/v1/counterparties/${company()}?${new URLSearchParams({ q: tin, size: '20' })}`));
    const found = data.items.filter((c) => c.tin === tin || c.pinfl === tin);
    return found.length === 1 ? counterpartyOption(found[0]) : null;
  } catch {
    return null;
  }
}

/**
 * @param {HTMLElement} body
 * @param {BankAccount} account
 * @param {BankLine} line a line not matched
 * @param {WayBack} back the way back to the lines, read again; also where a matched line goes
 */
export async function matchForm(body, account, line, back) {
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  const decimals = currencyDecimals(line.currency);
  const counterparty = counterpartyPicker({ label: 'Counterparty', onChange: () => void chooser.refresh() });
  const counterpartyError = h('span', { class: 'field-error', id: 'bank-match-counterpartyId-error', hidden: true });
  counterparty.input.setAttribute('aria-describedby', `bank-match-counterparty-hint ${counterpartyError.id}`);
  places.set('counterpartyId', { controls: [counterparty.input], error: counterpartyError });
  const proposed = line.proposal?.allocations[0];
  const chooser = allocationChooser({
    id: 'bank-match',
    context: () => ({ direction: line.direction, counterpartyId: counterparty.value(), currency: line.currency, date: line.date }),
    available: () => toUnits(line.amount, decimals),
    availableLabel: 'the line',
    allowNone: true,
    oldestFirst: false,
    places,
    preset: proposed ? { invoiceId: proposed.invoiceId, amount: groupDigits(proposed.amount) } : undefined,
  });
  const { show: showProblems } = fieldProblems(places);
  const firstMarked = () => /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]:not([hidden])'));

  /** What the form asks for, or the problems that keep it from asking. */
  const request = () => {
    /** @type {FieldProblem[]} */
    const problems = [];
    if (!counterparty.value()) {
      problems.push({ path: 'counterpartyId', message: counterparty.text() ? `Choose “${counterparty.text()}” from the list.` : 'Choose the counterparty whose invoices the line settles.' });
    }
    problems.push(...chooser.check());
    const chosen = chooser.mode() === 'CHOSEN' ? chooser.request().allocations ?? [] : [];
    if (chooser.mode() === 'CHOSEN' && chosen.length === 0 && counterparty.value()) {
      problems.push({ path: 'allocations', message: 'Type what at least one invoice takes, or choose “None: an advance”.' });
    }
    /** @type {import('../api.js').RequestBody<'matchBankLine'>} */
    const match = chosen.length ? { allocations: chosen } : { counterpartyId: counterparty.value(), allocations: [] };
    return { problems, match };
  };

  const heading = h('h1', { tabindex: -1 }, `Match the line: ${lineText(line)}`);
  /** @type {[string, (Node | string)[] | Node | string][]} */
  const facts = [
    [line.direction === 'IN' ? 'Received from' : 'Paid to', [line.counterpartyName ?? 'not named', line.counterpartyTin ? h('span', { class: 'muted' }, ` · TIN ${line.counterpartyTin}`) : '']],
    ['Amount', h('span', { class: 'money' }, formatAmount(line.amount), h('span', { class: 'currency' }, ` ${line.currency}`))],
    ['Purpose', line.purpose],
  ];
  if (line.counterpartyAccount) facts.push(['Their account', `${line.counterpartyBankCode ? `MFO ${line.counterpartyBankCode} · ` : ''}${line.counterpartyAccount}`]);
  if (line.proposal) facts.push(['Proposed', line.proposal.reason]);
  const form = h('form', { id: 'bank-match-form', class: 'payment-form', novalidate: true },
    h('div', { class: 'field', 'data-field': 'counterpartyId' }, h('label', {}, 'Counterparty', counterparty.element),
      h('span', { class: 'hint', id: 'bank-match-counterparty-hint' }, line.direction === 'IN' ? 'The customer who paid: its open sales invoices are offered.' : 'The supplier paid: its open purchase invoices are offered.'),
      counterpartyError),
    chooser.element,
    h('p', { class: 'hint' }, `Matching posts the line's payment, dated ${line.date}, on ${account.accountCode}; what the invoices leave of it is held as an advance.`),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Match the line'), h('button', { type: 'button', class: 'link', onclick: back.to }, 'Discard')));

  form.addEventListener('input', (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    for (const place of places.values()) {
      if (!place.controls.includes(target)) continue;
      place.controls.forEach((control) => control.removeAttribute('aria-invalid'));
      place.error.textContent = '';
      place.error.hidden = true;
    }
    chooser.update();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const { problems, match } = request();
    if (problems.length) {
      showProblems(problems);
      showAlert('Check the fields marked below.');
      return firstMarked()?.focus();
    }
    showProblems([]);
    const allocated = (match.allocations ?? []).reduce((sum, a) => sum + toUnits(plainAmount(a.amount), decimals), 0n);
    void busy(form, async () => {
      try {
        await api('POST', bankPath(account.id, 'lines', line.id, 'match'), match);
        back.to();
        const count = match.allocations?.length ?? 0;
        const rest = toUnits(line.amount, decimals) - allocated;
        const advance = rest > 0n ? `${groupDigits(formatUnits(rest, decimals))} ${line.currency} held as an advance` : '';
        const settled = count ? `${groupDigits(formatUnits(allocated, decimals))} ${line.currency} allocated to ${count} ${count === 1 ? 'invoice' : 'invoices'}` : '';
        showAlert(`Matched the line ${lineText(line)}: its payment is posted, ${[settled, advance].filter(Boolean).join(', ')}.`, 'info');
      } catch (err) {
        await refused(err);
      }
    });
  });

  /**
   * A refusal: problems of `errors` at their fields, an allocation beyond an invoice's outstanding at its row (the
   * invoices read again); the rest in the page's alert.
   * @param {unknown} err
   */
  const refused = async (err) => {
    const message = lineProblem(err, 'match');
    if (!(err instanceof ProblemError)) return showAlert(message);
    const type = problemType(err);
    if (type === 'bank-line-matched') {
      // Matched meanwhile: the lines show it as it is now.
      back.to();
      return showAlert(message);
    }
    if (type === 'allocation-exceeds-outstanding' || type === 'allocation-exceeds-payment') {
      await chooser.reread();
      const path = typeof err.problem.invoiceId === 'string' ? chooser.pathOf(err.problem.invoiceId) : null;
      showProblems([{ path: path ?? 'allocations', message: type === 'allocation-exceeds-payment' ? 'More than the line.' : 'More than the invoice has outstanding now.' }]);
      return showAlert(message);
    }
    /** @type {FieldProblem[]} */
    const problems = (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));
    const elsewhere = showProblems(problems);
    if (problems.length > elsewhere.length) {
      showAlert(`${err.problem.title ?? 'Not matched'}: check the fields marked below.${elsewhere.length ? ` ${elsewhere.map((p) => `${p.path} ${p.message}`).join('; ')}` : ''}`);
      return firstMarked()?.focus();
    }
    showAlert(message);
  };

  body.replaceChildren(h('button', { type: 'button', class: 'link', onclick: back.to }, back.label), heading,
    h('dl', { class: 'invoice-facts', id: 'bank-line-facts' }, facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]).flat()), form);
  heading.focus();
  const likely = await likelyCounterparty(line);
  // Chosen by hand meanwhile, the counterparty stays as chosen.
  if (likely && !counterparty.value() && !counterparty.text()) counterparty.choose(likely);
  await chooser.refresh();
}
