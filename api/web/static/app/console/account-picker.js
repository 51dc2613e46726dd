// @ts-check
// A picker of the company's accounts that lines can go to: the chart searched by code or name (GET …/accounts
// with `header=false`, so header accounts, which take no lines, are never offered), each shown by its code and
// name. A four-digit code typed without choosing stands as typed, for the API to check.
import { h } from '../dom.js';
import { api, company } from '../session.js';
import { combobox } from './combobox.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']['CompanyAccount']} CompanyAccount */

/** How many accounts the list offers at a time: a narrower search finds the rest. */
const OFFERED = 20;

/**
 * An account as the picker offers it.
 * @param {CompanyAccount} a
 * @returns {import('./combobox.js').ComboOption}
 */
export const accountOption = (a) => ({
  value: a.code,
  label: `${a.code} ${a.name}`,
  parts: [h('span', { class: 'option-code' }, a.code), ' ', a.name, a.enabled ? '' : h('span', { class: 'muted' }, ' (disabled)')],
  exact: [a.code],
});

/**
 * @param {object} [options]
 * @param {string} [options.name] the field's name, accountCode by default
 * @param {string} [options.label] the accessible name
 * @param {(option: import('./combobox.js').ComboOption | null) => void} [options.onChange]
 */
export function accountPicker({ name = 'accountCode', label = 'Account', onChange } = {}) {
  return combobox({
    name,
    label,
    onChange,
    placeholder: 'Code or name',
    empty: 'No account that takes lines matches.',
    typedValue: (text) => (/^[0-9]{4}$/.test(text) ? text : ''),
    search: async (q) => {
      const query = new URLSearchParams({ header: 'false', size: String(OFFERED), ...(q ? { q } : {}) });
      const { data } = /** @type {import('../api.js').Reply<'listCompanyAccounts'>} */ (await api('GET', `/api/v1/accounting-settings/${company()}/accounts?${query}`));
      // The API leaves headers out already; a chart answered otherwise must still never offer one.
      return data.items.filter((a) => !a.header).map(accountOption);
    },
  });
}
