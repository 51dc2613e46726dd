import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import { accountInfo, type LedgerScope } from '../../db/repositories/ledger/journal';
import {
  findPeriodClose,
  insertPeriodClose,
  lockLedgerState,
  periodClosesOf,
  raiseCutoff,
  snapshotBalances,
  type PeriodCloseRow,
} from '../../db/repositories/ledger/period-closes';
import { findRevaluation } from '../../db/repositories/ledger/revaluations';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { formatForeignAmount } from '../../core/ledger/currency';
import { closePeriodWorkflowId } from '../../contracts/workflow-ids';
import { CLOSE_PERIOD_WORKFLOW, type ClosePeriodWorkflow } from '../../contracts/ledger';
import { foreignBalance, normalBalance, normalSideOf, type AccountType } from '../../core/ledger/accounts';
import type { WorkflowClient } from '../workflow-client';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';

type PeriodClose = Schemas['PeriodClose'];

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Period closes: requested here (closePeriod), carried out by closePeriodWorkflow (close-period-<legalEntityId>-<closeDate>). */
export function createPeriodCloses(deps: { companies: CompanyScopes; workflows: WorkflowClient }) {
  const { companies } = deps;

  /** A close as the API shows it; the balances of its snapshot once it is COMPLETED, none before. */
  async function toView(tx: Tx, scope: LedgerScope, row: PeriodCloseRow): Promise<PeriodClose> {
    const snapshot = row.status === 'COMPLETED' ? await snapshotBalances(tx, scope, row.id) : [];
    const info = await accountInfo(tx, scope, [...new Set(snapshot.map((r) => r.account_code))]);
    return {
      id: row.id,
      closeDate: row.closeDate,
      status: row.status,
      requestedAt: row.requestedAt.toISOString(),
      completedAt: row.completedAt?.toISOString() ?? null,
      entryCount: row.entryCount,
      failureReason: row.failureReason,
      balances: snapshot.map((b) => {
        const type = info.get(b.account_code)?.type as AccountType | undefined;
        const debit = numericToMinorUnits(b.debit_total);
        const credit = numericToMinorUnits(b.credit_total);
        return {
          accountCode: b.account_code,
          subaccountId: b.subaccount_id,
          currency: b.currency,
          currencyBalance: b.currency === null ? null : formatForeignAmount(foreignBalance(type, b.currency_balance!), b.currency),
          debitTotal: formatMinorUnits(debit),
          creditTotal: formatMinorUnits(credit),
          balance: formatMinorUnits(normalBalance(type, debit, credit)),
          normalSide: type ? normalSideOf(type) : 'DEBIT',
        };
      }),
    };
  }

  /**
   * Starts closing the period through `closeDate`. From this commit on no posting dated at or before it can
   * commit (the cut-off moves in the same transaction that records the close); the workflow does the rest.
   */
  async function closePeriod(principal: Principal, legalEntityId: string, input: Schemas['PeriodCloseRequest'], ctx: RequestContext): Promise<PeriodClose> {
    if (input.closeDate >= todayUtc()) {
      throw new AppError('validation', 'Only a period that has ended can be closed: closeDate must be before today (UTC)', {
        errors: [{ path: '/body/closeDate', message: 'must be before today' }],
      });
    }
    const outcome = await companies.change(principal, legalEntityId, async (tx, scope) => {
      const replay = await findPeriodClose(tx, scope, { requestId: input.requestId });
      if (replay) {
        if (replay.closeDate !== input.closeDate) throw new AppError('request-id-reused', 'This requestId was used for another close date');
        return { view: await toView(tx, scope, replay), created: false };
      }
      const state = await lockLedgerState(tx, scope);
      const running = await findPeriodClose(tx, scope, { running: true });
      if (running) throw new AppError('period-close-running', `The close through ${running.closeDate} is still running`, { closeId: running.id });
      const revaluation = await findRevaluation(tx, scope, { running: true });
      if (revaluation) {
        throw new AppError('revaluation-running', `The revaluation at ${revaluation.revaluationDate} is still running`, { revaluationId: revaluation.id });
      }
      if (state.lastClosedDate && input.closeDate <= state.lastClosedDate) {
        throw new AppError('period-already-closed', `The ledger is closed through ${state.lastClosedDate}; close a later date`, {
          closedThrough: state.lastClosedDate,
        });
      }
      const id = randomUUID();
      const row = await insertPeriodClose(tx, scope, {
        id,
        closeDate: input.closeDate,
        requestId: input.requestId,
        requestedByMembershipId: principal.membershipId,
        correlationId: ctx.correlationId,
      });
      await raiseCutoff(tx, scope, input.closeDate);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'ledger.period.close-requested',
        subjectType: 'PERIOD_CLOSE',
        subjectId: id,
        details: `close through ${input.closeDate}`,
      });
      // The workflow start commits with the close: the raised cut-off can never be left without its workflow.
      await deps.workflows.enqueue<ClosePeriodWorkflow>(tx, CLOSE_PERIOD_WORKFLOW, {
        workflowId: closePeriodWorkflowId(legalEntityId, input.closeDate),
        args: [{ tenantId: principal.tenantId, legalEntityId, closeId: id, closeDate: input.closeDate, correlationId: ctx.correlationId }],
        tenantId: principal.tenantId,
        // A failed close may be requested again for the same date: the id may run again once its run ended.
        idReusePolicy: 'ALLOW_DUPLICATE',
      });
      return { view: await toView(tx, scope, row), created: true };
    });
    // Started now if Temporal answers; otherwise the relay starts it. A retried request re-drives it too.
    await deps.workflows.dispatch({ workflowId: closePeriodWorkflowId(legalEntityId, outcome.view.closeDate) });
    return outcome.view;
  }

  async function getPeriodClose(principal: Principal, legalEntityId: string, closeId: string): Promise<PeriodClose> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const row = await findPeriodClose(tx, scope, { id: closeId });
      if (!row) throw new AppError('not-found', 'No period close with this id in this company');
      return toView(tx, scope, row);
    });
  }

  async function listPeriodCloses(principal: Principal, legalEntityId: string): Promise<PeriodClose[]> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const rows = await periodClosesOf(tx, scope);
      // Sequential: one transaction's connection runs one query at a time.
      const views: PeriodClose[] = [];
      for (const r of rows) views.push(await toView(tx, scope, r));
      return views;
    });
  }

  return { closePeriod, getPeriodClose, listPeriodCloses };
}
