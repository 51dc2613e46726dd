import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import { glAccountState } from '../../db/repositories/bank-accounts/bank-accounts';
import {
  findFixedAsset,
  insertFixedAsset,
  inventoryNumberUsed,
  listFixedAssets as listFixedAssetRows,
  chargesStatement,
  markCommissioned,
  markDisposed,
  assetOfLine,
  purchaseLine,
  registerAt,
  SOURCE_LINE_KEY,
  replaceFixedAsset,
  type AssetStatus,
  type FixedAssetRow,
} from '../../db/repositories/fixed-assets/assets';
import {
  assetAccountProblem,
  costFromLine,
  costRequired,
  DEFAULT_DISPOSAL_ACCOUNT,
  fixedAssetDetailsOf,
  inventoryNumberTaken,
  type FixedAssetDetails,
  type FixedAssetInput,
} from '../../core/fixed-assets/assets';
import { DuplicateRowError } from '../../db/repositories/errors';
import { addMonths, depreciationSchedule, disposalFigures, lastDayOf, monthlyChargeMinor, monthOf } from '../../core/fixed-assets/depreciation';
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
import { balanceSheetAt } from '../ledger/statements';
import { selectBatch } from '../../db/connection';

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
    disposalAccount: row.disposalAccount,
    sourceInvoiceLine: row.sourceInvoiceLine,
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

type AssetBody = Omit<FixedAssetInput, 'cost'> & { cost?: string };

/**
 * The asset's details from a request: its cost and source account from the purchase line it names (checked in
 * the transaction), the rest with their defaults. 409 `conflict` when another asset came from the same line.
 */
async function detailsFrom(tx: Tx, scope: CompanyScope, input: AssetBody, exceptId: string): Promise<FixedAssetDetails> {
  const source = input.sourceInvoiceLine;
  if (!source) {
    if (input.cost === undefined) throw costRequired();
    return fixedAssetDetailsOf({ ...input, cost: input.cost });
  }
  const line = await purchaseLine(tx, scope, source.invoiceId, source.lineNo);
  const taken = await assetOfLine(tx, scope, source.invoiceId, source.lineNo, exceptId);
  const { cost, sourceAccount } = costFromLine(line, input);
  if (taken) throw lineTaken(taken, line!.number, source.lineNo);
  return fixedAssetDetailsOf({ ...input, cost, sourceAccount });
}

const lineTaken = (inventoryNumber: string | null, invoiceNumber: string | null, lineNo: number) =>
  new AppError('conflict', `Line ${lineNo} of purchase invoice ${invoiceNumber ?? ''} is the cost of ${inventoryNumber ?? 'another asset'} already`.replace('  ', ' '));

