import { literal } from 'sequelize';
import { CompanyAccountingSettings } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';
import type { CompanyScope } from '../organisation/companies';

export type TaxRegime = 'GENERAL' | 'SIMPLIFIED';

export interface AccountingSettingsRow {
  depreciationMethod: 'STRAIGHT_LINE';
  inventoryValuationMethod: 'FIFO';
  taxRegime: TaxRegime | null;
  /** Exact decimal text as PostgreSQL keeps it (NUMERIC(5,2)), e.g. "12.00". */
  vatRate: string | null;
  requireCounterpartyOnSettlements: boolean;
  version: number;
}

function toRow(s: CompanyAccountingSettings): AccountingSettingsRow {
  return {
    depreciationMethod: s.depreciationMethod,
    inventoryValuationMethod: s.inventoryValuationMethod,
    taxRegime: s.taxRegime,
    vatRate: s.vatRate,
    requireCounterpartyOnSettlements: s.requireCounterpartyOnSettlements,
    version: Number(s.version),
  };
}

const ofCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

/** Null before the first save. */
export async function findAccountingSettings(tx: Db, scope: CompanyScope): Promise<AccountingSettingsRow | null> {
  const row = await CompanyAccountingSettings.findOne({ where: ofCompany(scope), transaction: transactionOf(tx) });
  return row ? toRow(row) : null;
}

/**
 * Saves when the stored version is still `expectedVersion` (0: nothing saved yet, so the first save is an
 * insert that only one of concurrent requests wins). Null when stale. `requireCounterpartyOnSettlements` left
 * out keeps the saved value (false on the first save).
 */
export async function saveAccountingSettings(
  tx: Db,
  scope: CompanyScope,
  settings: {
    depreciationMethod: 'STRAIGHT_LINE';
    inventoryValuationMethod: 'FIFO';
    taxRegime: TaxRegime;
    vatRate: string;
    requireCounterpartyOnSettlements?: boolean;
    expectedVersion: number;
  },
): Promise<AccountingSettingsRow | null> {
  const { expectedVersion, requireCounterpartyOnSettlements, ...given } = settings;
  const values = requireCounterpartyOnSettlements === undefined ? given : { ...given, requireCounterpartyOnSettlements };
  if (expectedVersion === 0) {
    // Raw SQL: ON CONFLICT DO NOTHING lets one of concurrent first saves win without aborting the others.
    const [row] = await selectRows<{ version: string }>(
      tx,
      `INSERT INTO company_accounting_settings
         (tenant_id, legal_entity_id, depreciation_method, inventory_valuation_method, tax_regime, vat_rate, require_counterparty_on_settlements, version)
       VALUES (:tenantId, :legalEntityId, :depreciationMethod, :inventoryValuationMethod, :taxRegime, CAST(:vatRate AS numeric), :requireCounterparty, 1)
       ON CONFLICT DO NOTHING
       RETURNING version`,
      { ...scope, ...given, requireCounterparty: requireCounterpartyOnSettlements ?? false },
    );
    return row ? findAccountingSettings(tx, scope) : null;
  }
  const [, rows] = await CompanyAccountingSettings.update(
    { ...values, version: literal('version + 1') as unknown as string, updatedAt: new Date() },
    { where: { ...ofCompany(scope), version: String(expectedVersion) }, returning: true, transaction: transactionOf(tx) },
  );
  return rows[0] ? toRow(rows[0]) : null;
}
