import Decimal from 'decimal.js';
import { accountInfo } from '../../db/repositories/ledger/journal';
import { cumulativeThrough, type BalanceRow } from '../../db/repositories/ledger/period-closes';
import { findSubaccount } from '../../db/repositories/accounting/subaccounts';
import { statementPage, statementTotals, turnoversBetween, type StatementLineData } from '../../db/repositories/ledger/reports';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { dayBefore, daysBetween } from '../../core/shared/calendar';
import { AppError } from '../../core/shared/problems';
import { formatForeignAmount } from '../../core/ledger/currency';
import { normalBalance, normalSideOf, type AccountType } from '../../core/ledger/accounts';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';

type TurnoverSheet = Schemas['TurnoverSheet'];
type TurnoverRow = Schemas['TurnoverRow'];

/** The longest range a report covers: a year, leap day included. */
const MAX_DAYS = 366;

function checkRange(from: string, to: string): void {
  const days = daysBetween(from, to);
  if (days < 1) throw new AppError('validation', '`to` is before `from`', { errors: [{ path: '/query/to', message: 'must be on or after from' }] });
  if (days > MAX_DAYS) throw new AppError('validation', `A report covers at most ${MAX_DAYS} days`, { errors: [{ path: '/query/to', message: `must be within ${MAX_DAYS} days of from` }] });
}

interface Sums {
  opening: bigint;
  debit: bigint;
  credit: bigint;
  foreignOpening: Decimal;
  foreignDebit: Decimal;
  foreignCredit: Decimal;
}

const zero = (): Sums => ({ opening: 0n, debit: 0n, credit: 0n, foreignOpening: new Decimal(0), foreignDebit: new Decimal(0), foreignCredit: new Decimal(0) });
const side = (net: bigint) => ({ debit: formatMinorUnits(net > 0n ? net : 0n), credit: formatMinorUnits(net < 0n ? -net : 0n) });

/** Turnover sheets and account statements, read from the last snapshot plus the lines after it. */
/**
 * A statement line as the API shows it (a page and an export alike); `balance` and `currencyBalance` are its
 * running balances, already on the account's normal side; `currency` the statement's foreign currency, if any.
 */
export function toStatementLine(l: StatementLineData, balance: string, currencyBalance: string | null, currency: string | null): Schemas['AccountStatementLine'] {
  return {
    entryId: l.entry_id,
    entryNumber: Number(l.number),
    entryDate: l.entry_date,
    description: l.description,
    lineNo: l.line_no,
    memo: l.memo,
    subaccountId: l.subaccount_id,
    counterAccounts: l.counter_accounts ?? [],
    debit: formatMinorUnits(numericToMinorUnits(l.debit)),
    credit: formatMinorUnits(numericToMinorUnits(l.credit)),
    balance,
    currencyAmount: currency && l.currency_amount !== null ? formatForeignAmount(l.currency_amount, currency) : null,
    currencyBalance,
  };
}

