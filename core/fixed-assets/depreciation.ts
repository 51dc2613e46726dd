import { formatMinorUnits, toMinorUnits } from '../ledger/money';
import { isCalendarDate } from '../shared/calendar';

// Straight-line depreciation under NAS 5, in exact minor units (tiyin): an asset commissioned in a month is
// charged from the next month, for `usefulLifeMonths` months. Each month's charge is round((cost − salvage) /
// life, 2), half up; the last month takes the rounding, so the charges add up to cost − salvage exactly. When
// the rounded charge is so large that the months before the last would pass cost − salvage (0.05 over ten
// months rounds to 0.01, ten of which are 0.10), each month takes at most what is left and the asset is fully
// depreciated early: nothing is ever charged below the salvage value.

/** A calendar month, 'YYYY-MM'. */
export type Month = string;

/** The month of a date 'YYYY-MM-DD'. */
export function monthOf(date: string): Month {
  if (!isCalendarDate(date)) throw new RangeError(`${date} is not a calendar date`);
  return date.slice(0, 7);
}

/** The month `n` months after `month` (before it when negative). */
export function addMonths(month: Month, n: number): Month {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** How many months from `from` to `to` (0 for the same month, negative when `to` is before). */
export function monthsBetween(from: Month, to: Month): number {
  return Number(to.slice(0, 4)) * 12 + Number(to.slice(5, 7)) - (Number(from.slice(0, 4)) * 12 + Number(from.slice(5, 7)));
}

/** The last day of a month, 'YYYY-MM-DD': the date of its DEPRECIATION entry. */
export function lastDayOf(month: Month): string {
  const [year, m] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  const days = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return `${month}-${String(days).padStart(2, '0')}`;
}

export interface DepreciableAsset {
  /** Decimal strings with at most two places, as the API takes them. */
  cost: string;
  salvageValue: string;
  usefulLifeMonths: number;
  /** The commissioning date: the first charge is for the month after its month. */
  commissionedOn: string;
}

export interface ScheduledCharge {
  month: Month;
  charge: string;
  /** Depreciation accumulated through this month. */
  accumulated: string;
  netBookValue: string;
}

/** The rounded monthly charge in minor units: round((cost − salvage) / life, 2), half up. */
export function monthlyChargeMinor(depreciable: bigint, usefulLifeMonths: number): bigint {
  if (!Number.isInteger(usefulLifeMonths) || usefulLifeMonths < 1) throw new RangeError('the useful life is a whole number of months, at least 1');
  if (depreciable < 0n) throw new RangeError('the salvage value exceeds the cost');
  const life = BigInt(usefulLifeMonths);
  return (depreciable * 2n + life) / (life * 2n);
}

function checked(asset: DepreciableAsset): { cost: bigint; depreciable: bigint; first: Month } {
  const cost = toMinorUnits(asset.cost);
  const salvage = toMinorUnits(asset.salvageValue);
  if (salvage > cost) throw new RangeError('the salvage value exceeds the cost');
  return { cost, depreciable: cost - salvage, first: addMonths(monthOf(asset.commissionedOn), 1) };
}

/** The charge of month `k` (0 for the first) given what was charged before it, in minor units. */
function chargeAt(k: number, before: bigint, depreciable: bigint, monthly: bigint, life: number): bigint {
  if (k < 0 || k >= life) return 0n;
  const left = depreciable - before;
  return k === life - 1 ? left : monthly < left ? monthly : left;
}

/** The whole schedule, month by month from the month after commissioning, for the useful life. */
export function depreciationSchedule(asset: DepreciableAsset): ScheduledCharge[] {
  const { cost, depreciable, first } = checked(asset);
  const monthly = monthlyChargeMinor(depreciable, asset.usefulLifeMonths);
  const out: ScheduledCharge[] = [];
  let accumulated = 0n;
  for (let k = 0; k < asset.usefulLifeMonths; k += 1) {
    const charge = chargeAt(k, accumulated, depreciable, monthly, asset.usefulLifeMonths);
    accumulated += charge;
    out.push({ month: addMonths(first, k), charge: formatMinorUnits(charge), accumulated: formatMinorUnits(accumulated), netBookValue: formatMinorUnits(cost - accumulated) });
  }
  return out;
}

/**
 * The charges of the months after `chargedThrough` (null when nothing was charged yet) up to `through`: what a
 * close of `through` posts for the asset, several months when the first close after commissioning covers them
 * (a catch-up). Months before the first month of the schedule or after its last charge nothing.
 */
export function chargesDue(asset: DepreciableAsset, chargedThrough: Month | null, through: Month): ScheduledCharge[] {
  return depreciationSchedule(asset).filter((c) => c.month <= through && (chargedThrough === null || c.month > chargedThrough));
}

/** Depreciation accumulated through a month (inclusive), from the schedule. */
export function accumulatedThrough(asset: DepreciableAsset, month: Month): string {
  const { depreciable, first } = checked(asset);
  const monthly = monthlyChargeMinor(depreciable, asset.usefulLifeMonths);
  const months = Math.min(monthsBetween(first, month) + 1, asset.usefulLifeMonths);
  if (months <= 0) return '0.00';
  if (months === asset.usefulLifeMonths) return formatMinorUnits(depreciable);
  // Each month before the last takes the monthly charge until what is left is smaller.
  const total = monthly * BigInt(months);
  return formatMinorUnits(total < depreciable ? total : depreciable);
}

export interface DisposalFigures {
  /** The months not yet charged through the disposal month, that month included: the disposal entry charges them. */
  charges: ScheduledCharge[];
  /** Depreciation accumulated at disposal, those charges included. */
  accumulated: string;
  netBookValue: string;
}

/**
 * What a disposal dated `date` posts for the asset: the charges of its month (and of any month before it not
 * charged yet), then the accumulated depreciation and the net book value it takes off the books. An asset
 * disposed of in its commissioning month was never charged: its net book value is its cost.
 */
export function disposalFigures(asset: DepreciableAsset, chargedThrough: Month | null, date: string): DisposalFigures {
  const { cost } = checked(asset);
  if (date < asset.commissionedOn) throw new RangeError('an asset is disposed of on or after its commissioning');
  const month = monthOf(date);
  const accumulated = toMinorUnits(accumulatedThrough(asset, month));
  return { charges: chargesDue(asset, chargedThrough, month), accumulated: formatMinorUnits(accumulated), netBookValue: formatMinorUnits(cost - accumulated) };
}
