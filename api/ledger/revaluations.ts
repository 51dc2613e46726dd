import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import { DuplicateRowError } from '../../db/repositories/errors';
import { linesOf, type LedgerScope } from '../../db/repositories/ledger/journal';
import { findPeriodClose, lockLedgerState } from '../../db/repositories/ledger/period-closes';
import { findRevaluation, insertRevaluation, revaluationsOf, type RevaluationRow } from '../../db/repositories/ledger/revaluations';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { canonical, tashkentDate } from '../../core/rates/rates';
import { postRevaluationWorkflowId } from '../../contracts/workflow-ids';
import { POST_REVALUATION_WORKFLOW, type PostRevaluationWorkflow } from '../../contracts/ledger';
import type { WorkflowClient } from '../workflow-client';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';

type Revaluation = Schemas['Revaluation'];

/** Revaluations of foreign-currency balances: requested here (postRevaluation), carried out by postRevaluationWorkflow (revaluation-<legalEntityId>-<date>). */
export function createRevaluations(deps: { companies: CompanyScopes; workflows: WorkflowClient }) {
  const { companies } = deps;

  /** A revaluation as the API shows it, with the adjustments of its entry (its lines on the monetary accounts). */
  async function toView(tx: Tx, scope: LedgerScope, row: RevaluationRow): Promise<Revaluation> {
    const lines = row.entryId ? await linesOf(tx, scope, [row.entryId]) : [];
    return {
      id: row.id,
      revaluationDate: row.revaluationDate,
      status: row.status,
      requestedBy: row.requestedBy,
      closeId: row.closeId,
      entryId: row.entryId,
      gainTotal: row.gainTotal === null ? null : formatMinorUnits(numericToMinorUnits(row.gainTotal)),
      lossTotal: row.lossTotal === null ? null : formatMinorUnits(numericToMinorUnits(row.lossTotal)),
      adjustments: lines
        .filter((l) => l.currency !== null)
        .map((l) => ({
          accountCode: l.account_code,
          subaccountId: l.subaccount_id,
          currency: l.currency!,
          rate: canonical(l.rate!),
          rateDate: l.rate_date!,
          difference: formatMinorUnits(numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit)),
        })),
      failureReason: row.failureReason,
      requestedAt: row.requestedAt.toISOString(),
      completedAt: row.completedAt?.toISOString() ?? null,
    };
  }

  /**
   * Starts revaluing the company's foreign balances at the date, once per date: a date already revalued (or
   * being revalued) answers that revaluation. The workflow start commits with the revaluation row.
   */
  async function postRevaluation(
    principal: Principal,
    legalEntityId: string,
    input: Schemas['RevaluationRequest'],
    ctx: RequestContext,
  ): Promise<{ view: Revaluation; created: boolean }> {
    const date = input.revaluationDate;
    if (date > tashkentDate(new Date())) {
      throw new AppError('validation', 'A revaluation date must not be in the future (Tashkent)', {
        errors: [{ path: '/body/revaluationDate', message: 'must be today or earlier (Asia/Tashkent)' }],
      });
    }
    const attempt = () =>
      companies.change(principal, legalEntityId, async (tx, scope) => {
        const state = await lockLedgerState(tx, scope);
        const existing = await findRevaluation(tx, scope, { date });
        if (existing) return { view: await toView(tx, scope, existing), created: false };
        const close = await findPeriodClose(tx, scope, { running: true });
        if (close) throw new AppError('period-close-running', `The close through ${close.closeDate} is running; it revalues at its date`, { closeId: close.id });
        if (state.lockedThrough && date <= state.lockedThrough) {
          throw new AppError('period-closed', `The ledger is closed through ${state.lockedThrough}; revalue a later date`, { closedThrough: state.lockedThrough });
        }
        const running = await findRevaluation(tx, scope, { running: true });
        if (running) {
          throw new AppError('revaluation-running', `The revaluation at ${running.revaluationDate} is still running`, { revaluationId: running.id });
        }
        const later = await findRevaluation(tx, scope, { after: date });
        if (later) {
          throw new AppError('revaluation-out-of-order', `The balances were revalued at ${later.revaluationDate}; revalue that date or a later one`, {
            revaluationId: later.id,
            revaluationDate: later.revaluationDate,
          });
        }
        const id = randomUUID();
        const row = await insertRevaluation(tx, scope, {
          id,
          revaluationDate: date,
          requestedBy: 'REQUEST',
          closeId: null,
          requestedByMembershipId: principal.membershipId,
          correlationId: ctx.correlationId,
        });
        await recordCallerEvent(tx, principal, ctx, {
          action: 'ledger.revaluation.requested',
          subjectType: 'REVALUATION',
          subjectId: id,
          details: `revalue foreign-currency balances at ${date}`,
        });
        await deps.workflows.enqueue<PostRevaluationWorkflow>(tx, POST_REVALUATION_WORKFLOW, {
          workflowId: postRevaluationWorkflowId(legalEntityId, date),
          args: [{ tenantId: principal.tenantId, legalEntityId, revaluationId: id, revaluationDate: date, correlationId: ctx.correlationId }],
          tenantId: principal.tenantId,
          // A failed revaluation may be requested again for the same date once its run ended.
          idReusePolicy: 'ALLOW_DUPLICATE',
        });
        return { view: await toView(tx, scope, row), created: true };
      });
    let outcome: { view: Revaluation; created: boolean };
    try {
      outcome = await attempt();
    } catch (err) {
      // Two requests for one date at once: the second finds the first's.
      if (!(err instanceof DuplicateRowError)) throw err;
      outcome = await attempt();
    }
    if (outcome.created) await deps.workflows.dispatch({ workflowId: postRevaluationWorkflowId(legalEntityId, date) });
    return outcome;
  }

  async function getRevaluation(principal: Principal, legalEntityId: string, revaluationId: string): Promise<Revaluation> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const row = await findRevaluation(tx, scope, { id: revaluationId });
      if (!row) throw new AppError('not-found', 'No revaluation with this id in this company');
      return toView(tx, scope, row);
    });
  }

  async function listRevaluations(principal: Principal, legalEntityId: string): Promise<Revaluation[]> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const rows = await revaluationsOf(tx, scope);
      const views: Revaluation[] = [];
      for (const r of rows) views.push(await toView(tx, scope, r));
      return views;
    });
  }

  return { postRevaluation, getRevaluation, listRevaluations };
}
