import { selectRows, type Db, type Statement, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { FixedAssetDetails, PurchaseLine } from '../../../core/fixed-assets/assets';

// Operations: listFixedAssets, createFixedAsset, getFixedAsset, updateFixedAsset, commissionFixedAsset,
// disposeFixedAsset, getDepreciationSchedule, getFixedAssetRegister. The create is INSERT … ON CONFLICT DO NOTHING on the inventory number; the update
// is conditional on the version and on the asset being a DRAFT (the database freezes it after that too).

export type AssetStatus = 'DRAFT' | 'IN_SERVICE' | 'FULLY_DEPRECIATED' | 'DISPOSED';

export interface FixedAssetRow extends FixedAssetDetails {
  id: string;
  status: AssetStatus;
  commissionedOn: string | null;
  commissioningEntryId: string | null;
  /** The last month charged, 'YYYY-MM', or null. */
  depreciatedThrough: string | null;
  accumulatedDepreciation: string;
  disposedOn: string | null;
  disposalEntryId: string | null;
  disposalAccount: string | null;
  version: number;
  createdAt: Date;
}

interface RawRow {
  id: string;
  inventory_number: string;
  name: string;
  asset_account: string;
  depreciation_account: string;
  expense_account: string;
  source_account: string;
  cost: string;
  salvage_value: string;
  useful_life_months: number;
  status: AssetStatus;
  commissioned_on: string | null;
  commissioning_entry_id: string | null;
  depreciated_through: string | null;
  accumulated_depreciation: string;
  disposed_on: string | null;
  disposal_entry_id: string | null;
  disposal_account: string | null;
  source_invoice_id: string | null;
  source_line_no: number | null;
  version: string;
  created_at: Date;
}

const COLUMNS = `id, inventory_number, name, asset_account, depreciation_account, expense_account, source_account, cost::text AS cost,
  salvage_value::text AS salvage_value, useful_life_months, status, to_char(commissioned_on, 'YYYY-MM-DD') AS commissioned_on, commissioning_entry_id,
  to_char(depreciated_through, 'YYYY-MM') AS depreciated_through, accumulated_depreciation::text AS accumulated_depreciation,
  to_char(disposed_on, 'YYYY-MM-DD') AS disposed_on, disposal_entry_id, disposal_account, source_invoice_id, source_line_no, version, created_at`;

/** The unique key that keeps an inventory number once per company. */
export const SOURCE_LINE_KEY = 'fixed_assets_source_line_key';
const INVENTORY_NUMBER_KEY = 'fixed_assets_inventory_number_key';

const rowOf = (r: RawRow): FixedAssetRow => ({
  id: r.id,
  inventoryNumber: r.inventory_number,
  name: r.name,
  assetAccount: r.asset_account,
  depreciationAccount: r.depreciation_account,
  expenseAccount: r.expense_account,
  sourceAccount: r.source_account,
  cost: r.cost,
  salvageValue: r.salvage_value,
  usefulLifeMonths: r.useful_life_months,
  sourceInvoiceLine: r.source_invoice_id ? { invoiceId: r.source_invoice_id, lineNo: r.source_line_no! } : null,
  status: r.status,
  commissionedOn: r.commissioned_on,
  commissioningEntryId: r.commissioning_entry_id,
  depreciatedThrough: r.depreciated_through,
  accumulatedDepreciation: r.accumulated_depreciation,
  disposedOn: r.disposed_on,
  disposalEntryId: r.disposal_entry_id,
  disposalAccount: r.disposal_account,
  version: Number(r.version),
  createdAt: r.created_at,
});

const inCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

const fieldsOf = (d: FixedAssetDetails) => ({
  inventoryNumber: d.inventoryNumber,
  name: d.name,
  assetAccount: d.assetAccount,
  depreciationAccount: d.depreciationAccount,
  expenseAccount: d.expenseAccount,
  sourceAccount: d.sourceAccount,
  cost: d.cost,
  salvageValue: d.salvageValue,
  usefulLifeMonths: d.usefulLifeMonths,
  sourceInvoiceId: d.sourceInvoiceLine?.invoiceId ?? null,
  sourceLineNo: d.sourceInvoiceLine?.lineNo ?? null,
});

/** A page of the company's assets by inventory number; `status` null lists every one. */
export async function listFixedAssets(
  tx: Db,
  scope: CompanyScope,
  query: { status: AssetStatus | null; limit: number; offset: number },
): Promise<{ rows: FixedAssetRow[]; total: number }> {
  const where = `tenant_id = :tenantId AND legal_entity_id = :legalEntityId${query.status ? ' AND status = :status' : ''}`;
  const replacements = { ...inCompany(scope), status: query.status, limit: query.limit, offset: query.offset };
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM fixed_assets WHERE ${where}`, replacements);
  const rows = await selectRows<RawRow>(tx, `SELECT ${COLUMNS} FROM fixed_assets WHERE ${where} ORDER BY inventory_number, id LIMIT :limit OFFSET :offset`, replacements);
  return { rows: rows.map(rowOf), total: Number(counted!.total) };
}

/** The asset; `lock` holds it FOR UPDATE until the transaction ends. */
export async function findFixedAsset(tx: Db, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<FixedAssetRow | null> {
  const [row] = await selectRows<RawRow>(
    tx,
    `SELECT ${COLUMNS} FROM fixed_assets WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id${options.lock ? ' FOR UPDATE' : ''}`,
    { ...inCompany(scope), id },
  );
  return row ? rowOf(row) : null;
}

/** A new DRAFT at version 1; null when the company has an asset of that inventory number. */
export async function insertFixedAsset(tx: Tx, scope: CompanyScope, id: string, details: FixedAssetDetails): Promise<FixedAssetRow | null> {
  const [row] = await selectRows<RawRow>(
    tx,
    `INSERT INTO fixed_assets (tenant_id, id, legal_entity_id, inventory_number, name, asset_account, depreciation_account, expense_account, source_account,
                               cost, salvage_value, useful_life_months, source_invoice_id, source_line_no, version)
     VALUES (:tenantId, :id, :legalEntityId, :inventoryNumber, :name, :assetAccount, :depreciationAccount, :expenseAccount, :sourceAccount,
             :cost, :salvageValue, :usefulLifeMonths, :sourceInvoiceId, :sourceLineNo, 1)
     ON CONFLICT ON CONSTRAINT ${INVENTORY_NUMBER_KEY} DO NOTHING
     RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id, ...fieldsOf(details) },
  );
  return row ? rowOf(row) : null;
}

