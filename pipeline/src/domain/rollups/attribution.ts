/**
 * A conversion's credits as stored rows, and the attribution rollups summed from them (docs/product.md,
 * Attribution): by day, by day without the landing page, and both by whole week and month. Pure: the batch
 * writer, the repair and the reconciliation derive every row with these functions.
 */
import type { Goal } from '../../../../contracts/src/attribution';
import { PERIOD_GRAINS, type PeriodGrain, periodStart } from '../../../../contracts/src/rollup-periods';
import { compositeKey } from '../composite-key';
import { addSums, type CreditSums } from '../credit-sums';
import type { ConversionView, Credit } from '../recompute-person';
import {
  CREDIT_SUM_COLUMNS,
  creditSumValues,
  dayAndTextKeys,
  type RollupRow,
  type RollupTable,
  rowOf,
  textColumn,
} from './table';

export interface CreditRow extends Credit {
  goal: Goal;
  key: string;
  day: string;
  /** The touchpoints whose credits the row sums: those of the conversion and model with the same dimensions. */
  touches: number;
}

/** The fields a credit row is grouped by: the model and every dimension of `conversion_credits`. */
const CREDIT_ROW_KEY = compositeKey([
  'model',
  'channel',
  'source',
  'medium',
  'campaign',
  'landingPage',
  'platform',
  'linkCode',
  'campaignId',
  'adSetId',
  'adId',
]);

/**
 * A conversion's credits as rows: one per model and distinct touchpoint dimensions, summing the credits of the
 * touchpoints that share them, at the first one's index (docs/decisions.md, Storage, "One credit row per
 * distinct touchpoint"). Every reader sums credits by dimensions, so the sums are what one row per touchpoint
 * gave; a conversion's number of touchpoints is the sum of its rows' `touches` under one model.
 * Fields written out (no spread, see creditOf in recompute-person.ts).
 */
export function creditRowsOf(c: ConversionView): CreditRow[] {
  const rows: CreditRow[] = [];
  const byDims = new Map<string, CreditRow>();
  for (const cr of c.credits) {
    const k = CREDIT_ROW_KEY.of(cr);
    const same = byDims.get(k);
    if (same) {
      same.weight += cr.weight;
      same.newWeight += cr.newWeight;
      same.valueMicros += cr.valueMicros;
      same.cogsMicros += cr.cogsMicros;
      same.touches++;
      continue;
    }
    const row: CreditRow = {
      channel: cr.channel,
      source: cr.source,
      medium: cr.medium,
      campaign: cr.campaign,
      landingPage: cr.landingPage,
      platform: cr.platform,
      linkCode: cr.linkCode,
      campaignId: cr.campaignId,
      adSetId: cr.adSetId,
      adId: cr.adId,
      model: cr.model,
      index: cr.index,
      weight: cr.weight,
      newWeight: cr.newWeight,
      valueMicros: cr.valueMicros,
      cogsMicros: cr.cogsMicros,
      goal: c.goal,
      key: c.key,
      day: c.day,
      touches: 1,
    };
    byDims.set(k, row);
    rows.push(row);
  }
  return rows;
}

/** A conversion's key: its goal and its key within the goal. */
export const CONVERSION_KEY = compositeKey(['goal', 'key']);

/** The attribution rollups' key: a credit's dimensions, in the order of attribution_daily's key columns. */
export const ROLLUP_KEY = compositeKey([
  'day',
  'goal',
  'model',
  'channel',
  'source',
  'medium',
  'campaign',
  'landingPage',
  'platform',
]);

/** The sums of one attribution rollup group, keyed by `ROLLUP_KEY`. */
export type RollupDelta = CreditSums;

/** Adds `sign` times the credits into the delta map (exact integer arithmetic). */
export function accumulateCredits(into: Map<string, RollupDelta>, credits: Iterable<CreditRow>, sign: 1 | -1): void {
  for (const c of credits) addSums(into, ROLLUP_KEY.of(c), c, sign);
}

