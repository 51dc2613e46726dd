// @ts-check
// Links from a document's card (an invoice, a payment) to the journal entries it wrote: each opens the entry in
// place of the card, and the entry's way back draws the card again, read anew. Each entry's number is read once
// for its link ("Entry 12"); a caller who may not read entries sees where they are instead.
import { h } from '../dom.js';
import { api, can, company } from '../session.js';
import { failed } from './common.js';
import { showEntry } from './journal.js';

/**
 * The number of a journal entry, or null when it cannot be read.
 * @param {string} id
 */
async function entryNumber(id) {
  try {
    const { data } = /** @type {import('../api.js').Reply<'getJournalEntry'>} */ (await api('GET', `/api/v1/ledger/${company()}/entries/${id}`));
    return data.number;
  } catch {
    return null;
  }
}

/**
 * What makes the links to `entryIds` (their numbers read first, at once) on a card drawn in `body`.
 * @param {HTMLElement} body
 * @param {string[]} entryIds
 * @param {() => void} again draws the card again, the entry's way back
 * @param {string} backLabel the words of that way back ("← Back to the invoice")
 * @returns {Promise<(entryId: string, id?: string) => HTMLElement>} a link to one of them, with the element id given
 */
export async function entryLinks(body, entryIds, again, backLabel) {
  const withEntries = can('getJournalEntry');
  /** @type {Map<string, number | null>} */
  const numbers = new Map(withEntries ? await Promise.all([...new Set(entryIds)].map(async (entryId) => /** @type {[string, number | null]} */ ([entryId, await entryNumber(entryId)]))) : []);
  return (entryId, id) => {
    if (!withEntries) return h('span', { class: 'muted', id }, 'in the journal');
    const number = numbers.get(entryId) ?? null;
    return h('button', { type: 'button', class: 'link', id, 'data-entry': entryId, onclick: () => showEntry(body, entryId, again, backLabel).catch((err) => failed(body, err)) },
      number === null ? 'Open the journal entry' : `Entry ${number}`);
  };
}
