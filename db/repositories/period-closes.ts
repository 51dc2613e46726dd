import { QueryTypes, type Sequelize } from 'sequelize';
import type { Tx } from '../connection';
import type { LedgerScope } from './ledger';

// Period closes and their snapshots, and the balance queries that read them.

export interface PeriodCloseRow {
  id: string;
  close_date: string;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  failure_reason: string | null;
  requested_at: Date;
  completed_at: Date | null;
  entry_count: string | null;
  request_id: string;
}

export interface BalanceRow {
  account_code: string;
  subaccount_id: string | null;
  debit_total: string;
  credit_total: string;
}

const select = <T extends object>(db: Sequelize, tx: Tx, sql: string, replacements: Record<string, unknown>) =>
  db.query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: tx });

const CLOSE_COLUMNS = `id, to_char(close_date, 'YYYY-MM-DD') AS close_date, status, failure_reason, requested_at, completed_at, entry_count, request_id`;

/** The company's ledger row, created when missing, held until commit. */
export async function lockLedgerState(db: Sequelize, tx: Tx, scope: LedgerScope): Promise<{ lastClosedDate: string | null; lockedThrough: string | null }> {
  await db.query(`INSERT INTO ledger_states (tenant_id, legal_entity_id) VALUES (:tenantId, :legalEntityId) ON CONFLICT DO NOTHING`, {
    replacements: { ...scope },
    transaction: tx,
  });
  const [row] = await select<{ last_closed_date: string | null; locked_through: string | null }>(
    db,
    tx,
    `SELECT to_char(last_closed_date, 'YYYY-MM-DD') AS last_closed_date, to_char(locked_through, 'YYYY-MM-DD') AS locked_through
       FROM ledger_states WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId FOR UPDATE`,
    { ...scope },
  );
  return { lastClosedDate: row!.last_closed_date, lockedThrough: row!.locked_through };
}

/** Moves the cut-off forward (never back): from now on nothing dated at or before `through` commits. */
export async function raiseCutoff(db: Sequelize, tx: Tx, scope: LedgerScope, through: string): Promise<void> {
  await db.query(
    `UPDATE ledger_states SET locked_through = :through
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND (locked_through IS NULL OR locked_through < :through)`,
    { replacements: { ...scope, through }, transaction: tx },
  );
}

export async function insertPeriodClose(
  db: Sequelize,
  tx: Tx,
  scope: LedgerScope,
  close: { id: string; closeDate: string; requestId: string; requestedByMembershipId: string; correlationId: string },
): Promise<void> {
  await db.query(
    `INSERT INTO period_closes (tenant_id, id, legal_entity_id, close_date, request_id, status, requested_by_membership_id, correlation_id)
     VALUES (:tenantId, :id, :legalEntityId, :closeDate, :requestId, 'RUNNING', :requestedByMembershipId, :correlationId)`,
    { replacements: { ...scope, ...close }, transaction: tx },
  );
}

export async function findPeriodClose(db: Sequelize, tx: Tx, scope: LedgerScope, by: { id: string } | { requestId: string } | { running: true }) {
  const where = 'id' in by ? 'id = :id' : 'requestId' in by ? 'request_id = :requestId' : `status = 'RUNNING'`;
  const [row] = await select<PeriodCloseRow>(
    db,
    tx,
    `SELECT ${CLOSE_COLUMNS} FROM period_closes WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND ${where}`,
    { ...scope, ...by },
  );
  return row ?? null;
}

export async function listPeriodCloses(db: Sequelize, tx: Tx, scope: LedgerScope): Promise<PeriodCloseRow[]> {
  return select<PeriodCloseRow>(
    db,
    tx,
    `SELECT ${CLOSE_COLUMNS} FROM period_closes WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
      ORDER BY close_date DESC, requested_at DESC`,
    { ...scope },
  );
}

export async function snapshotBalances(db: Sequelize, tx: Tx, scope: LedgerScope, closeId: string): Promise<BalanceRow[]> {
  return select<BalanceRow>(
    db,
    tx,
    `SELECT account_code, subaccount_id, debit_total, credit_total FROM period_close_balances
      WHERE tenant_id = :tenantId AND close_id = :closeId ORDER BY account_code COLLATE "C", subaccount_id NULLS FIRST`,
    { ...scope, closeId },
  );
}

/** The last completed close dated before `before` (or at or before `atOrBefore`), if any. */
export async function lastCompletedClose(
  db: Sequelize,
  tx: Tx,
  scope: LedgerScope,
  bound: { before: string } | { atOrBefore: string },
): Promise<{ id: string; close_date: string } | null> {
  const condition = 'before' in bound ? 'close_date < :date' : 'close_date <= :date';
  const [row] = await select<{ id: string; close_date: string }>(
    db,
    tx,
    `SELECT id, to_char(close_date, 'YYYY-MM-DD') AS close_date FROM period_closes
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status = 'COMPLETED' AND ${condition}
      ORDER BY close_date DESC LIMIT 1`,
    { ...scope, date: 'before' in bound ? bound.before : bound.atOrBefore },
  );
  return row ?? null;
}

/**
 * Cumulative totals per account and subaccount through `through`: the snapshot of `base` (a completed close)
 * plus the lines dated after it. Its cost grows with one period, not with the whole history.
 */