export function createReports(companies: CompanyScopes) {
  async function getTurnoverSheet(
    principal: Principal,
    legalEntityId: string,
    query: { from: string; to: string; detail: 'ACCOUNT' | 'SUBACCOUNT'; currency?: string },
  ): Promise<TurnoverSheet> {
    checkRange(query.from, query.to);
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const { base, rows: opening } = await cumulativeThrough(tx, scope, dayBefore(query.from), { currency: query.currency });
      // The UZS turnovers are the cumulative totals at `to` less those before `from`: two snapshot reads (plus
      // the lines since each snapshot), not a pass over the range's lines. The foreign debit and credit
      // turnovers are not in the snapshots (they keep the net foreign balance): a foreign currency's sheet
      // sums its lines of the range for them.
      const { rows: closing } = await cumulativeThrough(tx, scope, query.to, { currency: query.currency });
      const foreignTurnovers = query.currency !== undefined && query.currency !== 'UZS' ? await turnoversBetween(tx, scope, query) : [];
      const bySubaccount = query.detail === 'SUBACCOUNT';
      const keyOf = (r: { account_code: string; subaccount_id: string | null }) => (bySubaccount ? `${r.account_code}/${r.subaccount_id ?? ''}` : r.account_code);
      const sums = new Map<string, Sums & { accountCode: string; subaccountId: string | null }>();
      const entry = (r: { account_code: string; subaccount_id: string | null }) => {
        const key = keyOf(r);
        let s = sums.get(key);
        if (!s) sums.set(key, (s = { ...zero(), accountCode: r.account_code, subaccountId: bySubaccount ? r.subaccount_id : null }));
        return s;
      };
      for (const r of opening as BalanceRow[]) {
        const s = entry(r);
        s.opening += numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total);
        if (r.currency_balance !== null) s.foreignOpening = s.foreignOpening.plus(r.currency_balance);
      }
      for (const r of opening as BalanceRow[]) {
        const s = entry(r);
        s.debit -= numericToMinorUnits(r.debit_total);
        s.credit -= numericToMinorUnits(r.credit_total);
      }
      for (const r of closing) {
        const s = entry(r);
        s.debit += numericToMinorUnits(r.debit_total);
        s.credit += numericToMinorUnits(r.credit_total);
      }
      for (const r of foreignTurnovers) {
        const s = entry(r);
        if (r.currency_debit !== null) s.foreignDebit = s.foreignDebit.plus(r.currency_debit);
        if (r.currency_credit !== null) s.foreignCredit = s.foreignCredit.plus(r.currency_credit);
      }
      const info = await accountInfo(tx, scope, [...new Set([...sums.values()].map((s) => s.accountCode))]);
      const foreignCurrency = query.currency !== undefined && query.currency !== 'UZS';
      const totals = { openingDebit: 0n, openingCredit: 0n, turnoverDebit: 0n, turnoverCredit: 0n, closingDebit: 0n, closingCredit: 0n };
      const rows = [...sums.values()]
        .filter((s) => s.opening !== 0n || s.debit !== 0n || s.credit !== 0n || !s.foreignOpening.isZero() || !s.foreignDebit.isZero() || !s.foreignCredit.isZero())
        .sort((a, b) => (a.accountCode < b.accountCode ? -1 : a.accountCode > b.accountCode ? 1 : (a.subaccountId ?? '') < (b.subaccountId ?? '') ? -1 : 1))
        .map((s): TurnoverRow => {
          const closing = s.opening + s.debit - s.credit;
          const open = side(s.opening);
          const close = side(closing);
          totals.openingDebit += numericToMinorUnits(open.debit);
          totals.openingCredit += numericToMinorUnits(open.credit);
          totals.turnoverDebit += s.debit;
          totals.turnoverCredit += s.credit;
          totals.closingDebit += numericToMinorUnits(close.debit);
          totals.closingCredit += numericToMinorUnits(close.credit);
          const account = info.get(s.accountCode);
          return {
            accountCode: s.accountCode,
            name: account?.name ?? '',
            type: (account?.type ?? 'ASSET') as AccountType,
            subaccountId: s.subaccountId,
            openingDebit: open.debit,
            openingCredit: open.credit,
            turnoverDebit: formatMinorUnits(s.debit),
            turnoverCredit: formatMinorUnits(s.credit),
            closingDebit: close.debit,
            closingCredit: close.credit,
            foreign: foreignCurrency
              ? {
                  opening: formatForeignAmount(s.foreignOpening.toFixed(), query.currency!),
                  turnoverDebit: formatForeignAmount(s.foreignDebit.toFixed(), query.currency!),
                  turnoverCredit: formatForeignAmount(s.foreignCredit.toFixed(), query.currency!),
                  closing: formatForeignAmount(s.foreignOpening.plus(s.foreignDebit).minus(s.foreignCredit).toFixed(), query.currency!),
                }
              : null,
          };
        });
      return {
        from: query.from,
        to: query.to,
        detail: query.detail,
        currency: query.currency ?? null,
        basedOnCloseId: base?.id ?? null,
        rows,
        totals: {
          openingDebit: formatMinorUnits(totals.openingDebit),
          openingCredit: formatMinorUnits(totals.openingCredit),
          turnoverDebit: formatMinorUnits(totals.turnoverDebit),
          turnoverCredit: formatMinorUnits(totals.turnoverCredit),
          closingDebit: formatMinorUnits(totals.closingDebit),
          closingCredit: formatMinorUnits(totals.closingCredit),
        },
      };
    });
  }

  async function getAccountStatement(
    principal: Principal,
    legalEntityId: string,
    query: PageQuery & { accountCode: string; subaccountId?: string; from: string; to: string; currency?: string },
  ): Promise<Schemas['AccountStatement']> {
    checkRange(query.from, query.to);
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const account = (await accountInfo(tx, scope, [query.accountCode])).get(query.accountCode);
      if (!account) throw new AppError('not-found', `No account ${query.accountCode} in this company's chart`);
      if (query.subaccountId !== undefined && !(await findSubaccount(tx, { ...scope, parentCode: query.accountCode }, query.subaccountId))) {
        throw new AppError('not-found', `No subaccount with this id under account ${query.accountCode}`);
      }
      const type = account.type as AccountType;
      const onNormalSide = (debitMinusCredit: bigint) => formatMinorUnits(normalBalance(type, debitMinusCredit > 0n ? debitMinusCredit : 0n, debitMinusCredit < 0n ? -debitMinusCredit : 0n));
      const inCurrency = (value: Decimal) => formatForeignAmount(value.toFixed(), query.currency!);
      const foreignOnNormalSide = (debitPositive: Decimal) => inCurrency(normalSideOf(type) === 'CREDIT' ? debitPositive.negated() : debitPositive);
      const filter = { accountCode: query.accountCode, subaccountId: query.subaccountId, currency: query.currency };
      const { rows: opening } = await cumulativeThrough(tx, scope, dayBefore(query.from), filter);
      const openingNet = opening.reduce((sum, r) => sum + numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total), 0n);
      const openingForeign = opening.reduce((sum, r) => (r.currency_balance === null ? sum : sum.plus(r.currency_balance)), new Decimal(0));
      const range = { accountCode: query.accountCode, subaccountId: query.subaccountId, from: query.from, to: query.to, currency: query.currency };
      const totals = await statementTotals(tx, scope, range);
      const lines = await statementPage(tx, scope, { ...range, limit: query.size, offset: query.page * query.size });
      const foreign = query.currency !== undefined && query.currency !== 'UZS';
      const turnoverDebit = numericToMinorUnits(totals.debit);
      const turnoverCredit = numericToMinorUnits(totals.credit);
      const closingNet = openingNet + turnoverDebit - turnoverCredit;
      const first = lines[0];
      const pageOpeningNet = first ? openingNet + numericToMinorUnits(first.running) - (numericToMinorUnits(first.debit) - numericToMinorUnits(first.credit)) : closingNet;
      const page = pageOf(
        lines.map((l) =>
          toStatementLine(
            l,
            onNormalSide(openingNet + numericToMinorUnits(l.running)),
            foreign && l.running_foreign !== null ? foreignOnNormalSide(openingForeign.plus(l.running_foreign)) : null,
            foreign ? query.currency! : null,
          ),
        ),
        query,
        totals.lines,
      );
      return {
        accountCode: query.accountCode,
        name: account.name,
        type,
        normalSide: normalSideOf(type),
        subaccountId: query.subaccountId ?? null,
        currency: query.currency ?? null,
        from: query.from,
        to: query.to,
        openingBalance: onNormalSide(openingNet),
        turnoverDebit: formatMinorUnits(turnoverDebit),
        turnoverCredit: formatMinorUnits(turnoverCredit),
        closingBalance: onNormalSide(closingNet),
        currencyOpeningBalance: foreign ? foreignOnNormalSide(openingForeign) : null,
        currencyClosingBalance: foreign ? foreignOnNormalSide(openingForeign.plus(totals.foreign ?? 0)) : null,
        pageOpeningBalance: onNormalSide(pageOpeningNet),
        ...page,
      };
    });
  }

  return { getTurnoverSheet, getAccountStatement };
}
