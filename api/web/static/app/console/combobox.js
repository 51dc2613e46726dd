// @ts-check
// A text box that searches as it is typed and offers what it finds in a list below it: the WAI-ARIA combobox
// pattern with a listbox popup and list autocomplete (https://www.w3.org/WAI/ARIA/apg/patterns/combobox/). The
// pickers (account-picker.js, counterparty-picker.js) are made of it. The chosen value sits in a hidden input
// under the picker's name, so a form reads it as it reads any field; the box shows the choice's label.
//
// Keys: ↓ and ↑ open the list and move through it (wrapping), Enter takes the option moved to (or, with none, the
// one that matches what was typed exactly, or the only one), Escape closes the list and then clears the box.
// Enter in a box whose text is not yet a choice never submits the form: it waits for the search and takes its
// exact match, or opens the list.
import { describe } from '../api.js';
import { h } from '../dom.js';

/**
 * One thing the list offers.
 * @typedef {object} ComboOption
 * @property {string} value what the picker stands for (an account's code, a counterparty's id)
 * @property {string} label what the box shows once it is chosen
 * @property {(Node | string)[]} [parts] how the option reads in the list (its label when left out)
 * @property {string[]} [exact] texts that, typed as they are (any case), choose it
 */

/**
 * @typedef {object} Combobox
 * @property {HTMLElement} element the picker, to put in a form
 * @property {HTMLInputElement} input the text box (role=combobox)
 * @property {() => string} value the chosen value, or what `typedValue` makes of a text typed without choosing
 * @property {() => string} text the box's text, trimmed
 * @property {(option: ComboOption | null) => void} choose sets (or, with null, clears) the choice
 */

const DEBOUNCE_MS = 250;
let count = 0;

/**
 * @param {object} options
 * @param {string} options.name the hidden input's name: the chosen value, as the form reads it
 * @param {string} options.label the box's accessible name
 * @param {(q: string) => Promise<ComboOption[]>} options.search what matches the typed text
 * @param {string} [options.placeholder]
 * @param {string} [options.empty] what the list says when nothing matches
 * @param {(typed: string) => string} [options.typedValue] the value of a text typed without choosing; '' by default
 * @param {(option: ComboOption | null) => void} [options.onChange] after a choice is made or undone
 * @returns {Combobox}
 */
