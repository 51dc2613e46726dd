import Decimal from 'decimal.js';
import { accountInfo } from '../../db/repositories/ledger/journal';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { formatForeignAmount } from '../../core/ledger/currency';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';
import { foreignBalance, normalBalance, type AccountType } from '../../core/ledger/accounts';
import { cumulativeThrough } from '../../db/repositories/ledger/period-closes';

/** Trial balances, read from the last snapshot at or before the date plus the day totals of the lines after it. */
export function createTrialBalances(companies: CompanyScopes) {
  /**
   * The last completed snapshot at or before `asOf` plus the day totals after it, per account (UZS), with each
   * account's foreign balances and their carrying amounts; only the lines in `currency` when one is asked for.
   */
  async function getTrialBalance(principal: Principal, legalEntityId: string, asOf: string, currency?: string): Promise<Schemas['TrialBalance']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const { base, rows } = await cumulativeThrough(tx, scope, asOf, { currency });
      const perAccount = new Map<string, { debit: bigint; credit: bigint; currencies: Map<string, { debit: bigint; credit: bigint; balance: string }> }>();
      for (const r of rows) {
        const sum = perAccount.get(r.account_code) ?? { debit: 0n, credit: 0n, currencies: new Map() };
        const debit = numericToMinorUnits(r.debit_total);
        const credit = numericToMinorUnits(r.credit_total);
        sum.debit += debit;
        sum.credit += credit;
        if (r.currency !== null) {
          // Subaccounts of one account in one currency add up to the account's.
          const prior = sum.currencies.get(r.currency);
          sum.currencies.set(r.currency, {
            debit: (prior?.debit ?? 0n) + debit,
            credit: (prior?.credit ?? 0n) + credit,
            balance: prior ? new Decimal(prior.balance).plus(r.currency_balance!).toFixed() : r.currency_balance!,
          });
        }
        perAccount.set(r.account_code, sum);
      }
      const info = await accountInfo(tx, scope, [...perAccount.keys()]);
      let totalDebit = 0n;
      let totalCredit = 0n;
      const lines = [...perAccount.entries()].map(([code, sum]) => {
        totalDebit += sum.debit;
        totalCredit += sum.credit;
        const account = info.get(code);
        const type = account?.type as AccountType | undefined;
        return {
          code,
          name: account?.name ?? '',
          type: type ?? 'ASSET',
          debit: formatMinorUnits(sum.debit),
          credit: formatMinorUnits(sum.credit),
          balance: formatMinorUnits(normalBalance(type, sum.debit, sum.credit)),
          currencies: [...sum.currencies.entries()].map(([code, c]) => ({
            currency: code,
            balance: formatForeignAmount(foreignBalance(type, c.balance), code),
            carryingAmount: formatMinorUnits(normalBalance(type, c.debit, c.credit)),
          })),
        };
      });
      return {
        asOf,
        currency: currency ?? null,
        basedOnCloseId: base?.id ?? null,
        lines,
        totalDebit: formatMinorUnits(totalDebit),
        totalCredit: formatMinorUnits(totalCredit),
      };
    });
  }

  return { getTrialBalance };
}