/** The rollup key without the landing page (the attribution_by_source rollup; the page kept as ""). */
export function withoutLandingPage(delta: ReadonlyMap<string, RollupDelta>): Map<string, RollupDelta> {
  const out = new Map<string, RollupDelta>();
  for (const [k, d] of delta) addSums(out, ROLLUP_KEY.with(k, 'landingPage', ''), d);
  return out;
}

/** A daily delta summed by the periods of `grain`: keyed as the daily one, each day moved to its period's first. */
export function byPeriod(delta: ReadonlyMap<string, RollupDelta>, grain: PeriodGrain): Map<string, RollupDelta> {
  const out = new Map<string, RollupDelta>();
  for (const [k, d] of delta) addSums(out, ROLLUP_KEY.with(k, 'day', periodStart(grain, ROLLUP_KEY.get(k, 'day'))), d);
  return out;
}

export const ATTRIBUTION_DAILY: RollupTable = {
  table: 'attribution_daily',
  keys: dayAndTextKeys(ROLLUP_KEY.columns),
  values: CREDIT_SUM_COLUMNS,
};
export const ATTRIBUTION_BY_SOURCE: RollupTable = {
  table: 'attribution_by_source',
  keys: ATTRIBUTION_DAILY.keys.filter((c) => c.name !== 'landing_page'),
  values: CREDIT_SUM_COLUMNS,
};
/** The same two by whole week and whole month: `day` holds the period's first day, `grain` which period. */
export const ATTRIBUTION_PERIODS: RollupTable = {
  table: 'attribution_periods',
  keys: [textColumn('grain'), ...ATTRIBUTION_DAILY.keys],
  values: CREDIT_SUM_COLUMNS,
};
export const ATTRIBUTION_BY_SOURCE_PERIODS: RollupTable = {
  table: 'attribution_by_source_periods',
  keys: [textColumn('grain'), ...ATTRIBUTION_BY_SOURCE.keys],
  values: CREDIT_SUM_COLUMNS,
};

/** The attribution rollups, in the order a batch writes them (one order for every worker). */
export const ATTRIBUTION_ROLLUPS = [
  ATTRIBUTION_DAILY,
  ATTRIBUTION_BY_SOURCE,
  ATTRIBUTION_PERIODS,
  ATTRIBUTION_BY_SOURCE_PERIODS,
] as const;

const dailyRows = (t: RollupTable, delta: ReadonlyMap<string, RollupDelta>, withPage: boolean): RollupRow[] =>
  [...delta].map(([k, d]) => rowOf(t, ROLLUP_KEY.parts(k, withPage ? undefined : 'landingPage'), creditSumValues(d)));

const periodRows = (t: RollupTable, delta: ReadonlyMap<string, RollupDelta>, withPage: boolean): RollupRow[] =>
  PERIOD_GRAINS.flatMap((grain) =>
    [...byPeriod(delta, grain)].map(([k, d]) =>
      rowOf(t, [grain, ...ROLLUP_KEY.parts(k, withPage ? undefined : 'landingPage')], creditSumValues(d)),
    ),
  );

/** A credit delta's rows for each attribution rollup, in `ATTRIBUTION_ROLLUPS` order. */
export function attributionRollupRows(
  delta: ReadonlyMap<string, RollupDelta>,
): Array<{ table: RollupTable; rows: RollupRow[] }> {
  const bySource = withoutLandingPage(delta);
  return [
    { table: ATTRIBUTION_DAILY, rows: dailyRows(ATTRIBUTION_DAILY, delta, true) },
    { table: ATTRIBUTION_BY_SOURCE, rows: dailyRows(ATTRIBUTION_BY_SOURCE, bySource, false) },
    { table: ATTRIBUTION_PERIODS, rows: periodRows(ATTRIBUTION_PERIODS, delta, true) },
    { table: ATTRIBUTION_BY_SOURCE_PERIODS, rows: periodRows(ATTRIBUTION_BY_SOURCE_PERIODS, bySource, false) },
  ];
}
