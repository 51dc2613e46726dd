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

/** The money accounts a payment goes through (its `cashAccount`): cash 50xx, settlement (bank) 51xx, foreign currency 52xx. */
export const MONEY_ACCOUNT = /^5[0-2][0-9]{2}$/;

/**
 * A picker of the company's money accounts (50xx–52xx, headers left out): read once for the picker, in code order,
 * and searched by code or name as typed. The chart's search matches anywhere in a code or a name, so each range
 * is read by its first two digits and what else matches is dropped.
 * @param {object} [options]
 * @param {string} [options.name] the field's name, cashAccount by default
 * @param {string} [options.label] the accessible name
 * @param {string[]} [options.ranges] the ranges offered by their first two digits: all three unless said (a bank
 *   account's GL account is in 51xx–52xx)
 * @param {(option: import('./combobox.js').ComboOption | null) => void} [options.onChange]
 */
export function moneyAccountPicker({ name = 'cashAccount', label = 'Money account', ranges = ['50', '51', '52'], onChange } = {}) {
  /** @type {Promise<CompanyAccount[]> | null} */
  let read = null;
  const moneyAccounts = () => (read ??= Promise.all(ranges.map(async (q) => {
    const query = new URLSearchParams({ header: 'false', size: '100', q });
    const { data } = /** @type {import('../api.js').Reply<'listCompanyAccounts'>} */ (await api('GET', `/api/v1/accounting-settings/${company()}/accounts?${query}`));
    return data.items.filter((a) => !a.header && MONEY_ACCOUNT.test(a.code) && a.code.startsWith(q));
  })).then((ranges) => ranges.flat()).catch((err) => {
    // A failed read is tried again by the next search.
    read = null;
    throw err;
  }));
  const picker = combobox({
    name,
    label,
    onChange,
    placeholder: 'Code or name',
    empty: `No money account (${ranges[0]}xx–${ranges[ranges.length - 1]}xx) matches.`,
    typedValue: (text) => (MONEY_ACCOUNT.test(text) ? text : ''),
    search: async (q) => {
      const text = q.toLowerCase();
      return (await moneyAccounts()).filter((a) => !text || a.code.includes(text) || a.name.toLowerCase().includes(text)).slice(0, OFFERED).map(accountOption);
    },
  });
  /**
   * Chooses the account of `code` if the chart has it and nothing else is chosen yet.
   * @param {string} code
   */
  const prefer = async (code) => {
    const account = (await moneyAccounts().catch(() => [])).find((a) => a.code === code);
    if (account && !picker.value() && !picker.text()) picker.choose(accountOption(account));
  };
  return { ...picker, prefer };
}
