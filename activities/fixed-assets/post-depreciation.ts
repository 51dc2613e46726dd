import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { selectBatch, withTenant, type Statement, type Tx } from '../../db/connection';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { journalEntryEventStatement } from '../../db/repositories/webhooks/events';
import { postJournalEntryStatement, postedEntryOf, type PostedLine } from '../../db/repositories/ledger/journal';
import { lockLedgerState } from '../../db/repositories/ledger/period-closes';
import { accountBalanceThrough, assetsToDepreciate, chargesStatement, recordDepreciation, type AssetCharge } from '../../db/repositories/fixed-assets/assets';
import { DEFAULT_DISPOSAL_ACCOUNT, GAIN_ACCOUNT, LOSS_ACCOUNT } from '../../core/fixed-assets/assets';
import { addMonths, chargesDue, lastDayOf, monthOf } from '../../core/fixed-assets/depreciation';
import { formatMinorUnits, toMinorUnits } from '../../core/ledger/money';
import { requestHash, systemRequestId } from '../../core/ledger/journal';
import { FailureType } from '../../contracts/failures';
import type { DepreciationMonth, PostDepreciationActivities, PostDepreciationInput } from '../../contracts/fixed-assets';

export interface PostDepreciationDeps {
  db: Sequelize;
}

/** The last month a close through `closeDate` charges: its own month when it closes on the month's last day, else the month before. */
export function lastMonthClosedBy(closeDate: string): string {
  const month = monthOf(closeDate);
  return lastDayOf(month) === closeDate ? month : addMonths(month, -1);
}

interface MonthCharges {
  /** Per expense account, what the month charges to it. */
  expenses: Map<string, bigint>;
  /** A credit of its depreciation account per asset. */
  credits: PostedLine[];
  total: bigint;
  charges: AssetCharge[];
}

const lineOf = (lineNo: number, accountCode: string, debit: string, credit: string, memo: string): PostedLine => ({
  lineNo,
  accountCode,
  subaccountId: null,
  counterpartyId: null,
  debit,
  credit,
  memo,
  currency: null,
  currencyAmount: null,
  rate: null,
  rateSource: null,
  rateDate: null,
});

/**
 * A month's lines: one debit per expense account (the sum of its assets' charges), then a credit of its
 * depreciation account per asset, named by its inventory number: the entry stays readable and half as long.
 */
function monthLines(month: MonthCharges): PostedLine[] {
  const debits = [...month.expenses].sort(([a], [b]) => a.localeCompare(b));
  return [
    ...debits.map(([account, amount], i) => lineOf(i + 1, account, formatMinorUnits(amount), '0.00', 'Depreciation charge')),
    ...month.credits.map((line, i) => ({ ...line, lineNo: debits.length + i + 1 })),
  ];
}

/**
 * Moves the balance of 9210 (the disposals' net book values against their proceeds) through the close's date to
 * 9310 (a gain, a credit balance) or 9430 (a loss), in one DISPOSAL system entry on that date; nothing when it is
 * zero, so a retry (which finds it moved) or a repeated close posts nothing.
 */
async function closeDisposalResult(tx: Tx, scope: { tenantId: string; legalEntityId: string }, input: PostDepreciationInput): Promise<void> {
  const balance = await accountBalanceThrough(tx, scope, DEFAULT_DISPOSAL_ACCOUNT, input.closeDate);
  if (balance === 0n) return;
  const amount = formatMinorUnits(balance < 0n ? -balance : balance);
  const gain = balance < 0n;
  const lines: PostedLine[] = gain
    ? [lineOf(1, DEFAULT_DISPOSAL_ACCOUNT, amount, '0.00', 'Gain on disposal of fixed assets'), lineOf(2, GAIN_ACCOUNT, '0.00', amount, 'Gain on disposal of fixed assets')]
    : [lineOf(1, LOSS_ACCOUNT, amount, '0.00', 'Loss on disposal of fixed assets'), lineOf(2, DEFAULT_DISPOSAL_ACCOUNT, '0.00', amount, 'Loss on disposal of fixed assets')];
  const [posted] = await selectBatch<Record<string, unknown>>(tx, [
    postJournalEntryStatement(
      scope,
      {
        id: randomUUID(),
        entryDate: input.closeDate,
        description: `Result of fixed-asset disposals through ${input.closeDate}: a ${gain ? 'gain' : 'loss'} of ${amount}`,
        reference: null,
        requestId: systemRequestId(`disposal-result:${input.legalEntityId}:${input.closeDate}:${input.closeId}`),
        requestHash: requestHash({ disposalResult: input.closeDate, closeId: input.closeId }),
        reversalOf: null,
        total: amount,
        postedByMembershipId: null,
        correlationId: input.correlationId,
        kind: 'DISPOSAL',
      },
      lines,
    ),
  ]);
  const { number, postedAt, lockedThrough } = postedEntryOf(posted!);
  if (!postedAt) throw ApplicationFailure.nonRetryable(`the ledger is closed through ${lockedThrough ?? input.closeDate}: the disposal result cannot be moved`, FailureType.PeriodClosed);
  await recordAuditEvent(tx, { tenantId: input.tenantId }, {
    action: 'fixed-asset.disposals-closed',
    actorMembershipId: null,
    actorDisplayName: 'Period close',
    systemActor: true,
    correlationId: input.correlationId,
    subjectType: 'PERIOD_CLOSE',
    subjectId: input.closeId,
    ipAddress: null,
    details: `entry #${number}: ${gain ? 'gain' : 'loss'} of ${amount} from ${DEFAULT_DISPOSAL_ACCOUNT} to ${gain ? GAIN_ACCOUNT : LOSS_ACCOUNT}`,
  });
}

