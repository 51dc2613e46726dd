// @ts-check
// What the console's sections share: tables, amounts with their currency, the failure message, today's date,
// months, request ids, the way back from a view drawn in another's place, and problems shown beside their fields.
import { ProblemError, describe } from '../api.js';
import { h } from '../dom.js';
import { formatAmount } from '../money.js';

/**
 * The way back from a view drawn in place of another (a card, a list opened from a report): what puts that view
 * back, and the words of its button ("← All invoices", "← Back to the aging").
 * @typedef {{ to: () => void, label: string }} WayBack
 */

/**
 * A failed section read: the problem's words in the section itself, never a blank page.
 * @param {HTMLElement} body
 * @param {unknown} err
 */
export function failed(body, err) {
  body.replaceChildren(h('p', { class: 'alert error', role: 'alert' }, err instanceof ProblemError && err.status === 403 ? `You may not see this: ${describe(err)}` : describe(err)));
}

/**
 * A table of `headers` over `rows` (table rows, or a tbody to keep).
 * @param {string[]} headers
 * @param {HTMLTableRowElement[] | HTMLTableSectionElement} rows
 */
export function table(headers, rows) {
  const body = rows instanceof HTMLTableSectionElement ? rows : h('tbody', {}, rows);
  return h('table', {}, h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))), body);
}

/**
 * An amount with its currency: "1 250 000.00 UZS", the digits grouped (money.js).
 * @param {string} amount
 * @param {string} currency
 */
export const money = (amount, currency) => h('span', { class: 'money' }, formatAmount(amount), h('span', { class: 'currency' }, ` ${currency}`));

/**
 * Right-aligns the headers of a table's amount columns, as their cells are.
 * @param {HTMLTableElement} t
 * @param {number[]} columns
 */
export const alignAmounts = (t, columns) => columns.forEach((i) => t.tHead?.rows[0]?.cells[i]?.classList.add('num'));

export const today = () => new Date().toISOString().slice(0, 10);

/**
 * The first day of the date's month: "2025-01-15" → "2025-01-01".
 * @param {string} date
 */
export const monthStart = (date) => `${date.slice(0, 7)}-01`;

/**
 * The last day of the date's month: "2024-02-10" → "2024-02-29".
 * @param {string} date
 */
export function monthEnd(date) {
  const [year, month] = date.split('-').map(Number);
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}
export const uuid = () => crypto.randomUUID();

/**
 * The last segment of a problem's type ("/problems/rate-unavailable" → "rate-unavailable"), or null.
 * @param {unknown} err
 */
export function problemType(err) {
  return err instanceof ProblemError && typeof err.problem.type === 'string' ? err.problem.type.split('/').pop() ?? null : null;
}

/**
 * The maker of a form's labelled fields: each a control with its hint and its problem line, registered in
 * `places` under the problem path it answers to; the ids are `prefix-key-hint` and `prefix-key-error` (a path's
 * slashes as dashes).
 * @param {Map<string, { controls: HTMLElement[], error: HTMLElement }>} places
 * @param {string} prefix the ids' prefix
 */
export const fieldMaker = (places, prefix) =>
  /**
   * @param {string} key the problem path it answers to
   * @param {string} label
   * @param {HTMLElement} control
   * @param {string} [hint]
   * @param {HTMLElement} [focusable] the control problems mark, if not `control` (a picker's text box)
   */
  (key, label, control, hint, focusable = control) => {
    const id = `${prefix}-${key.replace(/\//g, '-')}`;
    const hintLine = hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : '';
    const error = h('span', { class: 'field-error', id: `${id}-error`, hidden: true });
    focusable.setAttribute('aria-describedby', [hintLine ? `${id}-hint` : '', error.id].filter(Boolean).join(' '));
    places.set(key, { controls: [focusable], error });
    return h('div', { class: 'field', 'data-field': key }, h('label', {}, label, control), hintLine, error);
  };

/** @typedef {{ path: string, message: string }} FieldProblem */

/**
 * Problems shown beside the fields they name. `places` maps a problem path (`lines/0/quantity`) to its controls
 * and the line its message shows on; the form fills it as it builds its fields.
 * @param {Map<string, { controls: HTMLElement[], error: HTMLElement }>} places
 */
export function fieldProblems(places) {
  /** The paths whose problems are shown. @type {Set<string>} */
  const shown = new Set();
  const clear = () => {
    for (const key of shown) {
      const place = places.get(key);
      if (!place) continue;
      place.controls.forEach((control) => control.removeAttribute('aria-invalid'));
      place.error.textContent = '';
      place.error.hidden = true;
    }
    shown.clear();
  };
  /**
   * Shows each problem next to its field (several on one line join); answers those no field is named by.
   * @param {FieldProblem[]} problems
   */
  const show = (problems) => {
    clear();
    /** @type {FieldProblem[]} */
    const elsewhere = [];
    for (const p of problems) {
      const place = places.get(p.path);
      if (!place) {
        elsewhere.push(p);
        continue;
      }
      place.controls.forEach((control) => control.setAttribute('aria-invalid', 'true'));
      if (!place.error.textContent.includes(p.message)) place.error.textContent = [place.error.textContent, p.message].filter(Boolean).join(' ');
      place.error.hidden = false;
      shown.add(p.path);
    }
    return elsewhere;
  };
  return { shown, clear, show };
}
