/**
 * Rollup periods: the attribution rollup is kept by day and also summed by whole week and whole month
 * (docs/decisions.md, Storage, "Weeks and months"), so that a long report reads a few rows per dimension group
 * for each whole period instead of one per day. A period is named by its first day: ISO weeks start on Monday,
 * months on the 1st. Days are the store's local calendar days (YYYY-MM-DD), so the periods are too.
 */

export type PeriodGrain = 'week' | 'month';
export const PERIOD_GRAINS: readonly PeriodGrain[] = ['week', 'month'];

/** A run of rollup rows to read: those of `grain` whose first day is in [from, to). */
export interface RangePart {
  grain: 'day' | PeriodGrain;
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
const toMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);
/** YYYY-MM-DD of a UTC midnight, or null past the year 9999, which no date of a report or a rollup reaches. */
function toDay(ms: number): string | null {
  const iso = new Date(ms).toISOString();
  return iso.length === 24 ? iso.slice(0, 10) : null;
}

/** The Monday of the ISO week of `day`. */
export function weekStart(day: string): string {
  const ms = toMs(day);
  const sinceMonday = (new Date(ms).getUTCDay() + 6) % 7;
  return toDay(ms - sinceMonday * DAY_MS) ?? day;
}

/** The first day of the month of `day`. */
export const monthStart = (day: string): string => `${day.slice(0, 8)}01`;

/** The first day of `grain` that contains `day`. */
export const periodStart = (grain: PeriodGrain, day: string): string =>
  grain === 'week' ? weekStart(day) : monthStart(day);

/**
 * The day after the last day of the period of `grain` that starts on `start`; null for the last week and month
 * of the year 9999. Months by their digits: Date.UTC would read the years 0 to 99 as 1900 to 1999.
 */
export function periodEnd(grain: PeriodGrain, start: string): string | null {
  if (grain === 'week') return toDay(toMs(start) + 7 * DAY_MS);
  const year = Number(start.slice(0, 4));
  const month = Number(start.slice(5, 7));
  if (month < 12) return `${start.slice(0, 5)}${String(month + 1).padStart(2, '0')}-01`;
  return year < 9999 ? `${String(year + 1).padStart(4, '0')}-01-01` : null;
}

/** The first start of `grain` on or after `day`, or null when none is left before the year 10000. */
function startOnOrAfter(grain: PeriodGrain, day: string): string | null {
  const start = periodStart(grain, day);
  return start === day ? day : periodEnd(grain, start);
}

/** [from, to) as days, then whole weeks, then days: whole weeks where at least one fits. */
function coverWithWeeks(from: string, to: string): RangePart[] {
  const first = startOnOrAfter('week', from);
  const last = weekStart(to);
  if (first === null || first >= last) return from < to ? [{ grain: 'day', from, to }] : [];
  const parts: RangePart[] = [];
  if (from < first) parts.push({ grain: 'day', from, to: first });
  parts.push({ grain: 'week', from: first, to: last });
  if (last < to) parts.push({ grain: 'day', from: last, to });
  return parts;
}

/**
 * The fewest rows that sum to [start, end) (start inclusive, end exclusive, YYYY-MM-DD): the whole months inside
 * it, the whole weeks inside what is left on either side, and the remaining days. Every day of the range falls
 * in exactly one part, and no part reaches outside it.
 */
export function coverRange(start: string, end: string): RangePart[] {
  if (start >= end) return [];
  const first = startOnOrAfter('month', start);
  const last = monthStart(end);
  if (first === null || first >= last) return coverWithWeeks(start, end);
  return [...coverWithWeeks(start, first), { grain: 'month', from: first, to: last }, ...coverWithWeeks(last, end)];
}
