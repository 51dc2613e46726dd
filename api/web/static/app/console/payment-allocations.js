// @ts-check
// What a payment settles, chosen in a form (posting a payment, or allocating what one holds as an advance): the
// invoices the API finds oldest first, invoices and amounts chosen among the counterparty's open ones, or none
// (the payment is an advance). The open invoices offered are the counterparty's posted ones of the kind the
// direction settles, in the payment's currency, dated on or before it, each with what it has outstanding. What
// stays unallocated shows as it is typed, in exact units of the currency's decimals (money.js, BigInt), never
// through floats; oldest first is previewed as the API applies it (due date, then date, then number).
import { h } from '../dom.js';
import { PAYMENT_AMOUNT, formatAmount, formatUnits, groupDigits, plainAmount, toUnits } from '../money.js';
import { alignAmounts, table } from './common.js';
import { FUNCTIONAL, currencyDecimals } from './currency.js';
import { openInvoicesNote, readOpenInvoices } from './open-invoices.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['Invoice']} Invoice */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {Map<string, { controls: HTMLElement[], error: HTMLElement }>} Places */
/** @typedef {'OLDEST_FIRST' | 'CHOSEN' | 'NONE'} Mode */

/** What the open invoices are read for: '' where the form has no valid value yet. @typedef {import('./open-invoices.js').Context} Context */

/**
 * The amount typed for a payment or an allocation in units of the currency's decimals; null unless it is one the API
 * takes (a decimal above zero with at most the currency's decimals).
 * @param {string} typed
 * @param {number} places
 */
export function amountUnits(typed, places) {
  const text = plainAmount(typed.trim());
  if (!PAYMENT_AMOUNT.test(text) || (text.split('.')[1] ?? '').length > places) return null;
  const units = toUnits(text, places);
  return units > 0n ? units : null;
}

/**
 * @param {object} options
 * @param {string} options.id the prefix of the element ids ("payment", "allocate")
 * @param {() => Context} options.context
 * @param {() => bigint | null} options.available what there is to allocate, in units of the currency's decimals
 * @param {string} options.availableLabel what it is called ("the amount", "the advance")
 * @param {boolean} options.allowNone whether "none" is a choice (a payment posted as an advance)
 * @param {boolean} [options.oldestFirst] whether "oldest first" is a choice (the default); a bank line's match names
 *   its invoices, so it offers the invoices chosen and none only
 * @param {Places} options.places the form's problem places; the chooser keeps its own in it
 * @param {{ invoiceId: string, amount: string }} [options.preset] an invoice chosen already, whose amount follows
 *   what is available until it is typed
 */
