import { accountInfo } from '../../db/repositories/ledger/journal';
import { balancesThrough, lastCompletedClose } from '../../db/repositories/ledger/period-closes';
import { formatMinorUnits, numericToMinorUnits } from '../../core/money';
import type { AccountType } from '../accounting/chart-of-accounts';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';
import { normalBalance } from './period-closes';

/** Trial balances, read from the last snapshot at or before the date plus the lines after it. */
export function createTrialBalances(companies: CompanyScopes) {
  /** The last completed snapshot at or before `asOf` plus the lines after it, per account. */
  async function getTrialBalance(principal: Principal, legalEntityId: string, asOf: string): Promise<Schemas['TrialBalance']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const base = await lastCompletedClose(tx, scope, { atOrBefore: asOf });
      const rows = await balancesThrough(tx, scope, base, asOf);
      const perAccount = new Map<string, { debit: bigint; credit: bigint }>();
      for (const r of rows) {
        const sum = perAccount.get(r.account_code) ?? { debit: 0n, credit: 0n };
        sum.debit += numericToMinorUnits(r.debit_total);
        sum.credit += numericToMinorUnits(r.credit_total);
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
        };
      });
      return {
        asOf,
        basedOnCloseId: base?.id ?? null,
        lines,
        totalDebit: formatMinorUnits(totalDebit),
        totalCredit: formatMinorUnits(totalCredit),
      };
    });
  }

  return { getTrialBalance };
}
