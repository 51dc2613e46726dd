import { Op } from 'sequelize';
import { Revaluation } from '../../models';
import { transactionOf, type Db } from '../../connection';
import type { LedgerScope } from './journal';
import { balancesThrough, lastCompletedClose } from './period-closes';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

// Revaluations of foreign-currency balances. Serves postRevaluation, listRevaluations, getRevaluation,
// closePeriod (none may run while it starts) and postRevaluationWorkflow's activities. Single-table reads
// and state changes go through the model; the balances are the snapshot sums of period-closes.ts.

export interface RevaluationRow {
  id: string;
  revaluationDate: string;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  requestedBy: 'REQUEST' | 'PERIOD_CLOSE';
  closeId: string | null;
  entryId: string | null;
  gainTotal: string | null;
  lossTotal: string | null;
  failureReason: string | null;
  requestedAt: Date;
  completedAt: Date | null;
}

function toRow(r: Revaluation): RevaluationRow {
  return {
    id: r.id,
    revaluationDate: r.revaluationDate,
    status: r.status,
    requestedBy: r.requestedBy,
    closeId: r.closeId,
    entryId: r.entryId,
    gainTotal: r.gainTotal,
    lossTotal: r.lossTotal,
    failureReason: r.failureReason,
    requestedAt: r.requestedAt,
    completedAt: r.completedAt,
  };
}

const ofCompany = (scope: LedgerScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

export async function insertRevaluation(
  tx: Db,
  scope: LedgerScope,
  revaluation: { id: string; revaluationDate: string; requestedBy: 'REQUEST' | 'PERIOD_CLOSE'; closeId: string | null; requestedByMembershipId: string | null; correlationId: string },
): Promise<RevaluationRow> {
  const created = await Revaluation.create({ ...ofCompany(scope), ...revaluation, status: 'RUNNING' }, { transaction: transactionOf(tx) });
  return toRow(created);
}

/** By id; the one of a date that did not fail; the one still running; or the latest that did not fail and is dated after a date. */
export async function findRevaluation(
  tx: Db,
  scope: LedgerScope,
  by: { id: string } | { date: string } | { running: true } | { after: string },
): Promise<RevaluationRow | null> {
  const where =
    'id' in by
      ? { id: by.id }
      : 'date' in by
        ? { revaluationDate: by.date, status: { [Op.ne]: 'FAILED' } }
        : 'running' in by
          ? { status: 'RUNNING' }
          : { revaluationDate: { [Op.gt]: by.after }, status: { [Op.ne]: 'FAILED' } };
  const row = await Revaluation.findOne({ where: { ...ofCompany(scope), ...where }, order: [['revaluationDate', 'DESC']], transaction: transactionOf(tx) });
  return row ? toRow(row) : null;
}

export async function revaluationsOf(tx: Db, scope: LedgerScope): Promise<RevaluationRow[]> {
  const rows = await Revaluation.findAll({ where: ofCompany(scope), order: [['revaluationDate', 'DESC'], ['requestedAt', 'DESC']], transaction: transactionOf(tx) });
  return rows.map(toRow);
}

/** RUNNING → COMPLETED once, with the entry (or none) and the totals. False when it was not running. */
export async function markRevaluationCompleted(
  tx: Db,
  scope: LedgerScope,
  revaluation: { id: string; entryId: string | null; gainTotal: string; lossTotal: string },
): Promise<boolean> {
  const [changed] = await Revaluation.update(
    { status: 'COMPLETED', completedAt: new Date(), entryId: revaluation.entryId, gainTotal: revaluation.gainTotal, lossTotal: revaluation.lossTotal },
    { where: { tenantId: scope.tenantId, id: revaluation.id, status: 'RUNNING' }, transaction: transactionOf(tx) },
  );
  return changed > 0;
}

/** RUNNING → FAILED once, with the reason. False when it was not running. */
export async function markRevaluationFailed(tx: Db, scope: LedgerScope, revaluation: { id: string; reason: string }): Promise<boolean> {
  const [changed] = await Revaluation.update(
    { status: 'FAILED', completedAt: new Date(), failureReason: revaluation.reason.slice(0, 500) },
    { where: { tenantId: scope.tenantId, id: revaluation.id, status: 'RUNNING' }, transaction: transactionOf(tx) },
  );
  return changed > 0;
}

/**
 * The foreign-currency balances of the monetary accounts through `date`, per account, subaccount and
 * currency: the last snapshot at or before it plus the day totals after it.
 */
export async function monetaryForeignBalances(
  tx: Db,
  scope: LedgerScope,
  date: string,
): Promise<Array<{ accountCode: string; subaccountId: string | null; currency: string; balance: string; carrying: string }>> {
  const base = await lastCompletedClose(tx, scope, { atOrBefore: date });
  const rows = await balancesThrough(tx, scope, base, date, { foreignOnly: true, monetaryOnly: true });
  return rows.map((r) => ({
    accountCode: r.account_code,
    subaccountId: r.subaccount_id,
    currency: r.currency!,
    balance: r.currency_balance!,
    carrying: formatMinorUnits(numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total)),
  }));
}
