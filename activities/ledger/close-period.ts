import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { NumberOutOfRangeError } from '../../db/repositories/errors';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { recordWebhookEvent } from '../../db/repositories/webhooks/events';
import {
  balancesThrough,
  findPeriodClose,
  lastCompletedClose,
  lockLedgerState,
  markCloseCompleted,
  markCloseFailed,
  raiseCutoff,
  storeSnapshot,
} from '../../db/repositories/ledger/period-closes';
import { findEntry, postJournalEntryStatement, postedEntryOf } from '../../db/repositories/ledger/journal';
import { selectBatch } from '../../db/connection';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { requestHash, type LedgerLine } from '../../core/ledger/journal';
import { closeIncomeAndExpenses, FINAL_RESULT_ACCOUNT, INCOME_AND_EXPENSE_ACCOUNTS, transferResult, yearEndRequestId } from '../../core/ledger/year-end';
import { findRevaluation, insertRevaluation } from '../../db/repositories/ledger/revaluations';
import { FailureType } from '../../contracts/failures';
import type { ClosePeriodActivities, ClosePeriodInput } from '../../contracts/ledger';

export interface ClosePeriodDeps {
  db: Sequelize;
}

const scopeOf = (input: ClosePeriodInput) => ({ tenantId: input.tenantId, legalEntityId: input.legalEntityId });

/** The close's outcome in the audit trail: written by the workflow, so a system event. */
function recordCloseOutcome(
  tx: Tx,
  input: ClosePeriodInput,
  action: 'ledger.period.closed' | 'ledger.period.close-failed' | 'ledger.period.year-end-closed',
  details: string,
) {
  return recordAuditEvent(tx, { tenantId: input.tenantId }, {
    action,
    actorMembershipId: null,
    actorDisplayName: 'Period close',
    systemActor: true,
    correlationId: input.correlationId,
    subjectType: 'PERIOD_CLOSE',
    subjectId: input.closeId,
    ipAddress: null,
    details: details.slice(0, 500),
  });
}

/**
 * The activities of closePeriodWorkflow (started by closePeriod). Every step is idempotent: a worker killed
 * anywhere restarts the step and reaches the same result.
 */
