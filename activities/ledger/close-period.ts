import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { NumberOutOfRangeError } from '../../db/repositories/errors';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { recordWebhookEvent } from '../../db/repositories/webhooks/events';
import { findPeriodClose, lockLedgerState, markCloseCompleted, markCloseFailed, raiseCutoff, storeSnapshot } from '../../db/repositories/ledger/period-closes';
import { FailureType } from '../../contracts/failures';
import type { ClosePeriodActivities, ClosePeriodInput } from '../../contracts/ledger';

export interface ClosePeriodDeps {
  db: Sequelize;
}

const scopeOf = (input: ClosePeriodInput) => ({ tenantId: input.tenantId, legalEntityId: input.legalEntityId });

/** The close's outcome in the audit trail: written by the workflow, so a system event. */
function recordCloseOutcome(tx: Tx, input: ClosePeriodInput, action: 'ledger.period.closed' | 'ledger.period.close-failed', details: string) {
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

  return { lockClosedPeriod, computeClosingBalances, completePeriodClose, failPeriodClose };
}
