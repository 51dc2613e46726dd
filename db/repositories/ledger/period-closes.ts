import { Op, col, fn, literal } from 'sequelize';
import { LedgerState, PeriodClose, PeriodCloseBalance } from '../../models';
import { execute, selectRows, transactionOf, type Db, type Statement } from '../../connection';
import type { LedgerScope } from './journal';

// Period closes and their snapshots, and the balance queries that read them. Serves closePeriod,
// getPeriodClose, listPeriodCloses and getTrialBalance, and closePeriodWorkflow's activities (lock, snapshot,
// complete or fail the close). Single-table reads and
// state changes go through the models; the snapshot and the balance sums are raw SQL (aggregates over
// the journal in one statement), as is the ledger row lock.

export interface PeriodCloseRow {
  id: string;
  closeDate: string;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  failureReason: string | null;
  requestedAt: Date;
  completedAt: Date | null;
  entryCount: number | null;
  requestId: string;
}

/** Totals per account, subaccount and currency: UZS debit and credit totals, and for a foreign currency its balance (debit positive). */
export interface BalanceRow {
  account_code: string;
  subaccount_id: string | null;
  currency: string | null;
  debit_total: string;
  credit_total: string;
  currency_balance: string | null;
}

function toRow(c: PeriodClose): PeriodCloseRow {
  return {
    id: c.id,
    closeDate: c.closeDate,
    status: c.status,
    failureReason: c.failureReason,
    requestedAt: c.requestedAt,
    completedAt: c.completedAt,
    entryCount: c.entryCount === null ? null : Number(c.entryCount),
    requestId: c.requestId,
  };
}