/** The activity of postDepreciationWorkflow (a child of closePeriodWorkflow). */
export function createPostDepreciationActivities({ db }: PostDepreciationDeps): PostDepreciationActivities {
  async function postDepreciationEntries(input: PostDepreciationInput): Promise<DepreciationMonth[]> {
    const beat = setInterval(() => Context.current().heartbeat(), 2000);
    try {
      return await withTenant(db, input.tenantId, async (tx) => {
        const scope = { tenantId: input.tenantId, legalEntityId: input.legalEntityId };
        // Postings wait from here to commit; the close holds the cut-off at its date.
        const state = await lockLedgerState(tx, scope);
        if (state.lockedThrough !== input.closeDate || (state.lastClosedDate !== null && state.lastClosedDate >= input.closeDate)) {
          throw ApplicationFailure.nonRetryable(`the close through ${input.closeDate} is not running (cut-off ${state.lockedThrough ?? 'none'})`, FailureType.PeriodClosed);
        }
        const through = lastMonthClosedBy(input.closeDate);
        // Held in id order; listed on the entries by inventory number.
        const assets = (await assetsToDepreciate(tx, scope, through)).sort((a, b) => (a.inventoryNumber < b.inventoryNumber ? -1 : a.inventoryNumber > b.inventoryNumber ? 1 : 0));
        const byMonth = new Map<string, MonthCharges>();
        const charged: Array<{ id: string; through: string; accumulated: string; full: boolean }> = [];
        for (const asset of assets) {
          const due = chargesDue({ cost: asset.cost, salvageValue: asset.salvageValue, usefulLifeMonths: asset.usefulLifeMonths, commissionedOn: asset.commissionedOn! }, asset.depreciatedThrough, through);
          if (due.length === 0) continue;
          for (const c of due) {
            const amount = toMinorUnits(c.charge);
            if (amount === 0n) continue;
            const month = byMonth.get(c.month) ?? { expenses: new Map<string, bigint>(), credits: [], total: 0n, charges: [] };
            month.expenses.set(asset.expenseAccount, (month.expenses.get(asset.expenseAccount) ?? 0n) + amount);
            month.credits.push(lineOf(0, asset.depreciationAccount, '0.00', c.charge, `${asset.inventoryNumber} ${asset.name}`.slice(0, 500)));
            month.total += amount;
            month.charges.push({ assetId: asset.id, month: c.month, amount: c.charge });
            byMonth.set(c.month, month);
          }
          const last = due.at(-1)!;
          const depreciable = toMinorUnits(asset.cost) - toMinorUnits(asset.salvageValue);
          charged.push({ id: asset.id, through: last.month, accumulated: last.accumulated, full: toMinorUnits(last.accumulated) === depreciable });
        }

        const months: DepreciationMonth[] = [];
        const taskQueue = Context.current().info.taskQueue;
        for (const [month, charges] of [...byMonth].sort(([a], [b]) => a.localeCompare(b))) {
          const entryId = randomUUID();
          const entryDate = lastDayOf(month);
          const statements: Statement[] = [
            postJournalEntryStatement(
              scope,
              {
                id: entryId,
                entryDate,
                description: `Depreciation of fixed assets for ${month} (NAS 5, straight line)`,
                reference: null,
                // One entry per company, month and close: a retry finds the assets charged and posts nothing.
                requestId: systemRequestId(`depreciation:${input.legalEntityId}:${month}:${input.closeId}`),
                requestHash: requestHash({ depreciation: month, closeId: input.closeId }),
                reversalOf: null,
                total: formatMinorUnits(charges.total),
                postedByMembershipId: null,
                correlationId: input.correlationId,
                kind: 'DEPRECIATION',
              },
              monthLines(charges),
            ),
            // Started by the relay once committed (an activity has no workflow client).
            journalEntryEventStatement(scope, { type: 'depreciation.posted', entryId }, { taskQueue, dispatch: 'relay' }),
            // The subledger: each asset's charge of the month, by this entry.
            chargesStatement(scope, { id: entryId, date: entryDate }, charges.charges),
          ];
          const [posted] = await selectBatch<Record<string, unknown>>(tx, statements);
          const { number, postedAt, lockedThrough } = postedEntryOf(posted!);
          if (!postedAt) throw ApplicationFailure.nonRetryable(`the ledger is closed through ${lockedThrough ?? input.closeDate}: ${month} cannot be charged`, FailureType.PeriodClosed);
          months.push({ month, entryId, assets: charges.charges.length, total: formatMinorUnits(charges.total) });
          await recordAuditEvent(tx, { tenantId: input.tenantId }, {
            action: 'fixed-asset.depreciated',
            actorMembershipId: null,
            actorDisplayName: 'Period close',
            systemActor: true,
            correlationId: input.correlationId,
            subjectType: 'PERIOD_CLOSE',
            subjectId: input.closeId,
            ipAddress: null,
            details: `${month}: entry #${number}, ${charges.charges.length} assets, ${formatMinorUnits(charges.total)}`,
          });
        }
        await recordDepreciation(tx, scope, charged);
        await closeDisposalResult(tx, scope, input);
        return months;
      });
    } finally {
      clearInterval(beat);
    }
  }

  return { postDepreciationEntries };
}
