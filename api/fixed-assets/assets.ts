import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import { glAccountState } from '../../db/repositories/bank-accounts/bank-accounts';
import {
  findFixedAsset,
  insertFixedAsset,
  inventoryNumberUsed,
  listFixedAssets as listFixedAssetRows,
  markCommissioned,
  replaceFixedAsset,
  type AssetStatus,
  type FixedAssetRow,
} from '../../db/repositories/fixed-assets/assets';
import { assetAccountProblem, fixedAssetDetailsOf, inventoryNumberTaken, type FixedAssetDetails } from '../../core/fixed-assets/assets';
import { depreciationSchedule, lastDayOf, monthlyChargeMinor } from '../../core/fixed-assets/depreciation';
import { prepareEntry, systemRequestId } from '../../core/ledger/journal';
import { formatMinorUnits, toMinorUnits } from '../../core/ledger/money';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';
import { readPostingContext, writeEntry } from '../../services/ledger/posting';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { commitDocumentChange } from '../ledger/posting';

type FixedAsset = Schemas['FixedAsset'];

const SUBJECT = 'FIXED_ASSET';

function toAsset(row: FixedAssetRow): FixedAsset {
  const depreciable = toMinorUnits(row.cost) - toMinorUnits(row.salvageValue);
  return {
    id: row.id,
    inventoryNumber: row.inventoryNumber,
    name: row.name,
    assetAccount: row.assetAccount,
    depreciationAccount: row.depreciationAccount,
    expenseAccount: row.expenseAccount,
    sourceAccount: row.sourceAccount,
    cost: row.cost,
    salvageValue: row.salvageValue,
    usefulLifeMonths: row.usefulLifeMonths,
    monthlyCharge: formatMinorUnits(monthlyChargeMinor(depreciable, row.usefulLifeMonths)),
    status: row.status,
    commissionedOn: row.commissionedOn,
    commissioningEntryId: row.commissioningEntryId,
    depreciatedThrough: row.depreciatedThrough,
    accumulatedDepreciation: row.accumulatedDepreciation,
    netBookValue: formatMinorUnits(toMinorUnits(row.cost) - toMinorUnits(row.accumulatedDepreciation)),
    disposedOn: row.disposedOn,
    disposalEntryId: row.disposalEntryId,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
  };
}

