/**
 * Defaults of the tools' inputs (see docs/decisions.md, MCP server): the last 7 full days, goal purchase,
 * page 1 of 20 rows. Dates are days of the calendar in UTC: the tools do not know the store's time zone, and
 * the API reads the dates in it, so "the last 7 days" may start or end a few hours off the store's midnight.
 */
export const DEFAULT_DAYS = 7;
export const DEFAULT_GOAL = 'purchase' as const;
export const DEFAULT_PAGE = 1;
export const DEFAULT_PAGE_SIZE = 20;
/** The model used when neither the caller nor the deployment names one. */
export const FALLBACK_MODEL = 'last';

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC instant. */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Midnight UTC of a `YYYY-MM-DD` day. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** Adds whole days to a `YYYY-MM-DD` day. */
export const addDays = (day: string, days: number): string => isoDay(dayStart(day) + days * DAY_MS);

export interface DateRange {
  /** First day, inclusive. */
  start_date: string;
  /** Day after the last day (exclusive), as the API reads it. */
  end_date: string;
}

/** The last `days` full days before `now`: [today - days, today). */
export function defaultDateRange(now: Date, days = DEFAULT_DAYS): DateRange {
  const today = isoDay(now.getTime());
  return { start_date: addDays(today, -days), end_date: today };
}

/**
 * Fills what the caller left out: no dates -> the last 7 full days; only an end -> the 7 days before it;
 * only a start -> from it through yesterday. Dates given are passed on untouched (the API validates them).
 */
export function resolveDateRange(given: Partial<DateRange>, now: Date): DateRange {
  const end = given.end_date ?? defaultDateRange(now).end_date;
  return { start_date: given.start_date ?? addDays(end, -DEFAULT_DAYS), end_date: end };
}

/** The period of equal length just before `range` (for period comparisons). */
export function previousPeriod(range: DateRange): DateRange {
  const days = Math.round((dayStart(range.end_date) - dayStart(range.start_date)) / DAY_MS);
  return { start_date: addDays(range.start_date, -days), end_date: range.start_date };
}
