// @ts-check
// A bank account's statement imported from a file: the file's bytes sent as they are (`.xml` as application/xml
// for camt.053, `.csv` and `.xlsx` as their types with the column profile chosen for them, anything else as
// text/plain for the 1C exchange text and MT940), the import read again every second while it runs, and its
// outcome in words: what the file held and its counts, or why it was refused (the difference of a statement that
// does not add up, the line of a file that cannot be read).
import { describe } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { formatAmount, groupDigits } from '../money.js';
import { api, can, company, upload } from '../session.js';
import { bankPath } from './bank-common.js';

/** @typedef {import('./bank-common.js').BankAccount} BankAccount */
/** @typedef {import('./bank-common.js').StatementImport} StatementImport */

/** The most the API takes, checked before a byte is sent (413 otherwise). */
const MAX_BYTES = 20 * 1024 * 1024;
const POLL_MS = 1000;

/** @type {Record<NonNullable<StatementImport['format']>, string>} */
const FORMAT_LABEL = { '1c': '1C client-bank exchange', 'camt.053': 'camt.053 (ISO 20022)', mt940: 'MT940', csv: 'CSV', xlsx: 'XLSX' };

/** @type {Record<StatementImport['status'], string>} */
const STATUS_LABEL = { RUNNING: 'Reading', COMPLETED: 'Imported', FAILED: 'Refused' };

/** @type {[keyof StatementImport['counts'], string][]} */
const COUNTS = [['read', 'Read'], ['new', 'New'], ['duplicate', 'Already here'], ['proposed', 'Proposed'], ['matched', 'Matched'], ['unmatched', 'Unmatched']];

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * The content type a file is sent as, from its name: camt.053 is XML, a spreadsheet export CSV or XLSX (read with
 * a column profile), the 1C text and MT940 are text.
 * @param {File} file
 */
export const statementType = (file) => {
  if (/\.xml$/i.test(file.name)) return 'application/xml';
  if (/\.csv$/i.test(file.name)) return 'text/csv';
  if (/\.xlsx$/i.test(file.name)) return XLSX_TYPE;
  return 'text/plain';
};

/**
 * A spreadsheet export, which the API reads only with a saved column profile.
 * @param {File | undefined} file
 */
const needsProfile = (file) => Boolean(file) && /\.(csv|xlsx)$/i.test(/** @type {File} */ (file).name);

/**
 * What a refused file's problem says, in words: its title and detail, the difference of a statement that does not
 * add up, the line where reading stopped.
 * @param {NonNullable<StatementImport['problem']>} problem
 * @param {string} currency
 */
function problemWords(problem, currency) {
  // The API's amounts in its words grouped as the console shows amounts ("4540999.50" → "4 540 999.50").
  const detail = problem.detail.replace(/\.$/, '').replace(/-?[0-9]+\.[0-9]{2}\b/g, (amount) => groupDigits(amount));
  /** @type {(Node | string)[]} */
  const words = [h('strong', {}, `${problem.title}.`), ` ${detail.charAt(0).toUpperCase()}${detail.slice(1)}.`];
  if (problem.type === 'statement-unbalanced' && problem.difference) {
    const over = !problem.difference.startsWith('-');
    const amount = formatAmount(problem.difference.replace(/^-/, ''));
    words.push(h('p', { id: 'bank-import-difference', 'data-difference': problem.difference },
      `Out by ${amount} ${currency}: the opening balance plus the lines comes to ${amount} ${over ? 'more' : 'less'} than the closing balance the bank states.`));
  }
  if (problem.type === 'statement-unreadable' && problem.line) words.push(h('p', {}, `Reading stopped at line ${problem.line} of the file.`));
  words.push(h('p', { class: 'hint' }, 'No line of this file was stored. Ask the bank for the statement again, or import the corrected file.'));
  return words;
}

/**
 * The import form of `account` and the outcome of its last import; `settled` is told each import that leaves
 * RUNNING (the lines it stored are there to read). `resume` goes on reading an import still running once the
 * outcome is on the page again (a card drawn in the account's place meanwhile stopped it).
 * @param {BankAccount} account
 * @param {(imp: StatementImport) => void} settled
 */
