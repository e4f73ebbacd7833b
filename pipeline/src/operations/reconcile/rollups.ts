/**
 * The credit rollups phase: the four attribution rollups, the ad rollup, and the stored credits summed by each
 * one's key (which checks the credits themselves), all against the recomputation through `compareRollup`.
 */
import { MODELS } from '../../../../contracts/src/attribution';
import { type PeriodGrain, periodEnd } from '../../../../contracts/src/rollup-periods';
import type { Query } from '../../../../storage/db';
import { selectedAs } from '../../adapters/pg-counter-rollup';
import { adRollupValues, ATTRIBUTION_BY_AD, type AdRollupSums } from '../../domain/rollups/ad';
import {
  ATTRIBUTION_DAILY,
  attributionRollupValues,
  isByPeriod,
  type RollupDelta,
} from '../../domain/rollups/attribution';
import { CREDIT_SUM_COLUMNS, keyOfTable, type RollupTable } from '../../domain/rollups/table';
import { compareRollup } from './compare';
import { DAY_FILTER, type DayRange, dayParams, type DriftRow, inDayRange, type ReportDrift } from './types';

/** A table's columns as selected by name. */
const columnsOf = (t: RollupTable): string => [...t.keys, ...t.values].map((c) => selectedAs(c)).join(', ');

const dayIn = (t: RollupTable, range: DayRange) => {
  const key = keyOfTable(t);
  return (k: string): boolean => inDayRange(key.get(k, 'day'), range);
};

/** The stored credits summed as a rollup's value columns: each model's sums at its own (`MODEL_SUM_COLUMNS`). */
const CREDIT_SUMS_BY_MODEL: readonly string[] = MODELS.flatMap((m) =>
  CREDIT_SUM_COLUMNS.map((c) => `coalesce(sum(${c.name}) filter (where model = '${m}'), 0)`),
);

/** The credits summed by a table's dimensions (a credit row's column names are the rollups'). */
const creditSumsSql = (t: RollupTable, where = ''): string =>
  `select ${t.keys.map((c) => selectedAs(c)).join(', ')},
            ${CREDIT_SUMS_BY_MODEL.map((sum, i) => `${sum} as ${t.values[i]!.name}`).join(', ')}
     from conversion_credits where store_id = $1 ${where} and ${DAY_FILTER}
     group by ${t.keys.map((c) => c.name).join(', ')}
     having ${CREDIT_SUMS_BY_MODEL.map((sum) => `${sum} <> 0`).join(' or ')}`;

export async function compareAttributionRollups(
  q: Query,
  storeId: string,
  expected: ReadonlyMap<string, RollupDelta>,
  range: DayRange,
  report: ReportDrift,
): Promise<void> {
  const params = dayParams(storeId, range);
  // The weeks and months wholly inside the compared days (one reaching outside sums days not compared).
  const whollyInRange = (grain: PeriodGrain, start: string): boolean => {
    const end = periodEnd(grain, start);
    return inDayRange(start, range) && (!range.to || (end !== null && end <= range.to));
  };
  const byTable = attributionRollupValues(expected);
  for (const { table, values } of byTable) {
    const key = keyOfTable(table);
    compareRollup(
      {
        view: table.table as DriftRow['view'],
        table,
        expected: values,
        rows: await q<Record<string, unknown>>(
          `reconcile.${table.table}`,
          `select ${columnsOf(table)} from ${table.table} where store_id = $1 and ${DAY_FILTER}`,
          params,
        ),
        inScope: isByPeriod(table)
          ? (k) => whollyInRange(key.get(k, 'grain') as PeriodGrain, key.get(k, 'day'))
          : dayIn(table, range),
      },
      report,
    );
  }
  compareRollup(
    {
      view: 'conversion_credits',
      table: ATTRIBUTION_DAILY,
      // The stored credits summed as the daily rollup: the same expectation as that table's.
      expected: byTable.find((t) => t.table === ATTRIBUTION_DAILY)!.values,
      rows: await q('reconcile.credits', creditSumsSql(ATTRIBUTION_DAILY), params),
      inScope: dayIn(ATTRIBUTION_DAILY, range),
    },
    report,
  );
}

/** The ad rollup, and the stored credits of paid touchpoints summed by the same key (which checks their ad ids). */
export async function compareAdRollup(
  q: Query,
  storeId: string,
  expected: ReadonlyMap<string, AdRollupSums>,
  range: DayRange,
  report: ReportDrift,
): Promise<void> {
  const t = ATTRIBUTION_BY_AD;
  const params = dayParams(storeId, range);
  const want = adRollupValues(expected);
  const sources = [
    [
      'attribution_by_ad',
      await q<Record<string, unknown>>(
        'reconcile.attribution_by_ad',
        `select ${columnsOf(t)} from ${t.table} where store_id = $1 and ${DAY_FILTER}`,
        params,
      ),
    ],
    ['conversion_credits', await q('reconcile.credits_by_ad', creditSumsSql(t, "and platform <> ''"), params)],
  ] as const;
  for (const [view, rows] of sources)
    compareRollup({ view, table: t, expected: want, rows, inScope: dayIn(t, range) }, report);
}
