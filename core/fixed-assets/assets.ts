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
/** Where a close moves a credit balance of 9210 (a gain on disposal) and a debit balance (a loss). */
export const GAIN_ACCOUNT = '9310';
export const LOSS_ACCOUNT = '9430';
/** Capital investments in fixed assets: what a commissioning credits unless the asset says otherwise. */
export const DEFAULT_SOURCE_ACCOUNT = '0820';

/** A line of a posted PURCHASE invoice the asset's cost comes from. */
export interface SourceLine {
  invoiceId: string;
  lineNo: number;
}

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
  sourceInvoiceLine?: SourceLine;
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
  sourceInvoiceLine: SourceLine | null;
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
    sourceInvoiceLine: input.sourceInvoiceLine ?? null,
  };
}

/** What the asset needs to know of the purchase line it names (null when the company has no such line). */
export interface PurchaseLine {
  kind: 'SALES' | 'PURCHASE';
  status: 'DRAFT' | 'POSTED' | 'CANCELLED';
  number: string | null;
  accountCode: string;
  /** The line's net amount in UZS (null while the invoice is a draft). */
  netUzs: string | null;
}

/** A capital investment account (0800–0899): what a purchase of an asset debits before its commissioning. */
const CAPITAL_INVESTMENT = /^08[0-9]{2}$/;

/**
 * The cost and the source account an asset takes from the purchase line it names, or the problem with the
 * line: 400 `validation` at `/body/sourceInvoiceLine` (no such line, not a purchase, not a capital investment,
 * another source account asked for, no cost), 409 `document-state` while the invoice is not posted.
 */
export function costFromLine(line: PurchaseLine | null, input: { cost?: string; sourceAccount?: string }): { cost: string; sourceAccount: string } {
  const path = '/body/sourceInvoiceLine';
  if (!line) throw invalid(path, 'names no line of an invoice of this company');
  if (line.kind !== 'PURCHASE') throw invalid(path, 'is a line of a SALES invoice; an asset comes from a purchase');
  if (line.status !== 'POSTED') {
    throw new AppError('document-state', `The purchase invoice is ${line.status === 'DRAFT' ? 'a draft: post it first' : 'cancelled'}`, { documentStatus: line.status });
  }
  if (!CAPITAL_INVESTMENT.test(line.accountCode)) {
    throw invalid(path, `posted to ${line.accountCode}, not to a capital investment account (0800–0899) that the commissioning credits`);
  }
  if (input.sourceAccount !== undefined && input.sourceAccount !== line.accountCode) {
    throw invalid('/body/sourceAccount', `must be ${line.accountCode}, the account of the purchase line, or left out`);
  }
  return { cost: input.cost ?? line.netUzs!, sourceAccount: line.accountCode };
}

/** 400 at `/body/cost` when neither a cost nor a purchase line to take it from is given. */
export function costRequired(): AppError {
  return invalid('/body/cost', 'is required unless sourceInvoiceLine names the purchase it comes from');
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