export function statementImport(account, settled) {
  const file = h('input', { type: 'file', name: 'statement', id: 'bank-statement-file', accept: `.txt,.xml,.sta,.940,.csv,.xlsx,text/plain,application/xml,text/csv,${XLSX_TYPE}` });
  // The column profile a CSV or XLSX export is read with: shown, and required, once such a file is chosen.
  const profile = h('select', { name: 'profileId', id: 'bank-statement-profile' }, h('option', { value: '' }, 'Choose…'));
  const profileError = h('span', { class: 'field-error', id: 'bank-statement-profile-error', hidden: true });
  const profileNote = h('span', { class: 'hint', id: 'bank-statement-profile-hint' }, 'How the bank’s spreadsheet is laid out; profiles are saved through the API (bank-statement-profiles).');
  profile.setAttribute('aria-describedby', `${profileNote.id} ${profileError.id}`);
  const profileField = h('div', { class: 'field', id: 'bank-statement-profile-field', hidden: true }, h('label', {}, 'Column profile', profile), profileNote, profileError);
  /** The company's profiles, read once a spreadsheet is first chosen. @type {Promise<void> | null} */
  let profiles = null;
  const readProfiles = () => {
    profiles ??= (async () => {
      if (!can('listBankStatementProfiles')) {
        profileNote.textContent = 'You may not read the company’s column profiles, so a CSV or XLSX export cannot be imported here.';
        return;
      }
      try {
        const { data } = /** @type {import('../api.js').Reply<'listBankStatementProfiles'>} */ (await api('GET', `/api/v1/bank-statement-profiles/${company()}?size=100`));
        profile.replaceChildren(h('option', { value: '' }, data.items.length ? 'Choose…' : 'None saved yet'), ...data.items.map((p) => h('option', { value: p.id, selected: data.items.length === 1 }, p.name)));
        if (!data.items.length) profileNote.textContent = 'The company has no column profile yet: save one through the API (POST /api/v1/bank-statement-profiles) to import CSV or XLSX exports.';
      } catch (err) {
        profiles = null;
        profileNote.textContent = `The column profiles could not be read: ${describe(err)}`;
      }
    })();
    return profiles;
  };
  const fileError = h('span', { class: 'field-error', id: 'bank-statement-file-error', hidden: true });
  file.setAttribute('aria-describedby', `bank-statement-hint ${fileError.id}`);
  const outcome = h('div', { id: 'bank-import', 'aria-live': 'polite' });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let poller;
  /** The import followed and how it is drawn, while it runs. @type {[StatementImport, string, boolean] | null} */
  let running = null;

  /**
   * @param {StatementImport} imp
   * @param {string} name the file's name
   * @param {boolean} before the same file was imported into this account before (200)
   */
  const draw = (imp, name, before) => {
    const facts = [
      imp.format ? FORMAT_LABEL[imp.format] ?? imp.format : '',
      imp.periodFrom && imp.periodTo ? (imp.periodFrom === imp.periodTo ? imp.periodFrom : `${imp.periodFrom} to ${imp.periodTo}`) : '',
      imp.statementCount && imp.statementCount > 1 ? `${imp.statementCount} statements` : '',
    ].filter(Boolean).join(' · ');
    /** @type {(Node | string)[]} */
    const parts = [
      h('p', { class: 'import-title' }, h('span', { class: `badge badge-import-${imp.status.toLowerCase()}`, id: 'bank-import-status', 'data-status': imp.status }, STATUS_LABEL[imp.status]), ' ',
        h('strong', {}, name), facts ? h('span', { class: 'muted' }, ` · ${facts}`) : ''),
    ];
    if (before) parts.push(h('p', { class: 'hint' }, `This file was imported into this account on ${new Date(imp.createdAt).toLocaleString()}; this is that import. A corrected file is a new one.`));
    if (imp.status === 'RUNNING') parts.push(h('p', { class: 'muted' }, 'Reading the statement and proposing the invoices its lines pay…'));
    if (imp.status === 'COMPLETED') {
      parts.push(h('dl', { class: 'import-counts', id: 'bank-import-counts' }, COUNTS.map(([key, label]) =>
        h('div', { 'data-count': key }, h('dt', {}, label), h('dd', {}, String(imp.counts[key]))))));
      if (imp.openingBalance !== null && imp.closingBalance !== null) {
        parts.push(h('p', { class: 'muted' }, `Opening balance ${formatAmount(imp.openingBalance)} ${account.currency} · closing balance ${formatAmount(imp.closingBalance)} ${account.currency}`));
      }
    }
    if (imp.status === 'FAILED' && imp.problem) parts.push(h('div', { class: 'import-problem', id: 'bank-import-problem', 'data-type': imp.problem.type }, problemWords(imp.problem, account.currency)));
    outcome.className = `import-outcome ${imp.status.toLowerCase()}`;
    outcome.replaceChildren(...parts);
  };

  /**
   * Reads the import until it leaves RUNNING, while its outcome is on the page (an account left stops it).
   * @param {StatementImport} imp
   * @param {string} name
   * @param {boolean} before
   */
  const follow = (imp, name, before) => {
    clearTimeout(poller);
    draw(imp, name, before);
    running = imp.status === 'RUNNING' ? [imp, name, before] : null;
    if (!running) return settled(imp);
    poller = setTimeout(async () => {
      if (!outcome.isConnected) return;
      try {
        const { data } = /** @type {import('../api.js').Reply<'getBankStatementImport'>} */ (await api('GET', bankPath(account.id, 'statements', imp.id)));
        follow(data, name, before);
      } catch (err) {
        outcome.replaceChildren(h('p', { class: 'alert error', role: 'alert' }, `The import could not be read: ${describe(err)}`));
      }
    }, POLL_MS);
  };

  const form = h('form', { id: 'bank-import-form', class: 'inline import-form', novalidate: true },
    h('div', { class: 'field' }, h('label', {}, 'Statement file', file),
      h('span', { class: 'hint', id: 'bank-statement-hint' }, '1C client-bank exchange text or MT940 (.txt), camt.053 (.xml), a CSV or XLSX export; at most 20 MiB.'), fileError),
    profileField,
    h('button', { type: 'submit' }, 'Import the statement'));
  const clearProfileError = () => {
    profile.removeAttribute('aria-invalid');
    profileError.hidden = true;
  };
  file.addEventListener('change', () => {
    file.removeAttribute('aria-invalid');
    fileError.hidden = true;
    clearProfileError();
    profileField.hidden = !needsProfile(file.files?.[0]);
    if (!profileField.hidden) void readProfiles();
  });
  profile.addEventListener('change', clearProfileError);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const chosen = file.files?.[0];
    /** @param {string} message */
    const refuse = (message) => {
      file.setAttribute('aria-invalid', 'true');
      fileError.textContent = message;
      fileError.hidden = false;
      file.focus();
    };
    if (!chosen) return refuse('Choose the statement file the bank gave you.');
    if (chosen.size === 0) return refuse(`${chosen.name} is empty.`);
    if (chosen.size > MAX_BYTES) return refuse(`${chosen.name} is more than 20 MiB: ask the bank for the statement of a shorter period.`);
    const profileId = needsProfile(chosen) ? /** @type {HTMLSelectElement} */ (profile).value : '';
    if (needsProfile(chosen) && !profileId) {
      profile.setAttribute('aria-invalid', 'true');
      profileError.textContent = `Choose the column profile ${chosen.name} is read with.`;
      profileError.hidden = false;
      return profile.focus();
    }
    void busy(form, async () => {
      try {
        const path = `${bankPath(account.id, 'statements')}${profileId ? `?${new URLSearchParams({ profileId })}` : ''}`;
        const answer = /** @type {import('../api.js').Reply<'importBankStatement'>} */ (await upload(path, { bytes: chosen, type: statementType(chosen) }));
        form.reset();
        profileField.hidden = true;
        follow(answer.data, chosen.name, answer.status === 200);
      } catch (err) {
        showAlert(`${chosen.name} was not imported: ${describe(err)}`);
      }
    });
  });
  const resume = () => {
    if (running && outcome.isConnected) follow(...running);
  };
  return { element: h('div', { class: 'statement-import' }, form, outcome), resume };
}