/** Whether another asset of the company has the inventory number. */
export async function inventoryNumberUsed(tx: Db, scope: CompanyScope, inventoryNumber: string, exceptId: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    tx,
    'SELECT id FROM fixed_assets WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND inventory_number = :inventoryNumber AND id <> :exceptId',
    { ...inCompany(scope), inventoryNumber, exceptId },
  );
  return rows.length > 0;
}

/** Replaces a DRAFT at `expectedVersion`; null when the version or the status is not that any more. */
export async function replaceFixedAsset(tx: Tx, scope: CompanyScope, id: string, details: FixedAssetDetails, expectedVersion: number): Promise<FixedAssetRow | null> {
  const [row] = await selectRows<RawRow>(
    tx,
    `UPDATE fixed_assets SET inventory_number = :inventoryNumber, name = :name, asset_account = :assetAccount, depreciation_account = :depreciationAccount,
            expense_account = :expenseAccount, source_account = :sourceAccount, cost = :cost, salvage_value = :salvageValue,
            useful_life_months = :usefulLifeMonths, source_invoice_id = :sourceInvoiceId, source_line_no = :sourceLineNo, version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND version = :expectedVersion AND status = 'DRAFT'
      RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id, expectedVersion, ...fieldsOf(details) },
  );
  return row ? rowOf(row) : null;
}

/** A DRAFT put in service on `date` by its commissioning entry. */
export async function markCommissioned(tx: Tx, scope: CompanyScope, id: string, commissioning: { date: string; entryId: string }): Promise<FixedAssetRow> {
  const [row] = await selectRows<RawRow>(
    tx,
    `UPDATE fixed_assets SET status = 'IN_SERVICE', commissioned_on = CAST(:date AS date), commissioning_entry_id = :entryId, version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND status = 'DRAFT'
      RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id, ...commissioning },
  );
  return rowOf(row!);
}

/**
 * The assets a close through `throughMonth` ('YYYY-MM') may charge, held FOR UPDATE in id order: in service,
 * commissioned before that month, not charged through it yet.
 */
