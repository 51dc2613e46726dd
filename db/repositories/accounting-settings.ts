import { QueryTypes, type Sequelize } from 'sequelize';
import type { Tx } from '../connection';
import type { CompanyScope } from './chart-of-accounts';

export type TaxRegime = 'GENERAL' | 'SIMPLIFIED';

export interface AccountingSettingsRow {
  depreciationMethod: 'STRAIGHT_LINE';
  inventoryValuationMethod: 'FIFO';
  taxRegime: TaxRegime | null;
  /** Exact decimal text as PostgreSQL keeps it (NUMERIC(5,2)), e.g. "12.00". */
  vatRate: string | null;
  version: number;
}

interface RawSettings {
  depreciation_method: 'STRAIGHT_LINE';
  inventory_valuation_method: 'FIFO';
  tax_regime: TaxRegime;
  vat_rate: string;
  version: string;
}

const COLUMNS = 'depreciation_method, inventory_valuation_method, tax_regime, vat_rate, version';

function toRow(r: RawSettings): AccountingSettingsRow {
  return {
    depreciationMethod: r.depreciation_method,
    inventoryValuationMethod: r.inventory_valuation_method,
    taxRegime: r.tax_regime,
    vatRate: r.vat_rate,
    version: Number(r.version),
  };
}

/** Null before the first save. */
export async function findAccountingSettings(db: Sequelize, tx: Tx, scope: CompanyScope): Promise<AccountingSettingsRow | null> {
  const rows = await db.query<RawSettings>(
    `SELECT ${COLUMNS} FROM company_accounting_settings WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId`,
    { replacements: { ...scope }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/**
 * Saves when the stored version is still `expectedVersion` (0: nothing saved yet, so the first save is an
 * insert that only one of concurrent requests wins). Null when stale.
 */
export async function saveAccountingSettings(
  db: Sequelize,
  tx: Tx,
  scope: CompanyScope,
  settings: {
    depreciationMethod: string;
    inventoryValuationMethod: string;
    taxRegime: TaxRegime;
    vatRate: string;
    expectedVersion: number;
  },
): Promise<AccountingSettingsRow | null> {
  const replacements = { ...scope, ...settings };
  const rows =
    settings.expectedVersion === 0
      ? await db.query<RawSettings>(
          `INSERT INTO company_accounting_settings
             (tenant_id, legal_entity_id, depreciation_method, inventory_valuation_method, tax_regime, vat_rate, version)
           VALUES (:tenantId, :legalEntityId, :depreciationMethod, :inventoryValuationMethod, :taxRegime, CAST(:vatRate AS numeric), 1)
           ON CONFLICT DO NOTHING
           RETURNING ${COLUMNS}`,
          { replacements, type: QueryTypes.SELECT, transaction: tx },
        )
      : await db.query<RawSettings>(
          `UPDATE company_accounting_settings
              SET depreciation_method = :depreciationMethod, inventory_valuation_method = :inventoryValuationMethod,
                  tax_regime = :taxRegime, vat_rate = CAST(:vatRate AS numeric), version = version + 1, updated_at = now()
            WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND version = :expectedVersion
           RETURNING ${COLUMNS}`,
          { replacements, type: QueryTypes.SELECT, transaction: tx },
        );
  return rows[0] ? toRow(rows[0]) : null;
}
