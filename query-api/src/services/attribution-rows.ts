/**
 * Where a report reads the attribution rollup from, over [start, end): the whole months and weeks of the range from
 * the rollup by period and only the days at its edges from the rollup by day (a 90-day report then reads about a
 * fifth of the rows: docs/decisions.md, Storage, "Weeks and months"); with the landing page among the columns
 * attribution_periods and attribution_daily, without it the several times smaller attribution_by_source_periods
 * and attribution_by_source. A rollup row holds every model's sums side by side (docs/decisions.md, Storage, "The
 * models side by side"): the report reads its model's four, from the rows where they are not all zero.
 */
import { CREDIT_SUMS, type Model, MODELS, modelSumColumn } from '../../../contracts/src/attribution';
import { coverRange } from '../../../contracts/src/rollup-periods';

/**
 * How a report reads `model`'s sums from a rollup that holds the models side by side (the attribution rollups and
 * attribution_by_ad): `sums`, its four columns named `weight`, `new_weight`, `value_micros` and `cogs_micros`;
 * `credited`, the condition of the rows where they are not all zero (the rows a rollup by model held).
 */
export function modelSumsOf(model: Model): { sums: string; credited: string } {
  // The model names columns, so it is checked against the list rather than passed as a parameter.
  if (!MODELS.includes(model)) throw new Error(`modelSumsOf: unknown model ${String(model)}`);
  const columns = CREDIT_SUMS.map((s) => modelSumColumn(s, model));
  return {
    sums: CREDIT_SUMS.map((s, i) => `${columns[i]} as ${s}`).join(', '),
    credited: `(${columns.map((c) => `${c} <> 0`).join(' or ')})`,
  };
}

/**
 * A row source (to follow `from`) of the sums `model` credited to `columns`, unaggregated: one rollup row per day
 * or period, its sums named `weight`, `new_weight`, `value_micros` and `cogs_micros`, which the caller sums by
 * the columns it groups on. `where` holds the conditions besides the days and the model (store, goal); the days'
 * bounds are appended to `params`, whose placeholders follow.
 */
export function attributionRows(
  columns: readonly string[],
  where: string,
  model: Model,
  range: { start_date: string; end_date: string },
  params: unknown[],
): string {
  const byModel = modelSumsOf(model);
  const select = [...columns, byModel.sums].join(', ');
  const credited = `${where} and ${byModel.credited}`;
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
      ? `select ${select} from ${daily} where ${credited} and ${days(p.from, p.to)}`
      : `select ${select} from ${periods} where ${credited} and grain = '${p.grain}' and ${days(p.from, p.to)}`,
  );
  return `(${parts.join('\n union all ')}) r`;
}