export async function assetsToDepreciate(tx: Tx, scope: CompanyScope, throughMonth: string): Promise<FixedAssetRow[]> {
  const rows = await selectRows<RawRow>(
    tx,
    `SELECT ${COLUMNS} FROM fixed_assets
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status = 'IN_SERVICE'
        AND commissioned_on < CAST(:first AS date) AND (depreciated_through IS NULL OR depreciated_through < CAST(:first AS date))
      ORDER BY id FOR UPDATE`,
    { ...inCompany(scope), first: `${throughMonth}-01` },
  );
  return rows.map(rowOf);
}

/** What a close charged each asset: the last month charged, the new accumulated depreciation, whether it is fully depreciated. */
export async function recordDepreciation(
  tx: Tx,
  scope: CompanyScope,
  charged: Array<{ id: string; through: string; accumulated: string; full: boolean }>,
): Promise<void> {
  if (charged.length === 0) return;
  await selectRows(
    tx,
    `UPDATE fixed_assets a SET depreciated_through = c.through, accumulated_depreciation = c.accumulated,
            status = CASE WHEN c.done THEN 'FULLY_DEPRECIATED' ELSE a.status END, version = a.version + 1, updated_at = now()
       FROM unnest(CAST(:ids AS uuid[]), CAST(:throughs AS date[]), CAST(:accumulated AS numeric[]), CAST(:done AS boolean[])) AS c(id, through, accumulated, done)
      WHERE a.tenant_id = :tenantId AND a.legal_entity_id = :legalEntityId AND a.id = c.id`,
    {
      ...inCompany(scope),
      ids: `{${charged.map((c) => c.id).join(',')}}`,
      throughs: `{${charged.map((c) => `${c.through}-01`).join(',')}}`,
      accumulated: `{${charged.map((c) => c.accumulated).join(',')}}`,
      done: `{${charged.map((c) => String(c.full)).join(',')}}`,
    },
  );
}

/** A charge of the depreciation subledger: an asset's month, charged by an entry. */
export interface AssetCharge {
  assetId: string;
  /** 'YYYY-MM'. */
  month: string;
  amount: string;
}

/**
 * Writes the charges an entry made (a close's DEPRECIATION entry or a disposal's), as one statement for the
 * posting's batch: nothing when the entry was not written (the cut-off refused it).
 */
export function chargesStatement(scope: CompanyScope, entry: { id: string; date: string }, charges: AssetCharge[]): Statement {
  return {
    sql: `INSERT INTO fixed_asset_charges (tenant_id, asset_id, month, amount, entry_id, entry_date)
          SELECT :tenantId, c.asset_id, c.month, c.amount, :entryId, CAST(:entryDate AS date)
            FROM unnest(CAST(:assetIds AS uuid[]), CAST(:months AS date[]), CAST(:amounts AS numeric[])) AS c(asset_id, month, amount)
           WHERE EXISTS (SELECT 1 FROM journal_entries e WHERE e.tenant_id = :tenantId AND e.id = :entryId)`,
    replacements: {
      tenantId: scope.tenantId,
      entryId: entry.id,
      entryDate: entry.date,
      assetIds: `{${charges.map((c) => c.assetId).join(',')}}`,
      months: `{${charges.map((c) => `${c.month}-01`).join(',')}}`,
      amounts: `{${charges.map((c) => c.amount).join(',')}}`,
    },
  };
}

