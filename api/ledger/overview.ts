import Decimal from 'decimal.js';
import { balancesStatement, latestCloseStatement, type BalanceRow } from '../../db/repositories/ledger/period-closes';
import {
  dailyMoneyStatement,
  invoiceVatStatement,
  monthlyResultsStatement,
  waitingStatement,
  type MonthResultRow,
  type WaitingRow,
} from '../../db/repositories/ledger/overview';
import { agingTotalsStatement, type AgingTotalsRow } from '../../db/repositories/payments/aging';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../core/invoices/invoices';
import { currencyDecimals, formatForeignAmount, FUNCTIONAL_CURRENCY } from '../../core/ledger/currency';
import { formatMinorUnits, formatUnits, numericToMinorUnits, numericToUnits } from '../../core/ledger/money';
import { addMonths, monthOf } from '../../core/fixed-assets/depreciation';
import { dayBefore, FIRST_DATE } from '../../core/shared/calendar';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';

type Overview = Schemas['CompanyOverview'];
type Settlement = Schemas['OverviewSettlement'];

/** The cash, bank and foreign-currency accounts (5000–5299): the money the company holds. */
const MONEY_ACCOUNTS = { from: '5000', to: '5299' };

/** How many days the cash curve covers, asOf's the last. */
const CASH_DAYS = 90;

const BUCKETS = [
  ['notDue', 'not_due'],
  ['days1to30', 'days_1_to_30'],
  ['days31to60', 'days_31_to_60'],
  ['days61to90', 'days_61_to_90'],
  ['over90', 'over_90'],
  ['outstanding', 'outstanding'],
  ['advances', 'advances'],
] as const;

/** The aging's totals per currency, each amount in its currency's decimals as the aging writes its totals. */
function settlementTotals(rows: AgingTotalsRow[]): Settlement[] {
  const sums = new Map<string, bigint[]>();
  for (const row of rows) {
    const places = currencyDecimals(row.currency);
    const sum = sums.get(row.currency) ?? BUCKETS.map(() => 0n);
    BUCKETS.forEach(([, column], i) => (sum[i]! += numericToUnits(row[column], places)));
    sums.set(row.currency, sum);
  }
  return [...sums]
    .sort(([a], [b]) => (a === FUNCTIONAL_CURRENCY ? -1 : b === FUNCTIONAL_CURRENCY ? 1 : a.localeCompare(b)))
    .map(([currency, sum]) => {
      const places = currencyDecimals(currency);
      const amounts = Object.fromEntries(BUCKETS.map(([field], i) => [field, formatUnits(sum[i]!, places)])) as Record<(typeof BUCKETS)[number][0], string>;
      // Past the due date: every bucket after "not due".
      const overdue = sum[1]! + sum[2]! + sum[3]! + sum[4]!;
      return { currency, ...amounts, overdue: formatUnits(overdue, places) };
    });
}

