// @ts-check
// The export buttons of the journal and the reports: the file the API answers for the view's current query,
// read with the session's token (a plain link could not carry it) and saved under the name the API gives it.
import { describe } from '../api.js';
import { h, showAlert } from '../dom.js';
import { download } from '../session.js';

/** @typedef {'csv' | 'xlsx' | 'hledger'} ExportFormat */

/**
 * Each format's button label and media type.
 * @type {Record<ExportFormat, [string, string]>}
 */
const FORMATS = {
  csv: ['CSV', 'text/csv'],
  xlsx: ['XLSX', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  hledger: ['hledger journal', 'text/plain'],
};

/**
 * A row of buttons, one per format ('csv', 'xlsx', 'hledger'); `pathOf()` is the export's path and query at the
 * moment of the click, so the file follows the form as it stands. A refused export shows as the page's alert.
 * @param {() => string} pathOf
 * @param {ExportFormat[]} [formats]
 */
export function downloadButtons(pathOf, formats = ['csv', 'xlsx']) {
  const buttons = formats.map((format) => {
    const [label, accept] = FORMATS[format];
    const button = h('button', { type: 'button', class: 'download', 'data-format': format }, `Download ${label}`);
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const { blob, filename } = await download(pathOf(), accept);
        save(blob, filename ?? `export.${format === 'hledger' ? 'journal' : format}`);
      } catch (err) {
        showAlert(describe(err));
      } finally {
        button.disabled = false;
      }
    });
    return button;
  });
  return h('div', { class: 'downloads' }, buttons);
}

/**
 * Saves the blob through a link with `download`, its object URL let go once the browser has taken the file.
 * @param {Blob} blob
 * @param {string} filename
 */
function save(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
