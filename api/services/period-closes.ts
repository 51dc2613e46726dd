import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { accountInfo, type LedgerScope } from '../../db/repositories/ledger';
import {
  balancesThrough,
  findPeriodClose,
  insertPeriodClose,
  lastCompletedClose,
  listPeriodCloses,
  lockLedgerState,
  raiseCutoff,
  snapshotBalances,
  type BalanceRow,
  type PeriodCloseRow,
} from '../../db/repositories/period-closes';
import { AppError } from '../../core/problems';
import { formatMinorUnits, numericToMinorUnits } from '../../core/money';
import type { AccountType } from '../../db/seeds/nas21-chart-of-accounts';
import { periodCloseWorkflowId } from '../../workflows/ids';
import { TENANT_ID } from '../../workflows/search-attributes';
import type { periodCloseWorkflow } from '../../workflows/period-close.workflow';
import { normalSideOf } from './chart-of-accounts';
import type { WorkflowRunner } from '../workflow-runner';
import { recordCallerEvent } from './caller-audit';
import type { Principal, RequestContext } from '../context';
import { requireChangeableCompany, requireCompany } from './company-access';

export interface PeriodCloseView {
  id: string;
  closeDate: string;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  requestedAt: string;
  completedAt: string | null;
  entryCount: number | null;
  failureReason: string | null;
  balances: Array<{ accountCode: string; subaccountId: string | null; debitTotal: string; creditTotal: string; balance: string; normalSide: string }>;
}

