// @ts-check
// A few DOM helpers. Text is always set as text, never parsed as HTML.

/**
 * An element's attributes: a string or number is set as text, true as present, false, null and undefined
 * leave it out, and a function under an `on…` name listens for that event.
 * @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attributes
 */

/** @typedef {Node | string | number | false | null | undefined} Child */

/**
 * A form's named control, as `fieldsOf` reads it.
 * @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | HTMLButtonElement | HTMLOutputElement} Control
 */

/**
 * h('p', { class: 'x' }, 'text', child); arrays of children are spread one level.
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Attributes} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[Tag]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * @param {string} text
 * @param {'error' | 'info'} [kind]
 */
export function showAlert(text, kind = 'error') {
  // Every page has the alert line (register.html, reset-password.html, tenant.html).
  const alert = /** @type {HTMLElement} */ (document.getElementById('alert'));
  alert.textContent = text;
  alert.className = `alert ${kind}`;
  alert.hidden = !text;
}

export function clearAlert() {
  showAlert('');
}

/**
 * The form's fields as an object of trimmed strings (passwords untrimmed).
 * @param {HTMLFormElement} form
 * @returns {Record<string, string>}
 */
export function fieldsOf(form) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const control of form.elements) {
    const el = /** @type {Control} */ (control);
    if (!el.name) continue;
    out[el.name] = el.type === 'password' ? el.value : el.value.trim();
  }
  return out;
}

/**
 * Disables the form's buttons while `work` runs.
 * @template T
 * @param {HTMLFormElement} form
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function busy(form, work) {
  const buttons = [...form.querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  try {
    return await work();
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}