/** An asset in service taken off the books on `date` by its disposal entry, with what that entry charged. */
export async function markDisposed(
  tx: Tx,
  scope: CompanyScope,
  id: string,
  disposal: { date: string; entryId: string; disposalAccount: string; through: string | null; accumulated: string },
): Promise<FixedAssetRow> {
  const [row] = await selectRows<RawRow>(
    tx,
    `UPDATE fixed_assets SET status = 'DISPOSED', disposed_on = CAST(:date AS date), disposal_entry_id = :entryId, disposal_account = :disposalAccount,
            depreciated_through = COALESCE(CAST(:through AS date), depreciated_through), accumulated_depreciation = :accumulated,
            version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND status IN ('IN_SERVICE', 'FULLY_DEPRECIATED')
      RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id, ...disposal, through: disposal.through ? `${disposal.through}-01` : null },
  );
  return rowOf(row!);
}

export interface RegisterRow {
  assetId: string;
  inventoryNumber: string;
  name: string;
  assetAccount: string;
  depreciationAccount: string;
  commissionedOn: string;
  cost: string;
  accumulatedDepreciation: string;
}

/**
 * The assets on the books at the end of `asOf` (commissioned by it, not disposed of by it), a page of them by
 * inventory number, with the depreciation charged by entries dated by `asOf`; and the totals of all of them.
 */
export async function registerAt(
  tx: Db,
  scope: CompanyScope,
  query: { asOf: string; limit: number; offset: number },
): Promise<{ rows: RegisterRow[]; total: number; cost: string; accumulated: string }> {
  const onBooks = `FROM fixed_assets a
     LEFT JOIN LATERAL (SELECT sum(c.amount) AS charged FROM fixed_asset_charges c
                         WHERE c.tenant_id = a.tenant_id AND c.asset_id = a.id AND c.entry_date <= CAST(:asOf AS date)) c ON true
    WHERE a.tenant_id = :tenantId AND a.legal_entity_id = :legalEntityId AND a.commissioned_on <= CAST(:asOf AS date)
      AND (a.disposed_on IS NULL OR a.disposed_on > CAST(:asOf AS date))`;
  const replacements = { ...inCompany(scope), asOf: query.asOf, limit: query.limit, offset: query.offset };
  const [totals] = await selectRows<{ total: string; cost: string; accumulated: string }>(
    tx,
    `SELECT count(*) AS total, COALESCE(sum(a.cost), 0)::numeric(20, 2)::text AS cost, COALESCE(sum(c.charged), 0)::numeric(20, 2)::text AS accumulated ${onBooks}`,
    replacements,
  );
  const rows = await selectRows<RegisterRow>(
    tx,
    `SELECT a.id AS "assetId", a.inventory_number AS "inventoryNumber", a.name, a.asset_account AS "assetAccount", a.depreciation_account AS "depreciationAccount",
            to_char(a.commissioned_on, 'YYYY-MM-DD') AS "commissionedOn", a.cost::text AS cost, COALESCE(c.charged, 0)::numeric(20, 2)::text AS "accumulatedDepreciation"
       ${onBooks}
      ORDER BY a.inventory_number, a.id LIMIT :limit OFFSET :offset`,
    replacements,
  );
  return { rows, total: Number(totals!.total), cost: totals!.cost, accumulated: totals!.accumulated };
}

/** The invoice line an asset names, as the asset needs it; null when the company has no such line. */
export async function purchaseLine(tx: Db, scope: CompanyScope, invoiceId: string, lineNo: number): Promise<PurchaseLine | null> {
  const [row] = await selectRows<PurchaseLine>(
    tx,
    `SELECT i.kind, i.status, i.number, l.account_code AS "accountCode", l.net_uzs::text AS "netUzs"
       FROM invoices i JOIN invoice_lines l ON l.tenant_id = i.tenant_id AND l.invoice_id = i.id
      WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.id = :invoiceId AND l.line_no = :lineNo`,
    { ...inCompany(scope), invoiceId, lineNo },
  );
  return row ?? null;
}

/** Another asset that names the line, if any: its inventory number. */
export async function assetOfLine(tx: Db, scope: CompanyScope, invoiceId: string, lineNo: number, exceptId: string): Promise<string | null> {
  const [row] = await selectRows<{ inventory_number: string }>(
    tx,
    `SELECT inventory_number FROM fixed_assets
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND source_invoice_id = :invoiceId AND source_line_no = :lineNo AND id <> :exceptId`,
    { ...inCompany(scope), invoiceId, lineNo, exceptId },
  );
  return row?.inventory_number ?? null;
}

/** The assets whose cost comes from a line of the invoice: their inventory numbers with the line. */
export async function assetsOfInvoice(tx: Db, scope: CompanyScope, invoiceId: string): Promise<Array<{ inventoryNumber: string; lineNo: number }>> {
  return selectRows<{ inventoryNumber: string; lineNo: number }>(
    tx,
    `SELECT inventory_number AS "inventoryNumber", source_line_no AS "lineNo" FROM fixed_assets
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND source_invoice_id = :invoiceId ORDER BY source_line_no, inventory_number`,
    { ...inCompany(scope), invoiceId },
  );
}

/** An account's balance (debit − credit, minor units) over the company's entries dated through `date`, from its day totals. */
export async function accountBalanceThrough(tx: Db, scope: CompanyScope, accountCode: string, date: string): Promise<bigint> {
  const [row] = await selectRows<{ balance: string }>(
    tx,
    `SELECT (COALESCE(sum(debit - credit), 0) * 100)::numeric(24, 0)::text AS balance FROM journal_day_totals
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND account_code = :accountCode AND entry_date <= CAST(:date AS date)`,
    { ...inCompany(scope), accountCode, date },
  );
  return BigInt(row!.balance);
}
