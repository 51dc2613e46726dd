import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { selectBatch, withTenant, type Tx } from '../../db/connection';
import { LedgerRuleError } from '../../db/repositories/errors';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { journalEntryEventStatement } from '../../db/repositories/webhooks/events';
import { postJournalEntryStatement, postedEntryOf } from '../../db/repositories/ledger/journal';
import { lockLedgerState } from '../../db/repositories/ledger/period-closes';
import { findRevaluation, markRevaluationCompleted, markRevaluationFailed, monetaryForeignBalances } from '../../db/repositories/ledger/revaluations';
import { cbuRatesOn } from '../../db/repositories/rates/rates';
import { formatMinorUnits } from '../../core/ledger/money';
import { planRevaluation, revaluationRequestId, undoAtLaterRevaluation } from '../../core/ledger/revaluation';
import { requestHash } from '../../core/ledger/journal';
import { FailureType } from '../../contracts/failures';
import type { PostRevaluationActivities, PostRevaluationInput } from '../../contracts/ledger';

export interface PostRevaluationDeps {
  db: Sequelize;
}

const scopeOf = (input: PostRevaluationInput) => ({ tenantId: input.tenantId, legalEntityId: input.legalEntityId });

/** The revaluation's outcome in the audit trail: written by the workflow, so a system event. */
function recordOutcome(tx: Tx, input: PostRevaluationInput, action: 'ledger.revaluation.posted' | 'ledger.revaluation.failed', details: string) {
  return recordAuditEvent(tx, { tenantId: input.tenantId }, {
    action,
    actorMembershipId: null,
    actorDisplayName: 'Currency revaluation',
    systemActor: true,
    correlationId: input.correlationId,
    subjectType: 'REVALUATION',
    subjectId: input.revaluationId,
    ipAddress: null,
    details: details.slice(0, 500),
  });
}

const closedFailure = (date: string) => ApplicationFailure.nonRetryable(`the ledger is closed through ${date} or later`, FailureType.PeriodClosed);

