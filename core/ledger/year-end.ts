import { formatMinorUnits } from './money';
import { systemRequestId, type LedgerLine } from './journal';

// Year-end closing (NAS 21): at the close of the fiscal year's last day, the income and expense accounts
// (9000–9899) are closed into 9910 "Final financial result", and 9910 into 8710 "Retained earnings (uncovered
// loss) of the reporting period". The arithmetic alone; the close's step posts the entries.

export const INCOME_AND_EXPENSE_ACCOUNTS = { from: '9000', to: '9899' } as const;
export const FINAL_RESULT_ACCOUNT = '9910';
export const RETAINED_EARNINGS_ACCOUNT = '8710';

const uzsLine = (lineNo: number, accountCode: string, subaccountId: string | null, net: bigint, memo: string): LedgerLine => ({
  lineNo,
  accountCode,
  subaccountId,
  counterpartyId: null,
  debit: formatMinorUnits(net > 0n ? net : 0n),
  credit: formatMinorUnits(net < 0n ? -net : 0n),
  memo,
  currency: null,
  currencyAmount: null,
  rate: null,
  rateSource: null,
  rateDate: null,
});

/**
 * The lines that bring every income and expense account (and subaccount) with a balance to zero, against one
 * line on 9910 with the year's result (profit on the credit side, loss on the debit side). `balances` are
 * debit minus credit; none with a balance: no lines.
 */
export function closeIncomeAndExpenses(balances: ReadonlyArray<{ accountCode: string; subaccountId: string | null; net: bigint }>, year: string): LedgerLine[] {
  const open = balances.filter((b) => b.net !== 0n);
  if (open.length === 0) return [];
  const lines = open.map((b, i) => uzsLine(i + 1, b.accountCode, b.subaccountId, -b.net, `Closing of ${year}`));
  const result = open.reduce((sum, b) => sum + b.net, 0n);
  if (result !== 0n) lines.push(uzsLine(lines.length + 1, FINAL_RESULT_ACCOUNT, null, result, result < 0n ? `Profit of ${year}` : `Loss of ${year}`));
  return lines;
}

/** The lines that move 9910's balance (debit minus credit) into 8710; none when it is zero. */
export function transferResult(finalResult: bigint, year: string): LedgerLine[] {
  if (finalResult === 0n) return [];
  const memo = finalResult < 0n ? `Profit of ${year} to retained earnings` : `Loss of ${year} to retained earnings`;
  return [uzsLine(1, FINAL_RESULT_ACCOUNT, null, -finalResult, memo), uzsLine(2, RETAINED_EARNINGS_ACCOUNT, null, finalResult, memo)];
}

/** The requestIds of a company's two closing entries of a year: one each, whatever the retries. */
export function yearEndRequestId(legalEntityId: string, date: string, step: 'income-and-expenses' | 'result'): string {
  return systemRequestId(`year-end:${legalEntityId}:${date}:${step}`);
}
