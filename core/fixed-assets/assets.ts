import { AppError } from '../shared/problems';
import { toMinorUnits } from '../ledger/money';
import type { GlAccountState } from '../bank-accounts/bank-accounts';

// An asset of the register as the API takes it: its accounts with their NAS 21 defaults, its figures checked
// together. Land (0110) is not depreciated under NAS 5 and is not registered here.

/** Each asset account's accumulated depreciation account in the NAS 21 chart. */
export const DEPRECIATION_ACCOUNT_OF: Readonly<Record<string, string>> = {
  '0111': '0211',
  '0112': '0212',
  '0120': '0220',
  '0130': '0230',
  '0140': '0240',
  '0150': '0250',
  '0160': '0260',
  '0170': '0270',
  '0180': '0280',
  '0190': '0290',
};

export const DEFAULT_EXPENSE_ACCOUNT = '9420';
/** Disposal of fixed assets: what takes a disposed asset's net book value unless the disposal says otherwise. */
export const DEFAULT_DISPOSAL_ACCOUNT = '9210';
/** Capital investments in fixed assets: what a commissioning credits unless the asset says otherwise. */
export const DEFAULT_SOURCE_ACCOUNT = '0820';

export interface FixedAssetInput {
  inventoryNumber: string;
  name: string;
  assetAccount: string;
  depreciationAccount?: string;
  expenseAccount?: string;
  sourceAccount?: string;
  cost: string;
  salvageValue?: string;
  usefulLifeMonths: number;
}

export interface FixedAssetDetails {
  inventoryNumber: string;
  name: string;
  assetAccount: string;
  depreciationAccount: string;
  expenseAccount: string;
  sourceAccount: string;
  cost: string;
  salvageValue: string;
  usefulLifeMonths: number;
}

function invalid(path: string, message: string): AppError {
  return new AppError('validation', `${path.replace('/body/', '')} ${message}`, { errors: [{ path, message }] });
}

const money = (amount: string) => {
  const minor = toMinorUnits(amount);
  return `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;
};

/** The asset's details: trimmed, defaulted, checked together (400 `validation` naming the field). */
export function fixedAssetDetailsOf(input: FixedAssetInput): FixedAssetDetails {
  const assetAccount = input.assetAccount;
  if (assetAccount === '0110') throw invalid('/body/assetAccount', 'is land, which is not depreciated; register a depreciable asset (0111–0190)');
  const matching = DEPRECIATION_ACCOUNT_OF[assetAccount];
  if (!matching) throw invalid('/body/assetAccount', 'is not a fixed-asset account of the chart (0111–0190)');
  const depreciationAccount = input.depreciationAccount ?? matching;
  if (!/^02[1-9][0-9]$/.test(depreciationAccount)) throw invalid('/body/depreciationAccount', 'is not a depreciation account (0211–0290)');
  const cost = money(input.cost);
  const salvageValue = money(input.salvageValue ?? '0');
  if (toMinorUnits(cost) <= 0n) throw invalid('/body/cost', 'must be above zero');
  if (toMinorUnits(salvageValue) > toMinorUnits(cost)) throw invalid('/body/salvageValue', `is more than the cost ${cost}`);
  return {
    inventoryNumber: input.inventoryNumber.trim(),
    name: input.name.trim(),
    assetAccount,
    depreciationAccount,
    expenseAccount: input.expenseAccount ?? DEFAULT_EXPENSE_ACCOUNT,
    sourceAccount: input.sourceAccount ?? DEFAULT_SOURCE_ACCOUNT,
    cost,
    salvageValue,
    usefulLifeMonths: input.usefulLifeMonths,
  };
}

/** The 400 for an account of the asset the chart does not allow, naming its field, or null when it does. */
export function assetAccountProblem(field: keyof FixedAssetDetails | 'disposalAccount', code: string, state: GlAccountState): AppError | null {
  const path = `/body/${field}`;
  if (state.kind === 'absent') {
    const message = `no account ${code} in this company's chart`;
    return new AppError('unknown-account', message, { errors: [{ path, message }] });
  }
  if (state.kind === 'header') {
    const message = `${code} is a header account; use one of its detail accounts (${state.details.join(', ')})`;
    return new AppError('header-account', message, { errors: [{ path, message }] });
  }
  return null;
}

/** 409 `inventory-number-exists`, naming the number. */
export function inventoryNumberTaken(inventoryNumber: string): AppError {
  return new AppError('inventory-number-exists', `An asset of this company has inventory number ${inventoryNumber}`, { inventoryNumber });
}