async function requireAsset(tx: Tx, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<FixedAssetRow> {
  const row = await findFixedAsset(tx, scope, id, options);
  // Another company's or tenant's asset is not there either.
  if (!row) throw new AppError('not-found', 'No fixed asset with this id in this company');
  return row;
}

/** Each account of the asset is a detail account of the company's chart (400 naming the field otherwise). */
async function requireAccounts(tx: Tx, scope: CompanyScope, details: FixedAssetDetails): Promise<void> {
  for (const field of ['assetAccount', 'depreciationAccount', 'expenseAccount', 'sourceAccount'] as const) {
    const problem = assetAccountProblem(field, details[field], await glAccountState(tx, scope, details[field]));
    if (problem) throw problem;
  }
}

/** The register of fixed assets: drafts, their commissioning, their schedules. */
export function createFixedAssets(deps: { companies: CompanyScopes; webhookEvents: WebhookEvents }) {
  const { companies } = deps;

  async function listFixedAssets(principal: Principal, legalEntityId: string, query: PageQuery & { status?: AssetStatus }): Promise<Schemas['FixedAssetPage']> {
    const { rows, total } = await companies.read(principal, legalEntityId, (tx, scope) =>
      listFixedAssetRows(tx, scope, { status: query.status ?? null, limit: query.size, offset: query.page * query.size }),
    );
    return pageOf(rows.map(toAsset), query, total);
  }

  async function getFixedAsset(principal: Principal, legalEntityId: string, id: string): Promise<FixedAsset> {
    return toAsset(await companies.read(principal, legalEntityId, (tx, scope) => requireAsset(tx, scope, id)));
  }

  async function createFixedAsset(principal: Principal, legalEntityId: string, input: Schemas['FixedAssetCreate'], ctx: RequestContext): Promise<FixedAsset> {
    const details = fixedAssetDetailsOf(input);
    return companies.change(principal, legalEntityId, async (tx, scope) => {
      await requireAccounts(tx, scope, details);
      const row = await insertFixedAsset(tx, scope, randomUUID(), details);
      if (!row) throw inventoryNumberTaken(details.inventoryNumber);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'fixed-asset.created',
        subjectType: SUBJECT,
        subjectId: row.id,
        details: `${row.inventoryNumber} "${row.name}": cost ${row.cost} on ${row.assetAccount}, ${row.usefulLifeMonths} months`.slice(0, 500),
      });
      return toAsset(row);
    });
  }

  async function updateFixedAsset(principal: Principal, legalEntityId: string, id: string, input: Schemas['FixedAssetUpdate'], ctx: RequestContext): Promise<FixedAsset> {
    const details = fixedAssetDetailsOf(input);
    return companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const current = await requireAsset(tx, scope, id, { lock: true });
        if (current.status !== 'DRAFT') throw new AppError('document-state', 'The asset is in service: its figures stay as they were commissioned', { documentStatus: current.status });
        if (current.version !== input.expectedVersion) throw new AppError('stale-version', `The asset changed since version ${input.expectedVersion}; reload it and retry`);
        await requireAccounts(tx, scope, details);
        if (await inventoryNumberUsed(tx, scope, details.inventoryNumber, id)) throw inventoryNumberTaken(details.inventoryNumber);
        const row = (await replaceFixedAsset(tx, scope, id, details, input.expectedVersion))!;
        await recordCallerEvent(tx, principal, ctx, { action: 'fixed-asset.updated', subjectType: SUBJECT, subjectId: id, details: `version ${row.version}` });
        return toAsset(row);
      },
      async (tx, scope) => {
        await requireAsset(tx, scope, id);
      },
    );
  }

  async function commissionFixedAsset(principal: Principal, legalEntityId: string, id: string, input: Schemas['FixedAssetCommissioning'], ctx: RequestContext): Promise<FixedAsset> {
    return commitDocumentChange(
      deps,
      principal,
      legalEntityId,
      async (tx, scope) => {
        const asset = await requireAsset(tx, scope, id, { lock: true });
        if (asset.status !== 'DRAFT') throw new AppError('document-state', 'The asset is in service already', { documentStatus: asset.status });
        if (asset.version !== input.expectedVersion) throw new AppError('stale-version', `The asset changed since version ${input.expectedVersion}; reload it and retry`);
        const prepared = prepareEntry({
          entryDate: input.date,
          description: `Commissioning of ${asset.inventoryNumber} ${asset.name}`.slice(0, 500),
          reference: asset.inventoryNumber,
          lines: [
            { accountCode: asset.assetAccount, debit: asset.cost, credit: '0.00' },
            { accountCode: asset.sourceAccount, debit: '0.00', credit: asset.cost },
          ],
        });
        const requestId = systemRequestId(`fixed-asset-commissioning:${scope.tenantId}:${id}`);
        const entryId = randomUUID();
        const written = await writeEntry(tx, principal, scope, ctx, await readPostingContext(tx, scope, requestId, prepared), {
          id: entryId,
          requestId,
          prepared,
          source: { type: 'FIXED_ASSET', id },
          audit: { action: 'fixed-asset.commissioned', subjectType: SUBJECT, subjectId: id, details: `${asset.inventoryNumber} on ${input.date}: entry ${entryId}, ${asset.cost} to ${asset.assetAccount}` },
          event: null,
        });
        if (written.replayed) throw new AppError('conflict', 'This asset was commissioned by another request');
        const row = await markCommissioned(tx, scope, id, { date: input.date, entryId });
        return { result: toAsset(row), starts: [] };
      },
      async (tx, scope) => {
        await requireAsset(tx, scope, id);
      },
    );
  }

  async function getDepreciationSchedule(principal: Principal, legalEntityId: string, id: string, query: { commissionedOn?: string }): Promise<Schemas['DepreciationSchedule']> {
    const asset = await companies.read(principal, legalEntityId, (tx, scope) => requireAsset(tx, scope, id));
    const commissionedOn = asset.commissionedOn ?? query.commissionedOn ?? new Date().toISOString().slice(0, 10);
    const months = depreciationSchedule({ cost: asset.cost, salvageValue: asset.salvageValue, usefulLifeMonths: asset.usefulLifeMonths, commissionedOn });
    return {
      assetId: asset.id,
      status: asset.status,
      commissionedOn,
      monthlyCharge: toAsset(asset).monthlyCharge,
      months: months.map((m) => ({ ...m, date: lastDayOf(m.month), charged: asset.depreciatedThrough !== null && m.month <= asset.depreciatedThrough })),
    };
  }

  return { listFixedAssets, getFixedAsset, createFixedAsset, updateFixedAsset, commissionFixedAsset, getDepreciationSchedule };
}
