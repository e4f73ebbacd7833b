/**
 * The credit rollups phase: the four attribution rollups, the ad rollup, and the stored credits summed by each
 * one's key (which checks the credits themselves), all against the recomputation through `compareRollup`.
 */
import { PERIOD_GRAINS, type PeriodGrain, periodEnd } from '../../../../contracts/src/rollup-periods';
import type { Query } from '../../../../storage/db';
import { selectedAs } from '../../adapters/pg-counter-rollup';
import { ATTRIBUTION_BY_AD, type AdRollupSums } from '../../domain/rollups/ad';
import {
  ATTRIBUTION_BY_SOURCE,
  ATTRIBUTION_BY_SOURCE_PERIODS,
  ATTRIBUTION_DAILY,
  ATTRIBUTION_PERIODS,
  byPeriod,
  ROLLUP_KEY,
  type RollupDelta,
  withoutLandingPage,
} from '../../domain/rollups/attribution';
import type { CreditSums } from '../../domain/credit-sums';
import { creditSumValues, keyOfTable, type RollupTable } from '../../domain/rollups/table';
import { compareRollup } from './compare';
import { DAY_FILTER, type DayRange, dayParams, inDayRange, type ReportDrift } from './types';

/** A table's columns as selected by name. */
const columnsOf = (t: RollupTable): string => [...t.keys, ...t.values].map((c) => selectedAs(c)).join(', ');

/**
 * The same sums as value lists, keyed by the table's key: the delta's own keys when they are in the table's key
 * order already (`ROLLUP_KEY` for attribution_daily, `AD_ROLLUP_KEY` for attribution_by_ad), else rebuilt from
 * `partsOf` each key.
 */
function asValues(
  delta: ReadonlyMap<string, CreditSums>,
  t: RollupTable,
  partsOf?: (key: string) => string[],
): Map<string, number[]> {
  if (!partsOf) return new Map([...delta].map(([k, d]) => [k, creditSumValues(d)]));
  const key = keyOfTable(t);
  return new Map([...delta].map(([k, d]) => [key.ofParts(partsOf(k)), creditSumValues(d)]));
}

const dayIn = (t: RollupTable, range: DayRange) => {
  const key = keyOfTable(t);
  return (k: string): boolean => inDayRange(key.get(k, 'day'), range);
};

/** The credits summed by a table's dimensions (a credit row's column names are the rollups'). */
const creditSumsSql = (t: RollupTable, where = ''): string => {
  const dims = t.keys.map((c) => c.name);
  return `select ${t.keys.map((c) => selectedAs(c)).join(', ')}, sum(weight) as weight, sum(new_weight) as new_weight,
            sum(value_micros) as value_micros, sum(cogs_micros) as cogs_micros
     from conversion_credits where store_id = $1 ${where} and ${DAY_FILTER}
     group by ${dims.join(', ')}
     having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0`;
};

export async function compareAttributionRollups(
  q: Query,
  storeId: string,
  expected: ReadonlyMap<string, RollupDelta>,
  range: DayRange,
  report: ReportDrift,
): Promise<void> {
  const params = dayParams(storeId, range);
  const read = (t: RollupTable) =>
    q<Record<string, unknown>>(
      `reconcile.${t.table}`,
      `select ${columnsOf(t)} from ${t.table} where store_id = $1 and ${DAY_FILTER}`,
      params,
    );
  const daily = asValues(expected, ATTRIBUTION_DAILY);
  const bySource = withoutLandingPage(expected);
  compareRollup(
    {
      view: 'attribution_daily',
      table: ATTRIBUTION_DAILY,
      expected: daily,
      rows: await read(ATTRIBUTION_DAILY),
      inScope: dayIn(ATTRIBUTION_DAILY, range),
    },
    report,
  );
  compareRollup(
    {
      view: 'attribution_by_source',
      table: ATTRIBUTION_BY_SOURCE,
      expected: asValues(bySource, ATTRIBUTION_BY_SOURCE, (k) => ROLLUP_KEY.parts(k, 'landingPage')),
      rows: await read(ATTRIBUTION_BY_SOURCE),
      inScope: dayIn(ATTRIBUTION_BY_SOURCE, range),
    },
    report,
  );
  // The weeks and months wholly inside the compared days (one reaching outside sums days not compared).
  const whollyInRange = (grain: PeriodGrain, start: string): boolean => {
    const end = periodEnd(grain, start);
    return inDayRange(start, range) && (!range.to || (end !== null && end <= range.to));
  };
  for (const [view, table, byDay, withPage] of [
    ['attribution_periods', ATTRIBUTION_PERIODS, expected, true],
    ['attribution_by_source_periods', ATTRIBUTION_BY_SOURCE_PERIODS, bySource, false],
  ] as const) {
    const periods = new Map<string, number[]>();
    for (const grain of PERIOD_GRAINS)
      for (const [k, v] of asValues(byPeriod(byDay, grain), table, (k) => [
        grain,
        ...ROLLUP_KEY.parts(k, withPage ? undefined : 'landingPage'),
      ]))
        periods.set(k, v);
    const key = keyOfTable(table);
    compareRollup(
      {
        view,
        table,
        expected: periods,
        rows: await read(table),
        inScope: (k) => whollyInRange(key.get(k, 'grain') as PeriodGrain, key.get(k, 'day')),
      },
      report,
    );
  }
  compareRollup(
    {
      view: 'conversion_credits',
      table: ATTRIBUTION_DAILY,
      expected: daily,
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
  const want = asValues(expected, t);
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