/** The company at a glance: figures of the trial balance, the aging and the turnovers, and what waits. */
export function createOverview(companies: CompanyScopes) {
  async function getCompanyOverview(principal: Principal, legalEntityId: string, asOf: string): Promise<Overview> {
    const accounts = DEFAULT_DOCUMENT_ACCOUNTS;
    const lastMonth = monthOf(asOf);
    const firstMonth = addMonths(lastMonth, -11);
    // asOf and the days before it, latest first (never before the calendar's first day).
    const days: string[] = [];
    for (let day = asOf; days.length < CASH_DAYS && day >= FIRST_DATE; day = dayBefore(day)) days.push(day);
    const side = (kind: 'SALES' | 'PURCHASE') =>
      kind === 'SALES'
        ? { asOf, kind, direction: 'IN' as const, settlementAccount: accounts.receivable, advanceAccount: accounts.advancesReceived, settlementSign: 1 as const }
        : { asOf, kind, direction: 'OUT' as const, settlementAccount: accounts.payable, advanceAccount: accounts.advancesPaid, settlementSign: -1 as const };
    // One round trip, one snapshot: every statement reads the same committed state.
    const [closes, balances, receivable, payable, monthRows, waitingRows, vatRows, dailyRows] = await companies.readBatch(principal, legalEntityId, (scope) => [
      latestCloseStatement(scope, asOf),
      balancesStatement(scope, 'latest', asOf, { accountRange: MONEY_ACCOUNTS }),
      agingTotalsStatement(scope, side('SALES')),
      agingTotalsStatement(scope, side('PURCHASE')),
      monthlyResultsStatement(scope, { from: `${firstMonth}-01`, to: asOf }),
      waitingStatement(scope),
      invoiceVatStatement(scope, { from: `${lastMonth}-01`, to: asOf, outputVat: accounts.outputVat, inputVat: accounts.inputVat }),
      dailyMoneyStatement(scope, { from: days.at(-1)!, to: asOf }),
    ]);
    const base = (closes as Array<{ id: string; close_date: string }>)[0];
    const rows = balances as unknown as BalanceRow[];
    const results = new Map((monthRows as unknown as MonthResultRow[]).map((r) => [r.month, r]));
    const waiting = (waitingRows as unknown as WaitingRow[])[0]!;
    const vat = (vatRows as Array<{ output: string; input: string }>)[0]!;
    const daily = new Map((dailyRows as Array<{ day: string; net: string }>).map((d) => [d.day, numericToMinorUnits(d.net)]));
    const output = numericToMinorUnits(vat.output);
    const input = numericToMinorUnits(vat.input);

    // Money per currency: UZS lines as they are, foreign lines in their currency with their carrying amount.
    const money = new Map<string, { balance: Decimal; carrying: bigint }>();
    for (const r of rows) {
      const currency = r.currency ?? FUNCTIONAL_CURRENCY;
      const sum = money.get(currency) ?? { balance: new Decimal(0), carrying: 0n };
      const carrying = numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total);
      sum.carrying += carrying;
      sum.balance = sum.balance.plus(r.currency === null ? new Decimal(formatMinorUnits(carrying)) : new Decimal(r.currency_balance ?? '0'));
      money.set(currency, sum);
    }

    // The money accounts' UZS balance at the end of each of the last CASH_DAYS days: back from asOf's, each
    // day's the next day's less that day's net turnover.
    let closing = [...money.values()].reduce((sum, m) => sum + m.carrying, 0n);
    const cash = days.map((date) => {
      const point = { date, balance: formatMinorUnits(closing) };
      closing -= daily.get(date) ?? 0n;
      return point;
    });
    cash.reverse();

    const months = Array.from({ length: 12 }, (_, i) => addMonths(firstMonth, i)).map((month) => {
      const r = results.get(month);
      const revenue = r ? numericToMinorUnits(r.revenue) : 0n;
      const expenses = r ? numericToMinorUnits(r.expenses) : 0n;
      return { month, revenue: formatMinorUnits(revenue), expenses: formatMinorUnits(expenses), result: formatMinorUnits(revenue - expenses) };
    });

    return {
      asOf,
      money: [...money]
        .sort(([a], [b]) => (a === FUNCTIONAL_CURRENCY ? -1 : b === FUNCTIONAL_CURRENCY ? 1 : a.localeCompare(b)))
        .map(([currency, m]) => ({
          currency,
          balance: currency === FUNCTIONAL_CURRENCY ? formatMinorUnits(m.carrying) : formatForeignAmount(m.balance.toFixed(), currency),
          carryingAmount: formatMinorUnits(m.carrying),
        })),
      receivables: settlementTotals(receivable as unknown as AgingTotalsRow[]),
      payables: settlementTotals(payable as unknown as AgingTotalsRow[]),
      months,
      cash,
      vat: { month: lastMonth, output: formatMinorUnits(output), input: formatMinorUnits(input), due: formatMinorUnits(output - input) },
      lastClose: base ? { id: base.id, closeDate: base.close_date } : null,
      latestRateDate: waiting.latest_rate_date,
      waiting: {
        draftInvoices: Number(waiting.draft_invoices),
        overdueInvoices: [...(receivable as unknown as AgingTotalsRow[]), ...(payable as unknown as AgingTotalsRow[])].reduce((n, r) => n + Number(r.overdue_invoices), 0),
        unmatchedBankLines: Number(waiting.unmatched_bank_lines),
        failedWebhookDeliveries: Number(waiting.failed_webhook_deliveries),
      },
    };
  }

  return { getCompanyOverview };
}
