import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import { findAccountingSettings, saveAccountingSettings, type AccountingSettingsRow, type TaxRegime } from '../../db/repositories/accounting-settings';
import { parseDecimalLiteral } from '../../core/decimal-literals';
import { AppError } from '../../core/problems';
import { recordCallerEvent } from './caller-audit';
import type { Principal, RequestContext } from '../context';
import { requireChangeableCompany, requireCompany } from './company-access';
import { ACCOUNT_TYPES } from './chart-of-accounts';

export interface CompanyAccountingSettings {
  legalEntityId: string;
  depreciationMethod: 'STRAIGHT_LINE';
  inventoryValuationMethod: 'FIFO';
  taxRegime: TaxRegime | null;
  vatRate: number | null;
  version: number;
}

export interface AccountingSettingsSave {
  depreciationMethod: 'STRAIGHT_LINE';
  inventoryValuationMethod: 'FIFO';
  taxRegime: TaxRegime;
  /** The number exactly as the client wrote it in the JSON body. */
  vatRateLiteral: string;
  expectedVersion: number;
}

/** What a company has before its first save: the only methods offered, no regime or rate assumed. */
const UNSAVED: AccountingSettingsRow = {
  depreciationMethod: 'STRAIGHT_LINE',
  inventoryValuationMethod: 'FIFO',
  taxRegime: null,
  vatRate: null,
  version: 0,
};

export const ACCOUNTING_OPTIONS = {
  accountTypes: ACCOUNT_TYPES,
  depreciationMethods: ['STRAIGHT_LINE'],
  inventoryValuationMethods: ['FIFO'],
  taxRegimes: ['GENERAL', 'SIMPLIFIED'],
};

function toSettings(legalEntityId: string, row: AccountingSettingsRow): CompanyAccountingSettings {
  return { legalEntityId, ...row, vatRate: row.vatRate === null ? null : Number(row.vatRate) };
}

/** 0..100 with at most two decimal places, decided on the literal (12.345 and 12.3400000000000001 fail). */
export function exactVatRate(literal: string): string {
  const rate = parseDecimalLiteral(literal);
  if (!rate || rate.scale > 2 || rate.text.startsWith('-') || Number(rate.text) > 100) {
    throw new AppError('validation', 'vatRate must be a percentage from 0 to 100 with at most two decimal places', {
      errors: [{ path: '/body/vatRate', message: 'must be 0..100 with at most two decimal places' }],
    });
  }
  return rate.text;
}

export function createAccountingSettingsService({ db }: { db: Sequelize }) {
  async function get(principal: Principal, legalEntityId: string): Promise<CompanyAccountingSettings> {
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireCompany(db, tx, principal, legalEntityId);
      const row = await findAccountingSettings(db, tx, { tenantId: principal.tenantId, legalEntityId });
      return toSettings(legalEntityId, row ?? UNSAVED);
    });
  }

  async function save(principal: Principal, legalEntityId: string, input: AccountingSettingsSave, ctx: RequestContext): Promise<CompanyAccountingSettings> {
    const vatRate = exactVatRate(input.vatRateLiteral);
    return withTenant(db, principal.tenantId, async (tx) => {
      await requireChangeableCompany(db, tx, principal, legalEntityId);
      const row = await saveAccountingSettings(db, tx, { tenantId: principal.tenantId, legalEntityId }, {
        depreciationMethod: input.depreciationMethod,
        inventoryValuationMethod: input.inventoryValuationMethod,
        taxRegime: input.taxRegime,
        vatRate,
        expectedVersion: input.expectedVersion,
      });
      if (!row) throw new AppError('stale-version', `The settings changed since version ${input.expectedVersion}; reload them and retry`);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'accounting.settings.saved',
        subjectType: 'ACCOUNTING_SETTINGS',
        subjectId: legalEntityId,
        details: `version ${row.version}`,
      });
      return toSettings(legalEntityId, row);
    });
  }

  return { get, save };
}
