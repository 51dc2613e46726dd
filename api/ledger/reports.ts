import Decimal from 'decimal.js';
import { accountInfo } from '../../db/repositories/ledger/journal';
import { cumulativeThrough, type BalanceRow } from '../../db/repositories/ledger/period-closes';
import { findSubaccount } from '../../db/repositories/accounting/subaccounts';
import { findCounterparty } from '../../db/repositories/counterparties/counterparties';
import {
  counterpartySums,
  statementPage,
  statementTotals,
  turnoversBetween,
  type CounterpartySumsRow,
  type StatementLineData,
} from '../../db/repositories/ledger/reports';
import type { LedgerScope } from '../../db/repositories/ledger/journal';
import type { Tx } from '../../db/connection';
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

/** 400 unless `from`..`to` is a range of one to MAX_DAYS days: every dated report's rule. */
export function checkRange(from: string, to: string): void {
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

type Detail = 'ACCOUNT' | 'SUBACCOUNT' | 'COUNTERPARTY';

/** What a turnover sheet's row is per: the account, and the subaccount or the counterparty as `detail` asks. */
interface RowKey {
  accountCode: string;
  subaccountId: string | null;
  counterpartyId: string | null;
  counterpartyName: string | null;
}

/** 404 unless `counterpartyId` is a counterparty of this company (archived or not). */
async function checkCounterparty(tx: Tx, scope: LedgerScope, counterpartyId: string | undefined): Promise<void> {
  if (counterpartyId !== undefined && !(await findCounterparty(tx, scope, counterpartyId))) {
    throw new AppError('not-found', 'No counterparty with this id in this company');
  }
}

/**
 * Rows in account code order; within an account, the lines without a subaccount or counterparty first, then by
 * subaccount id, or by counterparty name and id (in character code order, as the register lists them under
 * the C collation).
 */
function compareRows(a: RowKey, b: RowKey): number {
  const order = (x: RowKey) => [x.accountCode, x.subaccountId === null ? 0 : 1, x.subaccountId ?? '', x.counterpartyId === null ? 0 : 1, x.counterpartyName ?? '', x.counterpartyId ?? ''] as const;
  const [l, r] = [order(a), order(b)];
  for (let i = 0; i < l.length; i++) if (l[i] !== r[i]) return l[i]! < r[i]! ? -1 : 1;
  return 0;
}

/** Turnover sheets and account statements, read from the last snapshot plus the day totals of the lines after it. */
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
    query: { from: string; to: string; detail: Detail; currency?: string; counterpartyId?: string },
  ): Promise<TurnoverSheet> {
    checkRange(query.from, query.to);
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      await checkCounterparty(tx, scope, query.counterpartyId);
      const foreignCurrency = query.currency !== undefined && query.currency !== 'UZS';
      const keyOf = (r: { account_code: string; subaccount_id: string | null; counterparty_id?: string | null }) =>
        query.detail === 'SUBACCOUNT' ? `${r.account_code}/${r.subaccount_id ?? ''}` : query.detail === 'COUNTERPARTY' ? `${r.account_code}/${r.counterparty_id ?? ''}` : r.account_code;
      const sums = new Map<string, Sums & RowKey>();
      const entry = (r: { account_code: string; subaccount_id: string | null; counterparty_id?: string | null; counterparty_name?: string | null }) => {
        const key = keyOf(r);
        let s = sums.get(key);
        if (!s) {
          const byCounterparty = query.detail === 'COUNTERPARTY';
          sums.set(
            key,
            (s = {
              ...zero(),
              accountCode: r.account_code,
              subaccountId: query.detail === 'SUBACCOUNT' ? r.subaccount_id : null,
              counterpartyId: byCounterparty ? (r.counterparty_id ?? null) : null,
              counterpartyName: byCounterparty ? (r.counterparty_name ?? null) : null,
            }),
          );
        }
        return s;
      };
      /**
       * Adds (sign 1n) or takes away (-1n) a counterparty's lines, as the per-account sums below have them: the
       * foreign opening balance always (as the snapshots keep it), the foreign turnovers with a foreign currency.
       */
      const addCounterparty = (s: Sums, r: CounterpartySumsRow, sign: 1n | -1n) => {
        const signed = (value: string) => (sign === 1n ? new Decimal(value) : new Decimal(value).negated());
        s.opening += sign * (numericToMinorUnits(r.opening_debit) - numericToMinorUnits(r.opening_credit));
        s.debit += sign * numericToMinorUnits(r.debit);
        s.credit += sign * numericToMinorUnits(r.credit);
        if (r.currency_opening !== null) s.foreignOpening = s.foreignOpening.plus(signed(r.currency_opening));
        if (!foreignCurrency) return;
        if (r.currency_debit !== null) s.foreignDebit = s.foreignDebit.plus(signed(r.currency_debit));
        if (r.currency_credit !== null) s.foreignCredit = s.foreignCredit.plus(signed(r.currency_credit));
      };
      let base: { id: string } | null = null;
      if (query.counterpartyId !== undefined) {
        // One counterparty's lines: the snapshots do not keep the counterparty, so every line through `to` of it.
        for (const r of await counterpartySums(tx, scope, query)) addCounterparty(entry(r), r, 1n);
      } else {
        const before = await cumulativeThrough(tx, scope, dayBefore(query.from), { currency: query.currency });
        base = before.base;
        // The UZS turnovers are the cumulative totals at `to` less those before `from`: two snapshot reads (plus
        // the lines since each snapshot), not a pass over the range's lines. The foreign debit and credit
        // turnovers are not in the snapshots (they keep the net foreign balance): a foreign currency's sheet
        // sums its lines of the range for them.
        const { rows: closing } = await cumulativeThrough(tx, scope, query.to, { currency: query.currency });
        const foreignTurnovers = foreignCurrency ? await turnoversBetween(tx, scope, query) : [];
        for (const r of before.rows as BalanceRow[]) {
          const s = entry(r);
          s.opening += numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total);
          if (r.currency_balance !== null) s.foreignOpening = s.foreignOpening.plus(r.currency_balance);
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
        if (query.detail === 'COUNTERPARTY') {
          // Each account's row so far holds all its lines (from the snapshots); each counterparty's lines, summed
          // from the lines, move from it to the counterparty's row, leaving the lines that name none.
          for (const r of await counterpartySums(tx, scope, query)) {
            addCounterparty(entry(r), r, 1n);
            addCounterparty(entry({ ...r, counterparty_id: null, counterparty_name: null }), r, -1n);
          }
        }
      }
      const info = await accountInfo(tx, scope, [...new Set([...sums.values()].map((s) => s.accountCode))]);
      const totals = { openingDebit: 0n, openingCredit: 0n, turnoverDebit: 0n, turnoverCredit: 0n, closingDebit: 0n, closingCredit: 0n };
      const rows = [...sums.values()]
        .filter((s) => s.opening !== 0n || s.debit !== 0n || s.credit !== 0n || !s.foreignOpening.isZero() || !s.foreignDebit.isZero() || !s.foreignCredit.isZero())
        .sort(compareRows)
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
            counterpartyId: s.counterpartyId,
            counterpartyName: s.counterpartyName,
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
        counterpartyId: query.counterpartyId ?? null,
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
    query: PageQuery & { accountCode: string; subaccountId?: string; counterpartyId?: string; from: string; to: string; currency?: string },
  ): Promise<Schemas['AccountStatement']> {
    checkRange(query.from, query.to);
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const account = (await accountInfo(tx, scope, [query.accountCode])).get(query.accountCode);
      if (!account) throw new AppError('not-found', `No account ${query.accountCode} in this company's chart`);
      if (query.subaccountId !== undefined && !(await findSubaccount(tx, { ...scope, parentCode: query.accountCode }, query.subaccountId))) {
        throw new AppError('not-found', `No subaccount with this id under account ${query.accountCode}`);
      }
      await checkCounterparty(tx, scope, query.counterpartyId);
      const type = account.type as AccountType;
      const onNormalSide = (debitMinusCredit: bigint) => formatMinorUnits(normalBalance(type, debitMinusCredit > 0n ? debitMinusCredit : 0n, debitMinusCredit < 0n ? -debitMinusCredit : 0n));
      const inCurrency = (value: Decimal) => formatForeignAmount(value.toFixed(), query.currency!);
      const foreignOnNormalSide = (debitPositive: Decimal) => inCurrency(normalSideOf(type) === 'CREDIT' ? debitPositive.negated() : debitPositive);
      const filter = { accountCode: query.accountCode, subaccountId: query.subaccountId, currency: query.currency };
      let openingNet = 0n;
      let openingForeign = new Decimal(0);
      if (query.counterpartyId === undefined) {
        const { rows: opening } = await cumulativeThrough(tx, scope, dayBefore(query.from), filter);
        for (const r of opening) {
          openingNet += numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total);
          if (r.currency_balance !== null) openingForeign = openingForeign.plus(r.currency_balance);
        }
      } else {
        // By counterparty: the snapshots do not keep it, so the opening balance is the sum of its lines before `from`.
        for (const r of await counterpartySums(tx, scope, { ...filter, counterpartyId: query.counterpartyId, from: query.from, to: dayBefore(query.from) })) {
          openingNet += numericToMinorUnits(r.opening_debit) - numericToMinorUnits(r.opening_credit);
          if (r.currency_opening !== null) openingForeign = openingForeign.plus(r.currency_opening);
        }
      }
      const range = { ...filter, counterpartyId: query.counterpartyId, from: query.from, to: query.to };
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
        counterpartyId: query.counterpartyId ?? null,
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