export function allocationChooser({ id, context, available, availableLabel, allowNone, oldestFirst = true, places, preset }) {
  /** @type {[Mode, string, string][]} */
  const modes = [
    ...(oldestFirst ? /** @type {[Mode, string, string][]} */ ([['OLDEST_FIRST', 'Oldest invoices first', 'The API settles the open invoices by due date, then date, at posting.']]) : []),
    ['CHOSEN', 'Invoices chosen below', 'Type the amount each invoice takes.'],
    ...(allowNone ? /** @type {[Mode, string, string][]} */ ([['NONE', 'None: an advance', 'The whole amount is held as an advance (6310 received, 4310 paid) until allocated.']]) : []),
  ];
  const initial = preset || !oldestFirst ? 'CHOSEN' : 'OLDEST_FIRST';
  const radios = modes.map(([value]) => h('input', { type: 'radio', name: `${id}-allocation`, value, checked: value === initial }));
  const modeHint = h('span', { class: 'hint', id: `${id}-allocation-hint` });
  const note = h('p', { class: 'hint', id: `${id}-open-note`, 'aria-live': 'polite' });
  const listError = h('span', { class: 'field-error', id: `${id}-allocations-error`, hidden: true });
  const remainder = h('output', { id: `${id}-unallocated`, class: 'remainder', 'aria-live': 'polite' });
  const list = h('div', { id: `${id}-open-invoices`, class: 'open-invoices' });
  const element = h('fieldset', { class: 'allocation', id: `${id}-allocation` },
    h('legend', {}, 'Allocation'),
    h('div', { class: 'choices', role: 'radiogroup', 'aria-describedby': modeHint.id }, modes.map(([, label], i) => h('label', { class: 'choice' }, radios[i], ` ${label}`))),
    modeHint, list, note, listError, remainder);

  /** The open invoices offered, oldest first. @type {Invoice[]} */
  let open = [];
  /** @type {Map<string, { input: HTMLInputElement, takes: HTMLElement, error: HTMLElement }>} */
  const rows = new Map();
  /** Amounts typed, by invoice, kept while the invoices are read again. @type {Map<string, string>} */
  const typed = new Map(preset ? [[preset.invoiceId, preset.amount]] : []);
  /** The preset invoice while its amount follows what is available. */
  let linked = preset?.invoiceId ?? null;
  let reading = 0;
  /** The context the invoices were read for. */
  let readFor = '';

  const mode = () => /** @type {Mode} */ (radios.find((r) => r.checked)?.value ?? initial);
  const decimalsNow = () => currencyDecimals(context().currency || FUNCTIONAL);
  /** @param {bigint} units */
  const show = (units) => groupDigits(formatUnits(units, decimalsNow()));

  /** The rows that send an allocation, in the order shown: a problem's index is theirs. */
  const sent = () => open.filter((inv) => (rows.get(inv.id)?.input.value.trim() ?? '') !== '');

  /** Problem places of the chosen rows (`allocations/N/amount`), named by their place among those sent. */
  const mapPlaces = () => {
    // A row's place may go to another row: what the old places show goes with them.
    for (const [key, place] of [...places.entries()].filter(([k]) => k.startsWith('allocations/'))) {
      place.controls.forEach((control) => control.removeAttribute('aria-invalid'));
      place.error.textContent = '';
      place.error.hidden = true;
      places.delete(key);
    }
    places.set('allocations', { controls: [], error: listError });
    places.set('allocate', { controls: radios, error: listError });
    if (mode() !== 'CHOSEN') return;
    sent().forEach((inv, i) => {
      const row = /** @type {NonNullable<ReturnType<typeof rows.get>>} */ (rows.get(inv.id));
      places.set(`allocations/${i}/amount`, { controls: [row.input], error: row.error });
      places.set(`allocations/${i}/invoiceId`, { controls: [row.input], error: row.error });
      places.set(`allocations/${i}`, { controls: [row.input], error: row.error });
    });
  };

  /** Shows each row's part and what stays unallocated, for the mode chosen and the amounts as typed. */
  const update = () => {
    const m = mode();
    modeHint.textContent = modes.find(([value]) => value === m)?.[2] ?? '';
    list.hidden = m === 'NONE';
    const decimals = decimalsNow();
    const total = available();
    if (linked && total !== null) {
      const inv = open.find((i) => i.id === linked);
      const row = rows.get(linked);
      if (inv && row) {
        const outstanding = toUnits(inv.outstanding, decimals);
        row.input.value = show(total < outstanding ? total : outstanding);
        typed.set(linked, row.input.value);
      }
    }
    let left = total ?? 0n;
    let allocated = 0n;
    let unread = false;
    for (const inv of open) {
      const row = rows.get(inv.id);
      if (!row) continue;
      row.input.hidden = m !== 'CHOSEN';
      row.takes.hidden = m !== 'OLDEST_FIRST';
      if (m === 'OLDEST_FIRST') {
        const outstanding = toUnits(inv.outstanding, decimals);
        const take = total === null ? 0n : left < outstanding ? left : outstanding;
        row.takes.textContent = total === null ? '' : show(take);
        left -= take;
        allocated += take;
      } else if (m === 'CHOSEN' && row.input.value.trim()) {
        const units = amountUnits(row.input.value, decimals);
        if (units === null) unread = true;
        else allocated += units;
      }
    }
    const code = context().currency;
    if (total === null) {
      remainder.textContent = `Enter ${availableLabel} to see what stays unallocated.`;
      remainder.removeAttribute('data-unallocated');
      return;
    }
    if (m === 'NONE') allocated = 0n;
    const rest = total - allocated;
    remainder.setAttribute('data-unallocated', formatUnits(rest, decimals));
    remainder.classList.toggle('over', rest < 0n);
    remainder.textContent = rest < 0n
      ? `The allocations are ${show(-rest)} ${code} more than ${availableLabel}.`
      : `Allocated ${show(allocated)} ${code} · unallocated ${show(rest)} ${code}${rest > 0n ? ' (held as an advance)' : ''}${unread ? ' · an amount typed is not a number yet' : ''}`;
  };

  /** @param {Invoice[]} invoices */
  const draw = (invoices) => {
    open = invoices;
    rows.clear();
    const code = context().currency;
    const trs = invoices.map((inv) => {
      const label = inv.number ?? inv.id;
      const input = h('input', { name: 'allocationAmount', inputmode: 'decimal', maxlength: 30, autocomplete: 'off', class: 'allocation-amount', 'data-invoice': inv.id,
        'aria-label': `Amount allocated to invoice ${label}`, value: typed.get(inv.id) ?? '' });
      const error = h('span', { class: 'field-error', hidden: true });
      const takes = h('output', { class: 'takes' });
      const fill = h('button', { type: 'button', class: 'link fill', 'aria-label': `Allocate to invoice ${label} what it has outstanding` }, 'All');
      input.addEventListener('input', () => {
        if (linked === inv.id) linked = null;
        typed.set(inv.id, input.value);
        update();
      });
      input.addEventListener('change', () => {
        const plain = plainAmount(input.value.trim());
        if (/^[0-9]+(\.[0-9]+)?$/.test(plain)) input.value = groupDigits(plain);
      });
      fill.addEventListener('click', () => {
        // What the invoice has outstanding, or what the other rows leave of what is available if that is less.
        const decimals = decimalsNow();
        const total = available();
        const others = open.filter((o) => o.id !== inv.id).reduce((s, o) => s + (amountUnits(rows.get(o.id)?.input.value ?? '', decimals) ?? 0n), 0n);
        const outstanding = toUnits(inv.outstanding, decimals);
        const room = total === null ? outstanding : total - others;
        const take = room < outstanding ? room : outstanding;
        if (take <= 0n) return;
        if (linked === inv.id) linked = null;
        input.value = show(take);
        typed.set(inv.id, input.value);
        radios.forEach((r) => (r.checked = r.value === 'CHOSEN'));
        update();
        input.focus();
      });
      rows.set(inv.id, { input, takes, error });
      return h('tr', { 'data-invoice': inv.id },
        h('td', { class: 'number' }, inv.number ?? ''),
        h('td', { class: 'date' }, inv.date),
        h('td', { class: 'date' }, inv.dueDate),
        h('td', { class: 'num outstanding' }, formatAmount(inv.outstanding)),
        h('td', { class: 'num allocate' }, input, takes, error),
        h('td', {}, fill));
    });
    // The rows are new: so are the places of their problems.
    mapPlaces();
    if (!trs.length) {
      list.replaceChildren();
      return;
    }
    const t = table(['Invoice', 'Date', 'Due', `Outstanding (${code})`, `Allocated (${code})`, ''], trs);
    t.classList.add('allocation-rows');
    alignAmounts(t, [3, 4]);
    list.replaceChildren(t);
  };

  /** Reads the counterparty's open invoices for the context as it is now, unless they were read for it. */
  const refresh = async () => {
    const ctx = context();
    const key = JSON.stringify(ctx);
    if (key === readFor) return update();
    readFor = key;
    const mine = ++reading;
    if (!ctx.counterpartyId || !/^[A-Z]{3}$/.test(ctx.currency)) {
      draw([]);
      note.textContent = ctx.counterpartyId ? 'Enter the currency to see the open invoices.' : 'Choose the counterparty to see its open invoices.';
      return update();
    }
    note.textContent = 'Reading the open invoices…';
    try {
      const read = await readOpenInvoices(ctx);
      if (mine !== reading) return;
      draw(read.invoices);
      note.textContent = openInvoicesNote(ctx, read);
    } catch {
      if (mine !== reading) return;
      readFor = '';
      draw([]);
      note.textContent = 'The open invoices could not be read; oldest first or none still post.';
    }
    update();
  };

  radios.forEach((r) => r.addEventListener('change', () => {
    mapPlaces();
    update();
  }));

  /**
   * What the request says of its allocations: OLDEST_FIRST, the amounts chosen (blank rows are not sent), or nothing.
   * @returns {{ allocate?: 'OLDEST_FIRST', allocations?: Schemas['AllocationInput'][] }}
   */
  const request = () => {
    mapPlaces();
    const m = mode();
    if (m === 'OLDEST_FIRST') return { allocate: 'OLDEST_FIRST' };
    if (m === 'NONE') return {};
    const chosen = sent().map((inv) => ({ invoiceId: inv.id, amount: plainAmount((rows.get(inv.id)?.input.value ?? '').trim()) }));
    return chosen.length || !allowNone ? { allocations: chosen } : {};
  };

  /**
   * What is wrong with the allocations as typed, at the paths the API would name.
   * @returns {FieldProblem[]}
   */
  const check = () => {
    mapPlaces();
    const m = mode();
    if (m !== 'CHOSEN') return [];
    const decimals = decimalsNow();
    /** @type {FieldProblem[]} */
    const problems = [];
    let sum = 0n;
    sent().forEach((inv, i) => {
      const units = amountUnits(rows.get(inv.id)?.input.value ?? '', decimals);
      if (units === null) problems.push({ path: `allocations/${i}/amount`, message: `An amount above zero with at most ${decimals} decimals.` });
      else if (units > toUnits(inv.outstanding, decimals)) problems.push({ path: `allocations/${i}/amount`, message: `More than the ${formatAmount(inv.outstanding)} outstanding.` });
      else sum += units;
    });
    const total = available();
    if (total !== null && sum > total) problems.push({ path: 'allocations', message: `The allocations add up to more than ${availableLabel}.` });
    if (!sent().length && !allowNone) problems.push({ path: 'allocations', message: 'Type the amount of at least one invoice, or allocate oldest first.' });
    return problems;
  };

  /**
   * The path of the row of an invoice the API says is allocated beyond its outstanding, if it is one sent and
   * still open.
   * @param {string} invoiceId
   */
  const pathOf = (invoiceId) => {
    const i = sent().findIndex((inv) => inv.id === invoiceId);
    return i < 0 ? null : `allocations/${i}/amount`;
  };

  /** Reads the invoices again, whatever they were read for (their outstanding changed). */
  const reread = () => {
    readFor = '';
    return refresh();
  };

  mapPlaces();
  update();
  return { element, refresh, reread, update, request, check, pathOf, mode };
}
