import Decimal from 'decimal.js';
import type { components } from '../../contracts/openapi';

// Accounts as the ledger reads them: the six types of the chart, the side each grows on, and a balance
// shown on that side. Every report, close and statement takes its signs from here.

export type AccountType = components['schemas']['AccountType'];

export const ACCOUNT_TYPES: AccountType[] = ['ASSET', 'CONTRA_ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE'];

/** Assets and expenses grow on the debit side; contra-assets, liabilities, equity and income on the credit side. */
export function normalSideOf(type: AccountType): 'DEBIT' | 'CREDIT' {
  return type === 'ASSET' || type === 'EXPENSE' ? 'DEBIT' : 'CREDIT';
}

/** The balance on the account's normal side: debits minus credits for debit-side accounts, else the reverse. */
export function normalBalance(type: AccountType | undefined, debit: bigint, credit: bigint): bigint {
  return type && normalSideOf(type) === 'CREDIT' ? credit - debit : debit - credit;
}

/** A foreign balance (debit positive, as stored) on the account's normal side. */
export function foreignBalance(type: AccountType | undefined, debitPositive: string): string {
  const value = new Decimal(debitPositive);
  return (type && normalSideOf(type) === 'CREDIT' ? value.negated() : value).toFixed();
}

/**
 * The settlement accounts, as code ranges (inclusive): receivables (NAS 21 4000–4890) and liabilities
 * (6000–6990), less the settlements with the budget (taxes, 6400–6499) and with employees (payroll,
 * 6700–6799). Codes are four digits, so their text compares as their number: the database reads the same
 * ranges (db/repositories/counterparties/reconciliation.ts).
 */
export const SETTLEMENT_RANGES: { included: ReadonlyArray<readonly [string, string]>; excluded: ReadonlyArray<readonly [string, string]> } = {
  included: [
    ['4000', '4890'],
    ['6000', '6990'],
  ],
  excluded: [
    ['6400', '6499'],
    ['6700', '6799'],
  ],
};

/**
 * A settlement account: one whose balance is owed by or to someone (SETTLEMENT_RANGES). Decided on the
 * four-digit code, so a company's custom account in the ranges is one.
 */
export function isSettlementAccount(code: string): boolean {
  if (!/^[0-9]{4}$/.test(code)) return false;
  const within = ([first, last]: readonly [string, string]) => code >= first && code <= last;
  return SETTLEMENT_RANGES.included.some(within) && !SETTLEMENT_RANGES.excluded.some(within);
}