export function createClosePeriodActivities({ db }: ClosePeriodDeps): ClosePeriodActivities {
  /** The cut-off: waits for postings in flight, after which none dated at or before closeDate commits. */
  async function lockClosedPeriod(input: ClosePeriodInput): Promise<{ running: boolean }> {
    return withTenant(db, input.tenantId, async (tx) => {
      await lockLedgerState(tx, scopeOf(input));
      const close = await findPeriodClose(tx, scopeOf(input), { id: input.closeId });
      if (close?.status !== 'RUNNING') return { running: false };
      await raiseCutoff(tx, scopeOf(input), input.closeDate);
      return { running: true };
    });
  }

  async function computeClosingBalances(input: ClosePeriodInput): Promise<{ entryCount: number; accounts: number; total: string }> {
    // A long statement cannot heartbeat by itself; a timer does, so a killed worker is noticed in seconds.
    const beat = setInterval(() => Context.current().heartbeat(), 2000);
    try {
      const result = await withTenant(db, input.tenantId, async (tx) => {
        const totals = await storeSnapshot(tx, scopeOf(input), { id: input.closeId, closeDate: input.closeDate });
        if (totals.debit !== totals.credit) {
          // Rolls the snapshot back: an unbalanced ledger is never frozen.
          throw ApplicationFailure.nonRetryable(`debits ${totals.debit} do not equal credits ${totals.credit}`, FailureType.LedgerUnbalanced);
        }
        return totals;
      });
      return { entryCount: result.entryCount, accounts: result.accounts, total: result.debit };
    } catch (err) {
      // Retrying cannot make a sum fit: the close fails with the reason, and the cut-off is released.
      if (err instanceof NumberOutOfRangeError) {
        throw ApplicationFailure.nonRetryable('an account\'s closing balance exceeds what a snapshot can hold (NUMERIC(22,2))', FailureType.BalancesOverflow);
      }
      throw err;
    } finally {
      clearInterval(beat);
    }
  }

  async function openCloseRevaluation(input: ClosePeriodInput): Promise<{ revaluationId: string; status: 'RUNNING' | 'COMPLETED' }> {
    return withTenant(db, input.tenantId, async (tx) => {
      // Under the ledger row, as postRevaluation inserts: one revaluation per date, found or made here.
      await lockLedgerState(tx, scopeOf(input));
      const existing = await findRevaluation(tx, scopeOf(input), { date: input.closeDate });
      if (existing) return { revaluationId: existing.id, status: existing.status === 'COMPLETED' ? 'COMPLETED' : 'RUNNING' };
      const created = await insertRevaluation(tx, scopeOf(input), {
        id: randomUUID(),
        revaluationDate: input.closeDate,
        requestedBy: 'PERIOD_CLOSE',
        closeId: input.closeId,
        requestedByMembershipId: null,
        correlationId: input.correlationId,
      });
      return { revaluationId: created.id, status: 'RUNNING' };
    });
  }

  async function postYearEndClosing(input: ClosePeriodInput): Promise<{ entries: number }> {
    const beat = setInterval(() => Context.current().heartbeat(), 2000);
    try {
      return await withTenant(db, input.tenantId, async (tx) => {
        const scope = scopeOf(input);
        await lockLedgerState(tx, scope);
        const close = await findPeriodClose(tx, scope, { id: input.closeId });
        if (close?.status !== 'RUNNING') return { entries: 0 };
        const firstId = yearEndRequestId(input.legalEntityId, input.closeDate, 'income-and-expenses');
        if (await findEntry(tx, scope, { requestId: firstId })) return { entries: 0 };
        const year = input.closeDate.slice(0, 4);
        const base = await lastCompletedClose(tx, scope, { atOrBefore: input.closeDate });
        const nets = new Map<string, { accountCode: string; subaccountId: string | null; net: bigint }>();
        for (const r of await balancesThrough(tx, scope, base, input.closeDate, { accountRange: INCOME_AND_EXPENSE_ACCOUNTS })) {
          // Per account and subaccount, whatever the currencies of their lines.
          const key = `${r.account_code}/${r.subaccount_id ?? ''}`;
          const b = nets.get(key) ?? { accountCode: r.account_code, subaccountId: r.subaccount_id, net: 0n };
          b.net += numericToMinorUnits(r.debit_total) - numericToMinorUnits(r.credit_total);
          nets.set(key, b);
        }
        const posted: number[] = [];
        const post = async (requestId: string, description: string, lines: LedgerLine[]) => {
          const total = lines.reduce((sum, l) => sum + numericToMinorUnits(l.debit), 0n);
          const [row] = await selectBatch<Record<string, unknown>>(tx, [
            postJournalEntryStatement(
              scope,
              {
                id: randomUUID(),
                entryDate: input.closeDate,
                description,
                reference: null,
                requestId,
                requestHash: requestHash({ closeId: input.closeId, requestId }),
                reversalOf: null,
                total: formatMinorUnits(total),
                postedByMembershipId: null,
                correlationId: input.correlationId,
                kind: 'YEAR_END_CLOSING',
              },
              lines,
            ),
          ]);
          const outcome = postedEntryOf(row!);
          if (!outcome.postedAt) throw ApplicationFailure.nonRetryable(`the ledger is closed through ${outcome.lockedThrough}`, FailureType.PeriodClosed);
          posted.push(outcome.number);
        };
        const closing = closeIncomeAndExpenses([...nets.values()], year);
        if (closing.length > 0) await post(firstId, `Closing of income and expenses of ${year} into the final result (9910)`, closing);
        const [result] = await balancesThrough(tx, scope, base, input.closeDate, { accountCode: FINAL_RESULT_ACCOUNT });
        const finalResult = (result ? numericToMinorUnits(result.debit_total) - numericToMinorUnits(result.credit_total) : 0n);
        const transfer = transferResult(finalResult, year);
        if (transfer.length > 0) {
          await post(yearEndRequestId(input.legalEntityId, input.closeDate, 'result'), `Final result of ${year} to retained earnings (8710)`, transfer);
        }
        if (posted.length > 0) {
          await recordCloseOutcome(
            tx,
            input,
            'ledger.period.year-end-closed',
            `year ${year} closed: entries ${posted.map((n) => `#${n}`).join(', ')}, result ${formatMinorUnits(-finalResult)} to 8710`,
          );
        }
        return { entries: posted.length };
      });
    } finally {
      clearInterval(beat);
    }
  }

  async function completePeriodClose(input: ClosePeriodInput & { entryCount: number; total: string }): Promise<void> {
    await withTenant(db, input.tenantId, async (tx) => {
      if (!(await markCloseCompleted(tx, scopeOf(input), { id: input.closeId, closeDate: input.closeDate, entryCount: input.entryCount }))) return;
      await recordCloseOutcome(tx, input, 'ledger.period.closed', `closed through ${input.closeDate}: ${input.entryCount} entries, total ${input.total}`);
      // The webhook event commits with the outcome; the start relay starts its deliveries (due at once).
      await recordWebhookEvent(
        tx,
        { tenantId: input.tenantId },
        {
          type: 'period-close.completed',
          data: { closeId: input.closeId, legalEntityId: input.legalEntityId, closeDate: input.closeDate, status: 'COMPLETED', entryCount: input.entryCount, reason: null },
        },
        { taskQueue: Context.current().info.taskQueue, dispatch: 'relay' },
      );
    });
  }

  async function failPeriodClose(input: ClosePeriodInput & { reason: string }): Promise<void> {
    await withTenant(db, input.tenantId, async (tx) => {
      if (!(await markCloseFailed(tx, scopeOf(input), { id: input.closeId, reason: input.reason }))) return;
      await recordCloseOutcome(tx, input, 'ledger.period.close-failed', input.reason);
      await recordWebhookEvent(
        tx,
        { tenantId: input.tenantId },
        {
          type: 'period-close.failed',
          data: { closeId: input.closeId, legalEntityId: input.legalEntityId, closeDate: input.closeDate, status: 'FAILED', entryCount: null, reason: input.reason.slice(0, 500) },
        },
        { taskQueue: Context.current().info.taskQueue, dispatch: 'relay' },
      );
    });
  }

  return { lockClosedPeriod, computeClosingBalances, openCloseRevaluation, postYearEndClosing, completePeriodClose, failPeriodClose };
}