export function combobox({ name, label, search, placeholder, empty = 'Nothing matches.', typedValue = () => '', onChange }) {
  const id = `combobox-${++count}`;
  const listbox = h('ul', { id: `${id}-list`, role: 'listbox', 'aria-label': label, class: 'combobox-list' });
  const note = h('p', { class: 'combobox-note', id: `${id}-note` });
  const popup = h('div', { class: 'combobox-popup', hidden: true }, listbox, note);
  const input = h('input', {
    type: 'text', role: 'combobox', 'aria-label': label, 'aria-autocomplete': 'list', 'aria-expanded': 'false', 'aria-controls': listbox.id,
    autocomplete: 'off', spellcheck: 'false', placeholder, 'data-picker': name,
  });
  const hidden = h('input', { type: 'hidden', name });
  // A count of what the list offers, read out by screen readers as it changes.
  const status = h('span', { class: 'visually-hidden', role: 'status' });
  const element = h('div', { class: 'combobox' }, input, hidden, popup, status);

  /** @type {ComboOption | null} */
  let chosen = null;
  /** @type {ComboOption[]} */
  let results = [];
  /** The text `results` answer, null before any search. */
  /** @type {string | null} */
  let resultsFor = null;
  let active = -1;
  let reading = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  // Enter was pressed before the search of the typed text answered: take its match when it does.
  let enterPending = false;
  // ↓ or ↑ opened the list before its search answered: the option to move to when it does.
  /** @type {'first' | 'last' | null} */
  let moveTo = null;

  const typed = () => input.value.trim();
  // What the list is searched for: the text typed, or for a choice what finds it again (a code, a number),
  // which its label ("4010 Receivables…") may not.
  const searchText = () => (chosen ? chosen.exact?.[0] ?? chosen.label : typed());
  const isOpen = () => !popup.hidden;
  const open = () => {
    popup.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  };
  const close = () => {
    popup.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    setActive(-1);
  };
  /** @param {number} index */
  const setActive = (index) => {
    active = index;
    [...listbox.children].forEach((li, i) => li.setAttribute('aria-selected', String(i === index)));
    const li = listbox.children[index];
    if (li) {
      input.setAttribute('aria-activedescendant', li.id);
      li.scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  };
  /**
   * The option the typed text names exactly; with `orOnly`, else the only one offered (Enter takes it, leaving
   * the box does not).
   * @param {boolean} orOnly
   */
  const match = (orOnly) => {
    const text = typed().toLowerCase();
    const exact = results.find((o) => o.label.toLowerCase() === text || (o.exact ?? []).some((e) => e.toLowerCase() === text));
    return exact ?? (orOnly && results.length === 1 ? results[0] : null);
  };

  /** @param {ComboOption | null} option */
  const choose = (option) => {
    const changed = chosen?.value !== option?.value;
    chosen = option;
    input.value = option ? option.label : '';
    // A narrow box cuts a long label short: the whole of it on hover.
    input.title = option ? option.label : '';
    hidden.value = option ? option.value : typedValue(typed());
    input.removeAttribute('aria-invalid');
    close();
    if (changed) onChange?.(option);
  };

  /** @param {ComboOption[]} options */
  const draw = (options) => {
    results = options;
    listbox.replaceChildren(...options.map((o, i) => {
      const li = h('li', { id: `${id}-${i}`, role: 'option', 'aria-selected': 'false', 'data-value': o.value }, o.parts ?? o.label);
      // The box keeps the focus: a press on an option must not blur it before the click chooses.
      li.addEventListener('mousedown', (event) => event.preventDefault());
      li.addEventListener('click', () => choose(o));
      return li;
    }));
    note.textContent = options.length ? '' : empty;
    status.textContent = options.length ? `${options.length} ${options.length === 1 ? 'option' : 'options'}` : empty;
    active = -1;
    input.removeAttribute('aria-activedescendant');
  };

  /** Searches now (`searchText`); a later search wins over an earlier one still on its way. */
  const run = async () => {
    clearTimeout(timer);
    const q = searchText();
    const mine = ++reading;
    try {
      const options = await search(q);
      if (mine !== reading) return;
      resultsFor = q;
      draw(options);
    } catch (err) {
      if (mine !== reading) return;
      resultsFor = q;
      draw([]);
      note.textContent = describe(err);
    }
    const focused = document.activeElement === input;
    if (moveTo && focused) {
      open();
      setActive(results.length ? (moveTo === 'first' ? 0 : results.length - 1) : -1);
      moveTo = null;
      return;
    }
    moveTo = null;
    if (enterPending || (!focused && !chosen)) {
      // Enter waited for this answer, or the box was left before it came: its exact match is the choice.
      const wanted = enterPending;
      enterPending = false;
      const found = q ? match(wanted) : null;
      if (found && !chosen) return choose(found);
      if (wanted && focused) open();
      return;
    }
    if (focused) open();
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), DEBOUNCE_MS);
  };

  input.addEventListener('input', () => {
    if (chosen) {
      chosen = null;
      input.title = '';
      onChange?.(null);
    }
    hidden.value = typedValue(typed());
    input.removeAttribute('aria-invalid');
    enterPending = false;
    moveTo = null;
    clearTimeout(timer);
    // An emptied box offers nothing until ↓ asks for the list.
    if (!typed()) {
      ++reading;
      return close();
    }
    later();
  });
  input.addEventListener('keydown', (event) => {
    const n = results.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const down = event.key === 'ArrowDown';
      if (!isOpen()) {
        // Nothing read for this text yet: read it, and move once it answers (Alt+↓ only opens the list).
        if (resultsFor !== searchText()) {
          moveTo = event.altKey ? null : down ? 'first' : 'last';
          return void run();
        }
        open();
        if (event.altKey) return;
        return setActive(n ? (down ? 0 : n - 1) : -1);
      }
      if (n) setActive(down ? (active + 1) % n : (active <= 0 ? n - 1 : active - 1));
    } else if (event.key === 'Enter') {
      if (isOpen() && active >= 0) {
        event.preventDefault();
        return choose(results[active]);
      }
      if (chosen || !typed()) return; // the form's own Enter
      event.preventDefault();
      if (resultsFor === typed()) {
        const found = match(true);
        if (found) return choose(found);
        return open();
      }
      enterPending = true;
      void run();
    } else if (event.key === 'Escape') {
      if (isOpen()) {
        event.preventDefault();
        close();
      } else if (input.value) {
        event.preventDefault();
        input.value = '';
        input.dispatchEvent(new Event('input', { bubbles: true }));
        clearTimeout(timer);
      }
    } else if (event.key === 'Tab') close();
  });
  // A click in the box opens what it found.
  input.addEventListener('click', () => {
    if (isOpen() || !typed()) return;
    if (resultsFor === searchText()) open();
    else void run();
  });
  input.addEventListener('blur', () => {
    close();
    if (chosen || !typed()) return;
    // Left with text that is not a choice: its exact match is, once the search answers.
    if (resultsFor === typed()) {
      const found = match(false);
      if (found) choose(found);
    } else void run();
  });

  return { element, input, value: () => hidden.value, text: typed, choose };
}
