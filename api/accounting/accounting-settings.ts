import { findAccountingSettings, saveAccountingSettings, type AccountingSettingsRow } from '../../db/repositories/accounting/accounting-settings';
import { parseDecimalLiteral } from '../../core/shared/decimal-literals';
import { AppError } from '../../core/shared/problems';
import type { Schemas } from '../http/operation-handler';
import type { Principal, RequestContext } from '../http/context';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScopes } from '../organisation/company-scope';
import { ACCOUNT_TYPES } from '../../core/ledger/accounts';

type CompanyAccountingSettings = Schemas['CompanyAccountingSettings'];

/** What a company has before its first save: the only methods offered, no regime or rate assumed. */
const UNSAVED: AccountingSettingsRow = {
  depreciationMethod: 'STRAIGHT_LINE',
  inventoryValuationMethod: 'FIFO',
  taxRegime: null,
  vatRate: null,
  requireCounterpartyOnSettlements: false,
  version: 0,
};

export const ACCOUNTING_OPTIONS: Schemas['AccountingOptions'] = {
  accountTypes: ACCOUNT_TYPES,
  depreciationMethods: ['STRAIGHT_LINE'],
  inventoryValuationMethods: ['FIFO'],
  taxRegimes: ['GENERAL', 'SIMPLIFIED'],
};

function toSettings(legalEntityId: string, row: AccountingSettingsRow): CompanyAccountingSettings {
  return { legalEntityId, ...row, vatRate: row.vatRate === null ? null : Number(row.vatRate) };
}

/** 0..100 with at most two decimal places, decided on the literal (12.345 and 12.3400000000000001 fail). */
function exactVatRate(literal: string): string {
  const rate = parseDecimalLiteral(literal);
  if (!rate || rate.scale > 2 || rate.text.startsWith('-') || Number(rate.text) > 100) {
    throw new AppError('validation', 'vatRate must be a percentage from 0 to 100 with at most two decimal places', {
      errors: [{ path: '/body/vatRate', message: 'must be 0..100 with at most two decimal places' }],
    });
  }
  return rate.text;
}

/** A company's accounting settings (methods, tax regime, VAT rate), saved with optimistic versions. */
export function createAccountingSettings(companies: CompanyScopes) {
  async function getCompanyAccountingSettings(principal: Principal, legalEntityId: string): Promise<CompanyAccountingSettings> {
    return companies.read(principal, legalEntityId, async (tx, scope) => toSettings(legalEntityId, (await findAccountingSettings(tx, scope)) ?? UNSAVED));
  }

  /** `vatRateLiteral` is the number exactly as the client wrote it in the JSON body. */
  async function saveCompanyAccountingSettings(
    principal: Principal,
    legalEntityId: string,
    input: Schemas['AccountingSettingsSave'] & { vatRateLiteral: string },
    ctx: RequestContext,
  ): Promise<CompanyAccountingSettings> {
    const vatRate = exactVatRate(input.vatRateLiteral);
    return companies.change(principal, legalEntityId, async (tx, scope) => {
      const row = await saveAccountingSettings(tx, scope, {
        depreciationMethod: input.depreciationMethod,
        inventoryValuationMethod: input.inventoryValuationMethod,
        taxRegime: input.taxRegime,
        vatRate,
        requireCounterpartyOnSettlements: input.requireCounterpartyOnSettlements,
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

  return { getCompanyAccountingSettings, saveCompanyAccountingSettings };
}
