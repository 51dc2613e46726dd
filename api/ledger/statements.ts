import { type LedgerScope } from '../../db/repositories/ledger/journal';
import type { BalanceRow } from '../../db/repositories/ledger/period-closes';
import { turnoversBetween } from '../../db/repositories/ledger/reports';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { dayBefore, daysBetween, FIRST_DATE } from '../../core/shared/calendar';
import { AppError } from '../../core/shared/problems';
import { templateOn, type StatementTemplate } from '../../core/ledger/statement-forms';
import { evaluateStatement, rowContributions, type AccountAmount } from '../../core/ledger/statement-evaluator';
import type { Tx } from '../../db/connection';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';
import { cumulativeThrough } from '../../db/repositories/ledger/period-closes';

type FinancialStatement = Schemas['FinancialStatement'];

/** The same day a year earlier (29 February → 28 February). */
function yearBefore(date: string): string {
  const [y, m, d] = date.split('-');
  const year = String(Number(y) - 1).padStart(4, '0');
  return m === '02' && d === '29' ? `${year}-02-28` : `${year}-${m}-${d}`;
}

/** Per account and subaccount (the settlement accounts split by it), cumulative debit and credit at the date. */
async function balancesAt(tx: Tx, scope: LedgerScope, date: string): Promise<AccountAmount[]> {
  return perAccount((await cumulativeThrough(tx, scope, date, {})).rows.map(totalsOf));
}

/**
 * The period's turnovers without the year-end closing entries, per account and subaccount. A period within one
 * year that does not end on 31 December holds no closing entries: its turnovers are the cumulative totals at
 * its end less those before its start (two snapshot reads). Otherwise its lines are summed, the closing
 * entries left out.
 */
async function turnoversIn(tx: Tx, scope: LedgerScope, from: string, to: string): Promise<AccountAmount[]> {
  if (from.slice(0, 4) === to.slice(0, 4) && to.slice(5) !== '12-31') {
    const before = sumsByKey((await cumulativeThrough(tx, scope, dayBefore(from), {})).rows.map(totalsOf));
    const after = sumsByKey((await cumulativeThrough(tx, scope, to, {})).rows.map(totalsOf));
    return [...after.entries()].map(([key, a]) => ({
      accountCode: a.accountCode,
      debit: a.debit - (before.get(key)?.debit ?? 0n),
      credit: a.credit - (before.get(key)?.credit ?? 0n),
    }));
  }
  return perAccount(
    (await turnoversBetween(tx, scope, { from, to, withoutYearEndClosing: true })).map((r) => ({ account: r.account_code, subaccount: r.subaccount_id, debit: r.debit, credit: r.credit })),
  );
}

const totalsOf = (r: BalanceRow) => ({ account: r.account_code, subaccount: r.subaccount_id, debit: r.debit_total, credit: r.credit_total });

/** Currencies of one account and subaccount add up: a statement is in UZS. */
function sumsByKey(rows: Array<{ account: string; subaccount: string | null; debit: string; credit: string }>): Map<string, AccountAmount> {
  const sums = new Map<string, AccountAmount>();
  for (const r of rows) {
    const key = `${r.account}/${r.subaccount ?? ''}`;
    const sum = sums.get(key) ?? { accountCode: r.account, debit: 0n, credit: 0n };
    sum.debit += numericToMinorUnits(r.debit);
    sum.credit += numericToMinorUnits(r.credit);
    sums.set(key, sum);
  }
  return sums;
}

function perAccount(rows: Array<{ account: string; subaccount: string | null; debit: string; credit: string }>): AccountAmount[] {
  return [...sumsByKey(rows).values()];
}

const amountText = (value: bigint | null | undefined) => (value === null || value === undefined ? null : formatMinorUnits(value));

