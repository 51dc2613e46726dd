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