const ofCompany = (scope: LedgerScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

/** The company's ledger row, created when missing, held until commit. Raw SQL: a row lock (FOR UPDATE). */
export async function lockLedgerState(tx: Db, scope: LedgerScope): Promise<{ lastClosedDate: string | null; lockedThrough: string | null }> {
  await execute(tx, `INSERT INTO ledger_states (tenant_id, legal_entity_id) VALUES (:tenantId, :legalEntityId) ON CONFLICT DO NOTHING`, { ...scope });
  const [row] = await selectRows<{ last_closed_date: string | null; locked_through: string | null }>(
    tx,
    `SELECT to_char(last_closed_date, 'YYYY-MM-DD') AS last_closed_date, to_char(locked_through, 'YYYY-MM-DD') AS locked_through
       FROM ledger_states WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId FOR UPDATE`,
    { ...scope },
  );
  return { lastClosedDate: row!.last_closed_date, lockedThrough: row!.locked_through };
}

/** Moves the cut-off forward (never back): from now on nothing dated at or before `through` commits. */
export async function raiseCutoff(tx: Db, scope: LedgerScope, through: string): Promise<void> {
  await LedgerState.update(
    { lockedThrough: through },
    { where: { ...ofCompany(scope), [Op.or]: [{ lockedThrough: null }, { lockedThrough: { [Op.lt]: through } }] }, transaction: transactionOf(tx) },
  );
}

export async function insertPeriodClose(
  tx: Db,
  scope: LedgerScope,
  close: { id: string; closeDate: string; requestId: string; requestedByMembershipId: string; correlationId: string },
): Promise<PeriodCloseRow> {
  const created = await PeriodClose.create({ ...ofCompany(scope), ...close, status: 'RUNNING' }, { transaction: transactionOf(tx) });
  return toRow(created);
}

export async function findPeriodClose(
  tx: Db,
  scope: LedgerScope,
  by: { id: string } | { requestId: string } | { running: true },
): Promise<PeriodCloseRow | null> {
  const which = 'id' in by ? { id: by.id } : 'requestId' in by ? { requestId: by.requestId } : { status: 'RUNNING' as const };
  const row = await PeriodClose.findOne({ where: { ...ofCompany(scope), ...which }, transaction: transactionOf(tx) });
  return row ? toRow(row) : null;
}

export async function periodClosesOf(tx: Db, scope: LedgerScope): Promise<PeriodCloseRow[]> {
  const rows = await PeriodClose.findAll({
    where: ofCompany(scope),
    order: [['closeDate', 'DESC'], ['requestedAt', 'DESC']],
    transaction: transactionOf(tx),
  });
  return rows.map(toRow);
}

export async function snapshotBalances(tx: Db, scope: LedgerScope, closeId: string): Promise<BalanceRow[]> {
  const rows = await PeriodCloseBalance.findAll({
    where: { tenantId: scope.tenantId, closeId },
    order: [[literal('account_code COLLATE "C"'), 'ASC'], [col('subaccount_id'), 'ASC NULLS FIRST'], [col('currency'), 'ASC NULLS FIRST']],
    transaction: transactionOf(tx),
  });
  return rows.map((b) => ({
    account_code: b.accountCode,
    subaccount_id: b.subaccountId,
    currency: b.currency,
    debit_total: b.debitTotal,
    credit_total: b.creditTotal,
    currency_balance: b.currencyBalance,
  }));
}

/** The last completed close dated before `before` (or at or before `atOrBefore`), if any. */
export async function lastCompletedClose(
  tx: Db,
  scope: LedgerScope,
  bound: { before: string } | { atOrBefore: string },
): Promise<{ id: string; closeDate: string } | null> {
  const closeDate = 'before' in bound ? { [Op.lt]: bound.before } : { [Op.lte]: bound.atOrBefore };
  const row = await PeriodClose.findOne({
    attributes: ['id', 'closeDate'],
    where: { ...ofCompany(scope), status: 'COMPLETED', closeDate },
    order: [['closeDate', 'DESC']],
    transaction: transactionOf(tx),
  });
  return row ? { id: row.id, closeDate: row.closeDate } : null;
}

export interface BalanceFilter {
  currency?: string;
  foreignOnly?: boolean;
  monetaryOnly?: boolean;
  accountCode?: string;
  subaccountId?: string;
  accountRange?: { from: string; to: string };
}

/**
 * The statement of cumulative totals per account and subaccount through `through`: the snapshot of `base` (a
 * completed close) plus the day totals of the lines dated after it (journal_day_totals, kept by a trigger on
 * the lines): its cost grows with the days and accounts of one period, not with its lines. `base` 'latest' is
 * the last completed close at or before `through`, found by the statement itself (for a batch of statements
 * sent as one round trip). Raw SQL: an aggregate over two tables.
 */
export function balancesStatement(
  scope: LedgerScope,
  base: { id: string; closeDate: string } | null | 'latest',
  through: string,
  filter: BalanceFilter = {},
): Statement {
  const conditions = [
    filter.accountRange === undefined ? 'true' : 'account_code COLLATE "C" BETWEEN :rangeFrom AND :rangeTo',
    filter.accountCode === undefined ? 'true' : 'account_code = :accountCode',
    filter.subaccountId === undefined ? 'true' : 'subaccount_id = :subaccountId',
    filter.currency === undefined ? 'true' : filter.currency === 'UZS' ? 'currency IS NULL' : 'currency = :currency',
    filter.foreignOnly ? 'currency IS NOT NULL' : 'true',
    filter.monetaryOnly ? 'EXISTS (SELECT 1 FROM monetary_account_ranges m WHERE account_code COLLATE "C" BETWEEN m.first_code AND m.last_code)' : 'true',
  ].join(' AND ');
  const [baseId, baseDate] =
    base === 'latest'
      ? ['(SELECT id FROM base)', '(SELECT close_date FROM base)']
      : ['CAST(:baseId AS uuid)', 'CAST(:baseDate AS date)'];
  return {
    sql: `WITH base AS (${LATEST_CLOSE})
     SELECT account_code, subaccount_id, currency, sum(d)::text AS debit_total, sum(c)::text AS credit_total, sum(f)::text AS currency_balance FROM (
       SELECT account_code, subaccount_id, currency, debit_total AS d, credit_total AS c, currency_balance AS f FROM period_close_balances
        WHERE tenant_id = :tenantId AND close_id = ${baseId}
       UNION ALL
       SELECT account_code, subaccount_id, currency, debit, credit, currency_debit - currency_credit FROM journal_day_totals
        WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
          AND entry_date > coalesce(${baseDate}, '-infinity') AND entry_date <= :through
     ) period
     WHERE ${conditions}
     GROUP BY account_code, subaccount_id, currency
     ORDER BY account_code COLLATE "C", subaccount_id NULLS FIRST, currency NULLS FIRST`,
    replacements: {
      ...scope,
      baseId: base === 'latest' ? null : (base?.id ?? null),
      baseDate: base === 'latest' ? null : (base?.closeDate ?? null),
      through,
      currency: filter.currency ?? null,
      accountCode: filter.accountCode ?? null,
      subaccountId: filter.subaccountId ?? null,
      rangeFrom: filter.accountRange?.from ?? null,
      rangeTo: filter.accountRange?.to ?? null,
    },
  };
}

/** The last completed close dated at or before :through, as `id` and `close_date` (a date), if any. */
const LATEST_CLOSE = `SELECT id, close_date FROM period_closes
   WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status = 'COMPLETED' AND close_date <= :through
   ORDER BY close_date DESC LIMIT 1`;

/** The last completed close at or before `through` as `id` and `close_date` ('YYYY-MM-DD'): no row when there is none. */
export function latestCloseStatement(scope: LedgerScope, through: string): Statement {
  return {
    sql: `SELECT id, to_char(close_date, 'YYYY-MM-DD') AS close_date FROM (${LATEST_CLOSE}) base`,
    replacements: { ...scope, through },
  };
}

/** Cumulative totals per account and subaccount through `through`, from `base` (see balancesStatement). */
export async function balancesThrough(
  tx: Db,
  scope: LedgerScope,
  base: { id: string; closeDate: string } | null,
  through: string,
  filter: BalanceFilter = {},
): Promise<BalanceRow[]> {
  const statement = balancesStatement(scope, base, through, filter);
  return selectRows<BalanceRow>(tx, statement.sql, statement.replacements);
}

/** Cumulative totals through a day: the last completed close at or before it (`base`) plus the day totals after it. */
export async function cumulativeThrough(tx: Db, scope: LedgerScope, date: string, filter: BalanceFilter = {}) {
  const base = await lastCompletedClose(tx, scope, { atOrBefore: date });
  return { base, rows: await balancesThrough(tx, scope, base, date, filter) };
}

/** The advisory lock that makes the snapshot step of one company's close date single-writer. */
export function snapshotLockKey(legalEntityId: string, closeDate: string): string {
  return `period-close:${legalEntityId}:${closeDate}`;
}

/**
 * Stores the close's snapshot once: the previous completed close's totals plus the period's lines, summed
 * per account and subaccount in one statement. A second call finds the rows and stores nothing.
 * Answers the snapshot's totals and the period's entry count. Raw SQL: an advisory lock and aggregates.
 */
export async function storeSnapshot(
  tx: Db,
  scope: LedgerScope,
  close: { id: string; closeDate: string },
): Promise<{ debit: string; credit: string; entryCount: number; accounts: number }> {
  // One writer per close, even when a retried activity overlaps an abandoned attempt still running.
  await execute(tx, 'SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', { key: snapshotLockKey(scope.legalEntityId, close.closeDate) });
  const previous = await lastCompletedClose(tx, scope, { before: close.closeDate });
  const [existing] = await selectRows<{ n: string }>(tx, `SELECT count(*) AS n FROM period_close_balances WHERE tenant_id = :tenantId AND close_id = :closeId`, {
    ...scope,
    closeId: close.id,
  });
  if (Number(existing!.n) === 0) {
    await execute(
      tx,
      `INSERT INTO period_close_balances (tenant_id, close_id, legal_entity_id, close_date, account_code, subaccount_id, currency,
                                          debit_total, credit_total, currency_balance)
       SELECT :tenantId, :closeId, :legalEntityId, :closeDate, account_code, subaccount_id, currency, sum(d), sum(c), sum(f) FROM (
         SELECT account_code, subaccount_id, currency, debit_total AS d, credit_total AS c, currency_balance AS f FROM period_close_balances
          WHERE tenant_id = :tenantId AND close_id = :previousId
         UNION ALL
         SELECT account_code, subaccount_id, currency, debit, credit, currency_debit - currency_credit FROM journal_day_totals
          WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
            AND entry_date > coalesce(CAST(:previousDate AS date), '-infinity') AND entry_date <= :closeDate
       ) period
       GROUP BY account_code, subaccount_id, currency`,
      { ...scope, closeId: close.id, closeDate: close.closeDate, previousId: previous?.id ?? null, previousDate: previous?.closeDate ?? null },
    );
  }
  const [totals] = await selectRows<{ debit: string | null; credit: string | null; accounts: string }>(
    tx,
    `SELECT sum(debit_total)::text AS debit, sum(credit_total)::text AS credit, count(*) AS accounts
       FROM period_close_balances WHERE tenant_id = :tenantId AND close_id = :closeId`,
    { ...scope, closeId: close.id },
  );
  const [entries] = await selectRows<{ n: string }>(
    tx,
    `SELECT count(*) AS n FROM journal_entries WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
        AND entry_date > coalesce(CAST(:previousDate AS date), '-infinity') AND entry_date <= :closeDate`,
    { ...scope, previousDate: previous?.closeDate ?? null, closeDate: close.closeDate },
  );
  return { debit: totals!.debit ?? '0', credit: totals!.credit ?? '0', entryCount: Number(entries!.n), accounts: Number(totals!.accounts) };
}

/** RUNNING → COMPLETED once; the ledger's last close moves to the close date. False when it was not running. */
export async function markCloseCompleted(tx: Db, scope: LedgerScope, close: { id: string; closeDate: string; entryCount: number }): Promise<boolean> {
  const [changed] = await PeriodClose.update(
    { status: 'COMPLETED', completedAt: new Date(), entryCount: String(close.entryCount) },
    { where: { tenantId: scope.tenantId, id: close.id, status: 'RUNNING' }, transaction: transactionOf(tx) },
  );
  if (changed === 0) return false;
  await LedgerState.update(
    { lastClosedDate: close.closeDate, lockedThrough: fn('greatest', col('locked_through'), close.closeDate) as unknown as string },
    { where: ofCompany(scope), transaction: transactionOf(tx) },
  );
  return true;
}

/** RUNNING → FAILED once, and the cut-off goes back to the last completed close. False when it was not running. */
export async function markCloseFailed(tx: Db, scope: LedgerScope, close: { id: string; reason: string }): Promise<boolean> {
  const [changed] = await PeriodClose.update(
    { status: 'FAILED', completedAt: new Date(), failureReason: close.reason },
    { where: { tenantId: scope.tenantId, id: close.id, status: 'RUNNING' }, transaction: transactionOf(tx) },
  );
  if (changed === 0) return false;
  await LedgerState.update({ lockedThrough: col('last_closed_date') as unknown as string }, { where: ofCompany(scope), transaction: transactionOf(tx) });
  return true;
}