/** A write that met the unique key of the source line: another request took the line meanwhile. */
function sourceLineRace(err: unknown, input: AssetBody): never {
  if (err instanceof DuplicateRowError && err.constraint === SOURCE_LINE_KEY) throw lineTaken(null, null, input.sourceInvoiceLine!.lineNo);
  throw err;
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
    return companies.change(principal, legalEntityId, async (tx, scope) => {
      const id = randomUUID();
      const details = await detailsFrom(tx, scope, input, id);
      await requireAccounts(tx, scope, details);
      const row = await insertFixedAsset(tx, scope, id, details).catch((err: unknown) => sourceLineRace(err, input));
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
    return companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const current = await requireAsset(tx, scope, id, { lock: true });
        if (current.status !== 'DRAFT') throw new AppError('document-state', 'The asset is in service: its figures stay as they were commissioned', { documentStatus: current.status });
        if (current.version !== input.expectedVersion) throw new AppError('stale-version', `The asset changed since version ${input.expectedVersion}; reload it and retry`);
        const details = await detailsFrom(tx, scope, input, id);
        await requireAccounts(tx, scope, details);
        if (await inventoryNumberUsed(tx, scope, details.inventoryNumber, id)) throw inventoryNumberTaken(details.inventoryNumber);
        const row = (await replaceFixedAsset(tx, scope, id, details, input.expectedVersion).catch((err: unknown) => sourceLineRace(err, input)))!;
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
        if (asset.sourceInvoiceLine) {
          // The purchase it comes from is still on the books (not cancelled since the asset was registered).
          const line = await purchaseLine(tx, scope, asset.sourceInvoiceLine.invoiceId, asset.sourceInvoiceLine.lineNo);
          if (line?.status !== 'POSTED') throw new AppError('document-state', 'The purchase invoice the asset comes from was cancelled', { documentStatus: asset.status });
        }
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

  async function disposeFixedAsset(principal: Principal, legalEntityId: string, id: string, input: Schemas['FixedAssetDisposal'], ctx: RequestContext): Promise<FixedAsset> {
    return commitDocumentChange(
      deps,
      principal,
      legalEntityId,
      async (tx, scope) => {
        const asset = await requireAsset(tx, scope, id, { lock: true });
        if (asset.status === 'DRAFT') throw new AppError('document-state', 'The asset is not in service: a DRAFT is changed, not disposed of', { documentStatus: asset.status });
        if (asset.status === 'DISPOSED') throw new AppError('document-state', `The asset was disposed of on ${asset.disposedOn}`, { documentStatus: asset.status });
        if (asset.version !== input.expectedVersion) throw new AppError('stale-version', `The asset changed since version ${input.expectedVersion}; reload it and retry`);
        if (input.date < asset.commissionedOn!) {
          const message = `is before the commissioning on ${asset.commissionedOn}`;
          throw new AppError('validation', `date ${message}`, { errors: [{ path: '/body/date', message }] });
        }
        if (asset.depreciatedThrough !== null && asset.depreciatedThrough > monthOf(input.date)) {
          throw new AppError('document-state', `A close charged the asset through ${asset.depreciatedThrough}: date the disposal in ${addMonths(asset.depreciatedThrough, 1)} or later`, {
            documentStatus: asset.status,
          });
        }
        const disposalAccount = input.disposalAccount ?? DEFAULT_DISPOSAL_ACCOUNT;
        const problem = assetAccountProblem('disposalAccount', disposalAccount, await glAccountState(tx, scope, disposalAccount));
        if (problem) throw problem;

        const figures = disposalFigures(
          { cost: asset.cost, salvageValue: asset.salvageValue, usefulLifeMonths: asset.usefulLifeMonths, commissionedOn: asset.commissionedOn! },
          asset.depreciatedThrough,
          input.date,
        );
        const charges = figures.charges.filter((c) => toMinorUnits(c.charge) > 0n);
        const charged = formatMinorUnits(charges.reduce((sum, c) => sum + toMinorUnits(c.charge), 0n));
        const lines = [
          // The months no close charged, the disposal month included, then the asset off the books.
          ...(charges.length > 0
            ? [
                { accountCode: asset.expenseAccount, debit: charged, credit: '0.00', memo: `Depreciation ${charges[0]!.month}–${charges.at(-1)!.month}` },
                { accountCode: asset.depreciationAccount, debit: '0.00', credit: charged, memo: `Depreciation ${charges[0]!.month}–${charges.at(-1)!.month}` },
              ]
            : []),
          ...(toMinorUnits(figures.accumulated) > 0n ? [{ accountCode: asset.depreciationAccount, debit: figures.accumulated, credit: '0.00', memo: 'Accumulated depreciation' }] : []),
          ...(toMinorUnits(figures.netBookValue) > 0n ? [{ accountCode: disposalAccount, debit: figures.netBookValue, credit: '0.00', memo: 'Net book value' }] : []),
          { accountCode: asset.assetAccount, debit: '0.00', credit: asset.cost, memo: 'Cost' },
        ];
        const prepared = prepareEntry({
          entryDate: input.date,
          description: `Disposal of ${asset.inventoryNumber} ${asset.name}`.slice(0, 500),
          reference: asset.inventoryNumber,
          lines,
        });
        const requestId = systemRequestId(`fixed-asset-disposal:${scope.tenantId}:${id}`);
        const entryId = randomUUID();
        const written = await writeEntry(tx, principal, scope, ctx, await readPostingContext(tx, scope, requestId, prepared), {
          id: entryId,
          requestId,
          prepared,
          source: { type: 'FIXED_ASSET', id },
          audit: {
            action: 'fixed-asset.disposed',
            subjectType: SUBJECT,
            subjectId: id,
            details: `${asset.inventoryNumber} on ${input.date}: entry ${entryId}, cost ${asset.cost}, depreciation ${figures.accumulated}, net book value ${figures.netBookValue} to ${disposalAccount}`,
          },
          event: null,
        });
        if (written.replayed) throw new AppError('conflict', 'This asset was disposed of by another request');
        if (charges.length > 0) await selectBatch(tx, [chargesStatement(scope, { id: entryId, date: input.date }, charges.map((c) => ({ assetId: id, month: c.month, amount: c.charge })))]);
        const row = await markDisposed(tx, scope, id, { date: input.date, entryId, disposalAccount, through: charges.at(-1)?.month ?? null, accumulated: figures.accumulated });
        return { result: toAsset(row), starts: [] };
      },
      async (tx, scope) => {
        await requireAsset(tx, scope, id);
      },
    );
  }

  async function getFixedAssetRegister(principal: Principal, legalEntityId: string, query: PageQuery & { asOf: string }): Promise<Schemas['FixedAssetRegister']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const register = await registerAt(tx, scope, { asOf: query.asOf, limit: query.size, offset: query.page * query.size });
      const sheet = await balanceSheetAt(tx, scope, query.asOf);
      // The fixed-asset accounts' debit balance and the depreciation accounts' credit balance at asOf.
      const balanceOf = (from: string, to: string, side: 1n | -1n) =>
        sheet.balances.filter((b) => b.accountCode >= from && b.accountCode <= to).reduce((sum, b) => sum + side * (b.debit - b.credit), 0n);
      const ledgerCost = balanceOf('0100', '0199', 1n);
      const ledgerDepreciation = balanceOf('0200', '0299', -1n);
      const cost = toMinorUnits(register.cost);
      const accumulated = toMinorUnits(register.accumulated);
      const row = (code: string) => sheet.rows.get(code) ?? 0n;
      const ties =
        cost === ledgerCost && accumulated === ledgerDepreciation && cost === row('010') && accumulated === row('011') && cost - accumulated === row('012');
      const amounts = (c: bigint, a: bigint) => ({ cost: formatMinorUnits(c), accumulatedDepreciation: formatMinorUnits(a), netBookValue: formatMinorUnits(c - a) });
      return {
        asOf: query.asOf,
        ...pageOf(
          register.rows.map((r) => ({
            ...r,
            netBookValue: formatMinorUnits(toMinorUnits(r.cost) - toMinorUnits(r.accumulatedDepreciation)),
          })),
          query,
          register.total,
        ),
        totals: amounts(cost, accumulated),
        ledger: amounts(ledgerCost, ledgerDepreciation),
        balanceSheet: { '010': formatMinorUnits(row('010')), '011': formatMinorUnits(row('011')), '012': formatMinorUnits(row('012')) },
        ties,
      };
    });
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

  return { listFixedAssets, getFixedAsset, createFixedAsset, updateFixedAsset, commissionFixedAsset, disposeFixedAsset, getDepreciationSchedule, getFixedAssetRegister };
}