export async function balancesThrough(
  db: Sequelize,
  tx: Tx,
  scope: LedgerScope,
  base: { id: string; close_date: string } | null,
  through: string,
): Promise<BalanceRow[]> {
  return select<BalanceRow>(
    db,
    tx,
    `SELECT account_code, subaccount_id, sum(d)::text AS debit_total, sum(c)::text AS credit_total FROM (
       SELECT account_code, subaccount_id, debit_total AS d, credit_total AS c FROM period_close_balances
        WHERE tenant_id = :tenantId AND close_id = :baseId
       UNION ALL
       SELECT account_code, subaccount_id, debit, credit FROM journal_lines
        WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
          AND entry_date > coalesce(CAST(:baseDate AS date), '-infinity') AND entry_date <= :through
     ) period
     GROUP BY account_code, subaccount_id
     ORDER BY account_code COLLATE "C", subaccount_id NULLS FIRST`,
    { ...scope, baseId: base?.id ?? null, baseDate: base?.close_date ?? null, through },
  );
}

/** The advisory lock that makes the snapshot step of one company's close date single-writer. */
export function snapshotLockKey(legalEntityId: string, closeDate: string): string {
  return `period-close:${legalEntityId}:${closeDate}`;
}

/**
 * Stores the close's snapshot once: the previous completed close's totals plus the period's lines, summed
 * per account and subaccount in one statement. A second call finds the rows and stores nothing.
 * Answers the snapshot's totals and the period's entry count.
 */
export async function storeSnapshot(
  db: Sequelize,
  tx: Tx,
  scope: LedgerScope,
  close: { id: string; closeDate: string },
): Promise<{ debit: string; credit: string; entryCount: number; accounts: number }> {
  // One writer per close, even when a retried activity overlaps an abandoned attempt still running.
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', { replacements: { key: snapshotLockKey(scope.legalEntityId, close.closeDate) }, transaction: tx });
  const previous = await lastCompletedClose(db, tx, scope, { before: close.closeDate });
  const [existing] = await select<{ n: string }>(db, tx, `SELECT count(*) AS n FROM period_close_balances WHERE tenant_id = :tenantId AND close_id = :closeId`, {
    ...scope,
    closeId: close.id,
  });
  if (Number(existing!.n) === 0) {
    await db.query(
      `INSERT INTO period_close_balances (tenant_id, close_id, legal_entity_id, close_date, account_code, subaccount_id, debit_total, credit_total)
       SELECT :tenantId, :closeId, :legalEntityId, :closeDate, account_code, subaccount_id, sum(d), sum(c) FROM (
         SELECT account_code, subaccount_id, debit_total AS d, credit_total AS c FROM period_close_balances
          WHERE tenant_id = :tenantId AND close_id = :previousId
         UNION ALL
         SELECT account_code, subaccount_id, debit, credit FROM journal_lines
          WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
            AND entry_date > coalesce(CAST(:previousDate AS date), '-infinity') AND entry_date <= :closeDate
       ) period
       GROUP BY account_code, subaccount_id`,
      {
        replacements: { ...scope, closeId: close.id, closeDate: close.closeDate, previousId: previous?.id ?? null, previousDate: previous?.close_date ?? null },
        transaction: tx,
      },
    );
  }
  const [totals] = await select<{ debit: string | null; credit: string | null; accounts: string }>(
    db,
    tx,
    `SELECT sum(debit_total)::text AS debit, sum(credit_total)::text AS credit, count(*) AS accounts
       FROM period_close_balances WHERE tenant_id = :tenantId AND close_id = :closeId`,
    { ...scope, closeId: close.id },
  );
  const [entries] = await select<{ n: string }>(
    db,
    tx,
    `SELECT count(*) AS n FROM journal_entries WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId
        AND entry_date > coalesce(CAST(:previousDate AS date), '-infinity') AND entry_date <= :closeDate`,
    { ...scope, previousDate: previous?.close_date ?? null, closeDate: close.closeDate },
  );
  return { debit: totals!.debit ?? '0', credit: totals!.credit ?? '0', entryCount: Number(entries!.n), accounts: Number(totals!.accounts) };
}

/** RUNNING → COMPLETED once; the ledger's last close moves to the close date. False when it was not running. */
export async function markCloseCompleted(db: Sequelize, tx: Tx, scope: LedgerScope, close: { id: string; closeDate: string; entryCount: number }): Promise<boolean> {
  const rows = await select<{ id: string }>(
    db,
    tx,
    `UPDATE period_closes SET status = 'COMPLETED', completed_at = now(), entry_count = :entryCount
      WHERE tenant_id = :tenantId AND id = :id AND status = 'RUNNING' RETURNING id`,
    { ...scope, ...close },
  );
  if (rows.length === 0) return false;
  await db.query(
    `UPDATE ledger_states SET last_closed_date = :closeDate, locked_through = greatest(locked_through, :closeDate)
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId`,
    { replacements: { ...scope, closeDate: close.closeDate }, transaction: tx },
  );
  return true;
}

/** RUNNING → FAILED once, and the cut-off goes back to the last completed close. False when it was not running. */
export async function markCloseFailed(db: Sequelize, tx: Tx, scope: LedgerScope, close: { id: string; reason: string }): Promise<boolean> {
  const rows = await select<{ id: string }>(
    db,
    tx,
    `UPDATE period_closes SET status = 'FAILED', completed_at = now(), failure_reason = :reason
      WHERE tenant_id = :tenantId AND id = :id AND status = 'RUNNING' RETURNING id`,
    { ...scope, ...close },
  );
  if (rows.length === 0) return false;
  await db.query(
    `UPDATE ledger_states SET locked_through = last_closed_date WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId`,
    { replacements: { ...scope }, transaction: tx },
  );
  return true;
}
