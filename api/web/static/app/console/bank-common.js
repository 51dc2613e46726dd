// @ts-check
// What the bank section's modules share: the API's paths, how a statement line's status reads, and the API's
// refusals of a match or an unmatch as sentences.
import { ProblemError, describe } from '../api.js';
import { h } from '../dom.js';
import { formatAmount } from '../money.js';
import { company } from '../session.js';
import { problemType } from './common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['BankAccount']} BankAccount */
/** @typedef {Schemas['BankLine']} BankLine */
/** @typedef {Schemas['BankStatementImport']} StatementImport */
/** @typedef {BankLine['status']} LineStatus */

/**
 * The bank accounts' API: the register, one account, or what is under it (statements, lines, a line's match).
 * @param {string} [accountId]
 * @param {...string} rest the path under the account: 'lines', lineId, 'match'
 */
export const bankPath = (accountId, ...rest) => `/api/v1/bank-accounts/${company()}${accountId ? `/${accountId}` : ''}${rest.map((part) => `/${part}`).join('')}`;

/** @type {Record<LineStatus, string>} */
export const LINE_STATUS_LABEL = { UNMATCHED: 'Unmatched', PROPOSED: 'Proposed', MATCHED: 'Matched' };

/**
 * A line's status as a badge (style.css: unmatched amber, proposed blue, matched green), the API's value in
 * data-status.
 * @param {LineStatus} status
 */
export const lineBadge = (status) => h('span', { class: `badge badge-${status.toLowerCase()}`, 'data-status': status }, LINE_STATUS_LABEL[status] ?? status);

/**
 * "MFO 00014 · 20208000900123456001 · UZS on 5110"
 * @param {BankAccount} a
 */
export const accountText = (a) => `MFO ${a.bankCode} · ${a.accountNumber} · ${a.currency} on ${a.accountCode}`;

/**
 * "received 4 500 000.00 UZS on 2026-11-03"
 * @param {BankLine} l
 */
export const lineText = (l) => `${l.direction === 'IN' ? 'received' : 'paid'} ${formatAmount(l.amount)} ${l.currency} on ${l.date}`;

/**
 * A refusal of a line's match or unmatch as a sentence: the 409s named by what to do about them, a 403 by what was
 * not allowed; the rest as the API words it.
 * @param {unknown} err
 * @param {'confirm' | 'match' | 'unmatch'} doing
 */
export function lineProblem(err, doing) {
  if (!(err instanceof ProblemError)) return describe(err);
  const p = err.problem;
  const done = { confirm: 'confirmed', match: 'matched', unmatch: 'unmatched' }[doing];
  switch (problemType(err)) {
    case 'bank-line-matched':
      return `Not ${done}: the line is matched already, by someone else meanwhile. The lines are read again: unmatch it first to match it otherwise.`;
    case 'bank-line-not-matched':
      return 'Not unmatched: the line is not matched, unmatched by someone else meanwhile. The lines are read again.';
    case 'bank-line-no-proposal':
      return 'Not confirmed: the line has nothing proposed. Choose its invoices, or take it as an advance.';
    case 'period-closed': {
      const through = typeof p.closedThrough === 'string' ? ` through ${p.closedThrough}` : '';
      return doing === 'unmatch'
        ? `Not unmatched: the ledger is closed${through}, and cancelling the line's payment would change a closed period.`
        : `Not ${done}: the ledger is closed${through}, and the payment would be dated the line's day.`;
    }
    case 'allocation-exceeds-outstanding':
      return `Not ${done}: ${p.detail ?? 'an allocation is more than its invoice has outstanding'}. The invoices are read again: allocate at most what each has outstanding now.`;
    case 'allocation-exceeds-payment':
      return `Not ${done}: the allocations add up to more than the line's amount.`;
    default:
      if (err.status === 403) return `You may not ${doing === 'unmatch' ? 'unmatch' : 'match'} bank lines: ${describe(err)}`;
      return describe(err);
  }
}