/** The activities of postRevaluationWorkflow (started by postRevaluation and by closePeriodWorkflow). */
export function createPostRevaluationActivities({ db }: PostRevaluationDeps): PostRevaluationActivities {
  async function postRevaluationEntry(input: PostRevaluationInput) {
    // The sums of many lines take a while: a timer heartbeats, so a killed worker is noticed in seconds.
    const beat = setInterval(() => Context.current().heartbeat(), 2000);
    try {
      return await withTenant(db, input.tenantId, async (tx) => {
        const scope = scopeOf(input);
        // Postings wait from here to commit: the balances read are the ones the entry adjusts.
        const state = await lockLedgerState(tx, scope);
        const revaluation = await findRevaluation(tx, scope, { id: input.revaluationId });
        if (revaluation?.status !== 'RUNNING') return { settled: true, entryId: revaluation?.entryId ?? null, gainTotal: '0.00', lossTotal: '0.00' };
        // A close's own revaluation is dated its close date, which the close holds; anything else must be open.
        const ownClose = revaluation.requestedBy === 'PERIOD_CLOSE' && state.lockedThrough === input.revaluationDate;
        if (state.lockedThrough && input.revaluationDate <= state.lockedThrough && !ownClose) throw closedFailure(state.lockedThrough);

        const balances = await monetaryForeignBalances(tx, scope, input.revaluationDate);
        const rates = await cbuRatesOn(tx, [...new Set(balances.map((b) => b.currency))], input.revaluationDate);
        let plan;
        try {
          plan = planRevaluation(balances, rates);
        } catch (err) {
          if (err instanceof RangeError) throw ApplicationFailure.nonRetryable(`a revalued balance exceeds what an amount can hold: ${err.message}`, FailureType.BalancesOverflow);
          throw err;
        }
        if (plan.kind === 'missing-rates') {
          throw ApplicationFailure.nonRetryable(
            `rate-unavailable: no CBU rate is stored for ${plan.currencies.join(', ')} on or before ${input.revaluationDate}`,
            FailureType.RateUnavailable,
          );
        }
        if (plan.kind === 'nothing-to-post') {
          await markRevaluationCompleted(tx, scope, { id: input.revaluationId, entryId: null, gainTotal: '0.00', lossTotal: '0.00' });
          await recordOutcome(tx, input, 'ledger.revaluation.posted', `at ${input.revaluationDate}: every foreign balance is at its rate; nothing posted`);
          return { settled: false, entryId: null, gainTotal: '0.00', lossTotal: '0.00' };
        }
        const entryId = randomUUID();
        const [posted] = await selectBatch<Record<string, unknown>>(tx, [
          postJournalEntryStatement(
            scope,
            {
              id: entryId,
              entryDate: input.revaluationDate,
              description: `Revaluation of foreign-currency balances at ${input.revaluationDate} (NAS 22)`,
              reference: null,
              requestId: revaluationRequestId(input.legalEntityId, input.revaluationDate),
              requestHash: requestHash({ revaluationId: input.revaluationId }),
              reversalOf: null,
              total: formatMinorUnits(plan.total),
              postedByMembershipId: null,
              correlationId: input.correlationId,
              kind: 'REVALUATION',
            },
            plan.lines,
          ),
          // Started by the relay once committed (an activity has no workflow client).
          journalEntryEventStatement(scope, { type: 'revaluation.posted', entryId }, { taskQueue: Context.current().info.taskQueue, dispatch: 'relay' }),
        ]);
        const { number, postedAt, lockedThrough } = postedEntryOf(posted!);
        if (!postedAt) throw closedFailure(lockedThrough ?? input.revaluationDate);
        // A close's revaluation may come after a later date was revalued on request: that revaluation set the
        // balances to its rate without these adjustments, so they are taken back out on its date (else the
        // difference would count twice there).
        const later = await findRevaluation(tx, scope, { after: input.revaluationDate });
        let undone = '';
        if (later) {
          const [undo] = await selectBatch<Record<string, unknown>>(tx, [
            postJournalEntryStatement(
              scope,
              {
                id: randomUUID(),
                entryDate: later.revaluationDate,
                description: `Takes back the revaluation at ${input.revaluationDate}: balances revalued at ${later.revaluationDate} before it`,
                reference: null,
                requestId: revaluationRequestId(input.legalEntityId, input.revaluationDate, 'undone-later'),
                requestHash: requestHash({ revaluationId: input.revaluationId, undoneAt: later.revaluationDate }),
                reversalOf: null,
                total: formatMinorUnits(plan.total),
                postedByMembershipId: null,
                correlationId: input.correlationId,
                kind: 'REVALUATION',
              },
              undoAtLaterRevaluation(plan.lines, input.revaluationDate, later.revaluationDate),
            ),
          ]);
          const taken = postedEntryOf(undo!);
          if (!taken.postedAt) throw closedFailure(taken.lockedThrough ?? later.revaluationDate);
          undone = `; taken back out at ${later.revaluationDate} (entry #${taken.number}), which was revalued first`;
        }
        const gainTotal = formatMinorUnits(plan.gain);
        const lossTotal = formatMinorUnits(plan.loss);
        await markRevaluationCompleted(tx, scope, { id: input.revaluationId, entryId, gainTotal, lossTotal });
        await recordOutcome(
          tx,
          input,
          'ledger.revaluation.posted',
          `at ${input.revaluationDate}: entry #${number}, ${plan.adjustments.length} balances adjusted, gain ${gainTotal}, loss ${lossTotal}${undone}`,
        );
        return { settled: false, entryId, gainTotal, lossTotal };
      });
    } catch (err) {
      if (err instanceof LedgerRuleError && err.rule === 'period-closed') throw closedFailure(input.revaluationDate);
      throw err;
    } finally {
      clearInterval(beat);
    }
  }

  async function failRevaluation(input: PostRevaluationInput & { reason: string }): Promise<void> {
    await withTenant(db, input.tenantId, async (tx) => {
      if (!(await markRevaluationFailed(tx, scopeOf(input), { id: input.revaluationId, reason: input.reason }))) return;
      await recordOutcome(tx, input, 'ledger.revaluation.failed', `at ${input.revaluationDate}: ${input.reason}`);
    });
  }

  return { postRevaluationEntry, failRevaluation };
}
