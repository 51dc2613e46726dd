// A few DOM helpers. Text is always set as text, never parsed as HTML.

/** h('p', { class: 'x' }, 'text', child) */
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

export function showAlert(text, kind = 'error') {
  const alert = document.getElementById('alert');
  alert.textContent = text;
  alert.className = `alert ${kind}`;
  alert.hidden = !text;
}

export function clearAlert() {
  showAlert('');
}

/** The form's fields as an object of trimmed strings (passwords untrimmed). */
export function fieldsOf(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    out[el.name] = el.type === 'password' ? el.value : el.value.trim();
  }
  return out;
}

/** Disables the form's buttons while `work` runs. */
export async function busy(form, work) {
  const buttons = [...form.querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  try {
    return await work();
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}
