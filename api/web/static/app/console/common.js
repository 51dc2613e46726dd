// What the console's sections share: tables, the failure message, today's date and request ids.
import { ProblemError, describe } from '../api.js';
import { h } from '../dom.js';

/** A failed section read: the problem's words in the section itself, never a blank page. */
export function failed(body, err) {
  body.replaceChildren(h('p', { class: 'alert error', role: 'alert' }, err instanceof ProblemError && err.status === 403 ? `You may not see this: ${describe(err)}` : describe(err)));
}

/** A table of `headers` over `rows` (table rows, or a tbody to keep). */
export function table(headers, rows) {
  const body = rows instanceof HTMLTableSectionElement ? rows : h('tbody', {}, rows);
  return h('table', {}, h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))), body);
}

export const today = () => new Date().toISOString().slice(0, 10);
export const uuid = () => crypto.randomUUID();