/** A template evaluated on two sets of amounts (this period's and the prior column's), with each row's drill-down. */
function statementOf(template: StatementTemplate, current: AccountAmount[], prior: AccountAmount[]): FinancialStatement['rows'] {
  const now = evaluateStatement(template, current);
  const before = evaluateStatement(template, prior);
  return template.rows.map((row) => {
    const parts = rowContributions(row, current);
    const priorParts = rowContributions(row, prior);
    const codes = [...new Set([...parts.keys(), ...priorParts.keys()])].sort();
    return {
      code: row.code,
      name: row.name,
      total: row.total ?? false,
      column: row.column ?? null,
      formula: row.formula ?? null,
      amount: amountText(now.get(row.code)),
      priorAmount: amountText(before.get(row.code)),
      accounts: codes.map((accountCode) => ({
        accountCode,
        amount: formatMinorUnits(parts.get(accountCode) ?? 0n),
        priorAmount: formatMinorUnits(priorParts.get(accountCode) ?? 0n),
      })),
    };
  });
}

/**
 * A statement's prior column is a year earlier, so its first day must be a day the books can name: a statement
 * of 1900 (the first year) has none, and is refused rather than answered with dates outside the calendar.
 */
function checkPriorColumn(priorDay: string, path: string): void {
  if (priorDay < FIRST_DATE) {
    throw new AppError('validation', `A statement's prior column is the year before; the first day it can cover is ${FIRST_DATE}`, {
      errors: [{ path, message: `must leave a prior column on or after ${FIRST_DATE}` }],
    });
  }
}

/**
 * Form 1 at a date: each row's amount (null for a row without one), and the per-account cumulative totals it
 * was evaluated on, for a report that ties its own figures to the balance sheet.
 */
export async function balanceSheetAt(tx: Tx, scope: LedgerScope, asOf: string): Promise<{ rows: Map<string, bigint | null>; balances: AccountAmount[] }> {
  const balances = await balancesAt(tx, scope, asOf);
  return { rows: evaluateStatement(templateOn('FORM_1', asOf), balances), balances };
}

/** Form 1 (balance sheet) and Form 2 (financial results) from the templates in effect, with a prior column. */
export function createStatements(companies: CompanyScopes) {
  async function getBalanceSheet(principal: Principal, legalEntityId: string, asOf: string): Promise<FinancialStatement> {
    const priorTo = `${String(Number(asOf.slice(0, 4)) - 1).padStart(4, '0')}-12-31`;
    checkPriorColumn(priorTo, '/query/asOf');
    const template = templateOn('FORM_1', asOf);
    return companies.read(principal, legalEntityId, async (tx, scope) => ({
      ...header(template),
      from: null,
      to: asOf,
      priorFrom: null,
      priorTo,
      rows: statementOf(template, await balancesAt(tx, scope, asOf), await balancesAt(tx, scope, priorTo)),
    }));
  }

  async function getFinancialResults(principal: Principal, legalEntityId: string, from: string, to: string): Promise<FinancialStatement> {
    const days = daysBetween(from, to);
    if (days < 1) throw new AppError('validation', '`to` is before `from`', { errors: [{ path: '/query/to', message: 'must be on or after from' }] });
    if (days > 366) throw new AppError('validation', 'A statement covers at most 366 days', { errors: [{ path: '/query/to', message: 'must be within 366 days of from' }] });
    const template = templateOn('FORM_2', to);
    const priorFrom = yearBefore(from);
    const priorTo = yearBefore(to);
    checkPriorColumn(priorFrom, '/query/from');
    return companies.read(principal, legalEntityId, async (tx, scope) => ({
      ...header(template),
      from,
      to,
      priorFrom,
      priorTo,
      rows: statementOf(template, await turnoversIn(tx, scope, from, to), await turnoversIn(tx, scope, priorFrom, priorTo)),
    }));
  }

  return { getBalanceSheet, getFinancialResults };
}

function header(template: StatementTemplate) {
  return { form: template.form, version: template.version, effectiveFrom: template.effectiveFrom, title: template.title, source: template.source };
}
