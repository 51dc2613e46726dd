// @ts-check
// A picker of the company's active counterparties (archived ones take no lines): the register searched by name or
// by the start of a TIN or PINFL (GET /counterparties/…?q=), each shown by its name and number.
import { h } from '../dom.js';
import { api, company } from '../session.js';
import { combobox } from './combobox.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']['Counterparty']} Counterparty */

const OFFERED = 20;

/**
 * "TIN 301234567", "PINFL 41234567890123", or '' for a counterparty without either (a foreign one).
 * @param {Pick<Counterparty, 'tin' | 'pinfl'>} c
 */
export const identification = (c) => (c.tin ? `TIN ${c.tin}` : c.pinfl ? `PINFL ${c.pinfl}` : '');

/**
 * A counterparty as the picker offers it.
 * @param {Counterparty} c
 * @returns {import('./combobox.js').ComboOption}
 */
export const counterpartyOption = (c) => ({
  value: c.id,
  label: c.name,
  parts: [c.name, identification(c) ? h('span', { class: 'muted' }, ` · ${identification(c)}`) : ''],
  exact: [c.tin, c.pinfl].filter(/** @returns {x is string} */ (x) => Boolean(x)),
});

/**
 * @param {object} [options]
 * @param {string} [options.name] the field's name, counterpartyId by default
 * @param {string} [options.label] the accessible name
 * @param {(option: import('./combobox.js').ComboOption | null) => void} [options.onChange]
 */
export function counterpartyPicker({ name = 'counterpartyId', label = 'Counterparty', onChange } = {}) {
  return combobox({
    name,
    label,
    onChange,
    placeholder: 'Name, TIN or PINFL',
    empty: 'No active counterparty matches.',
    search: async (q) => {
      const query = new URLSearchParams({ size: String(OFFERED), ...(q ? { q } : {}) });
      const { data } = /** @type {import('../api.js').Reply<'listCounterparties'>} */ (await api('GET', `/api/v1/counterparties/${company()}?${query}`));
      return data.items.map(counterpartyOption);
    },
  });
}
