/**
 * Where a report reads the attribution rollup from, over [start, end): the whole months and weeks of the range from
 * the rollup by period and only the days at its edges from the rollup by day (a 90-day report then reads about a
 * fifth of the rows: docs/decisions.md, Storage, "Weeks and months"); with the landing page among the columns
 * attribution_periods and attribution_daily, without it the several times smaller attribution_by_source_periods
 * and attribution_by_source.
 */
import { coverRange } from '../../../contracts/src/rollup-periods';

const CREDIT_SUMS = 'weight, new_weight, value_micros, cogs_micros';

/**
 * A row source (to follow `from`) of the credited sums of `columns`, unaggregated: one rollup row per day or
 * period, which the caller sums by the columns it groups on. `where` holds the conditions besides the days
 * (store, goal, model); the days' bounds are appended to `params`, whose placeholders follow.
 */
export function attributionRows(
  columns: readonly string[],
  where: string,
  range: { start_date: string; end_date: string },
  params: unknown[],
): string {
  const select = [...columns, CREDIT_SUMS].join(', ');
  const days = (from: string, to: string): string => {
    params.push(from, to);
    return `day >= $${params.length - 1}::date and day < $${params.length}::date`;
  };
  const [daily, periods] = columns.includes('landing_page')
    ? ['attribution_daily', 'attribution_periods']
    : ['attribution_by_source', 'attribution_by_source_periods'];
  const cover = coverRange(range.start_date, range.end_date);
  if (cover.length === 0) cover.push({ grain: 'day', from: range.start_date, to: range.end_date });
  const parts = cover.map((p) =>
    p.grain === 'day'
      ? `select ${select} from ${daily} where ${where} and ${days(p.from, p.to)}`
      : `select ${select} from ${periods} where ${where} and grain = '${p.grain}' and ${days(p.from, p.to)}`,
  );
  return `(${parts.join('\n union all ')}) r`;
}
