// Strict checks of dates and instants from query strings. The OpenAPI validator's format check is shape-only
// (2025-02-30 passes it) and JavaScript's Date rolls such dates over, so the calendar is checked here,
// before PostgreSQL would refuse the value with an error.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)$/;

/**
 * The days the books can name: every `format: date` value (a query, a path, a body) and every instant's day.
 * Years 0 and 1 would reach PostgreSQL, whose calendar and the API's day arithmetic disagree there; a day
 * before 1900 or after 9999 is no accounting date.
 */
export const FIRST_DATE = '1900-01-01';
export const LAST_DATE = '9999-12-31';

/** yyyy-MM-dd naming a day that exists (2024-02-29 yes, 2025-02-29 no), from FIRST_DATE to LAST_DATE. */
export function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return text >= FIRST_DATE && text <= LAST_DATE && d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** An RFC 3339 date-time with an existing day, hours 00-23, minutes and seconds 00-59 and an offset within ±15:59. */
export function isInstant(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m || !isCalendarDate(m[1])) return false;
  const [hours, minutes, seconds] = [Number(m[2]), Number(m[3]), Number(m[4])];
  const [offsetHours, offsetMinutes] = [Number(m[5] ?? 0), Number(m[6] ?? 0)];
  return hours <= 23 && minutes <= 59 && seconds <= 59 && offsetHours <= 15 && offsetMinutes <= 59;
}

/** The day before a yyyy-MM-dd day. */
export function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both counted (1 for the same day; 0 or less when `to` is before `from`). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}