/** The balance on the account's normal side: debits minus credits for debit-side accounts, else the reverse. */
function normalBalance(type: AccountType | undefined, debit: bigint, credit: bigint): bigint {
  return type && normalSideOf(type) === 'CREDIT' ? credit - debit : debit - credit;
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

export function createPeriodCloseService(deps: { db: Sequelize; workflows: WorkflowRunner; taskQueue: string }) {
  const { db } = deps;
  const scopeOf = (principal: Principal, legalEntityId: string): LedgerScope => ({ tenantId: principal.tenantId, legalEntityId });

  async function typesOf(tx: Tx, scope: LedgerScope, rows: BalanceRow[]) {
    return accountInfo(db, tx, scope, [...new Set(rows.map((r) => r.account_code))]);
  }

  /** A close as the API shows it; the balances of its snapshot once it is COMPLETED, none before. */
  async function toView(tx: Tx, scope: LedgerScope, row: PeriodCloseRow): Promise<PeriodCloseView> {
    const snapshot = row.status === 'COMPLETED' ? await snapshotBalances(db, tx, scope, row.id) : [];
    const info = await typesOf(tx, scope, snapshot);
    return {
      id: row.id,
      closeDate: row.close_date,
      status: row.status,
      requestedAt: row.requested_at.toISOString(),
      completedAt: row.completed_at?.toISOString() ?? null,
      entryCount: row.entry_count === null ? null : Number(row.entry_count),
      failureReason: row.failure_reason,
      balances: snapshot.map((b) => {
        const type = info.get(b.account_code)?.type as AccountType | undefined;
        const debit = numericToMinorUnits(b.debit_total);
        const credit = numericToMinorUnits(b.credit_total);
        return {
          accountCode: b.account_code,
          subaccountId: b.subaccount_id,
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
  async function requestClose(principal: Principal, legalEntityId: string, input: { requestId: string; closeDate: string }, ctx: RequestContext) {
    const scope = scopeOf(principal, legalEntityId);
    if (input.closeDate >= todayUtc()) {
      throw new AppError('validation', 'Only a period that has ended can be closed: closeDate must be before today (UTC)', {
        errors: [{ path: '/body/closeDate', message: 'must be before today' }],
      });
    }
    const outcome = await withTenant(db, scope.tenantId, async (tx) => {
      await requireChangeableCompany(db, tx, principal, legalEntityId);
      const replay = await findPeriodClose(db, tx, scope, { requestId: input.requestId });
      if (replay) {
        if (replay.close_date !== input.closeDate) throw new AppError('request-id-reused', 'This requestId was used for another close date');
        return { view: await toView(tx, scope, replay), created: false };
      }
      const state = await lockLedgerState(db, tx, scope);
      const running = await findPeriodClose(db, tx, scope, { running: true });
      if (running) throw new AppError('period-close-running', `The close through ${running.close_date} is still running`, { closeId: running.id });
      if (state.lastClosedDate && input.closeDate <= state.lastClosedDate) {
        throw new AppError('period-already-closed', `The ledger is closed through ${state.lastClosedDate}; close a later date`, {
          closedThrough: state.lastClosedDate,
        });
      }
      const id = randomUUID();
      await insertPeriodClose(db, tx, scope, { id, closeDate: input.closeDate, requestId: input.requestId, requestedByMembershipId: principal.membershipId, correlationId: ctx.correlationId });
      await raiseCutoff(db, tx, scope, input.closeDate);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'ledger.period.close-requested',
        subjectType: 'PERIOD_CLOSE',
        subjectId: id,
        details: `close through ${input.closeDate}`,
      });
      const row = (await findPeriodClose(db, tx, scope, { id }))!;
      return { view: await toView(tx, scope, row), created: true };
    });
    if (outcome.created) {
      await deps.workflows.start<typeof periodCloseWorkflow>('periodCloseWorkflow', {
        workflowId: periodCloseWorkflowId(legalEntityId, input.closeDate),
        taskQueue: deps.taskQueue,
        args: [{ tenantId: scope.tenantId, legalEntityId, closeId: outcome.view.id, closeDate: input.closeDate, correlationId: ctx.correlationId }],
        typedSearchAttributes: [{ key: TENANT_ID, value: scope.tenantId }],
      });
    }
    return outcome.view;
  }

  async function get(principal: Principal, legalEntityId: string, closeId: string): Promise<PeriodCloseView> {
    const scope = scopeOf(principal, legalEntityId);
    return withTenant(db, scope.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      const row = await findPeriodClose(db, tx, scope, { id: closeId });
      if (!row) throw new AppError('not-found', 'No period close with this id in this company');
      return toView(tx, scope, row);
    });
  }

  async function list(principal: Principal, legalEntityId: string): Promise<PeriodCloseView[]> {
    const scope = scopeOf(principal, legalEntityId);
    return withTenant(db, scope.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      const rows = await listPeriodCloses(db, tx, scope);
      // Sequential: one transaction's connection runs one query at a time.
      const views: PeriodCloseView[] = [];
      for (const r of rows) views.push(await toView(tx, scope, r));
      return views;
    });
  }

  /** The last completed snapshot at or before `asOf` plus the lines after it, per account. */
  async function trialBalance(principal: Principal, legalEntityId: string, asOf: string) {
    const scope = scopeOf(principal, legalEntityId);
    return withTenant(db, scope.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      const base = await lastCompletedClose(db, tx, scope, { atOrBefore: asOf });
      const rows = await balancesThrough(db, tx, scope, base, asOf);
      const perAccount = new Map<string, { debit: bigint; credit: bigint }>();
      for (const r of rows) {
        const sum = perAccount.get(r.account_code) ?? { debit: 0n, credit: 0n };
        sum.debit += numericToMinorUnits(r.debit_total);
        sum.credit += numericToMinorUnits(r.credit_total);
        perAccount.set(r.account_code, sum);
      }
      const info = await accountInfo(db, tx, scope, [...perAccount.keys()]);
      let totalDebit = 0n;
      let totalCredit = 0n;
      const lines = [...perAccount.entries()].map(([code, sum]) => {
        totalDebit += sum.debit;
        totalCredit += sum.credit;
        const account = info.get(code);
        const type = account?.type as AccountType | undefined;
        return {
          code,
          name: account?.name ?? '',
          type: type ?? 'ASSET',
          debit: formatMinorUnits(sum.debit),
          credit: formatMinorUnits(sum.credit),
          balance: formatMinorUnits(normalBalance(type, sum.debit, sum.credit)),
        };
      });
      return {
        asOf,
        basedOnCloseId: base?.id ?? null,
        lines,
        totalDebit: formatMinorUnits(totalDebit),
        totalCredit: formatMinorUnits(totalCredit),
      };
    });
  }

  return { requestClose, get, list, trialBalance };
}
