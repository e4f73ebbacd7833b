/**
 * A conversion's credits as stored rows, and the attribution rollups summed from them (docs/product.md,
 * Attribution): by day, by day without the landing page, and both by whole week and month, each row holding every
 * model's sums. Pure: the batch writer, the repair and the reconciliation derive every row with these functions.
 */
import { CREDIT_SUMS, type Goal, MODELS, modelSumColumn } from '../../../../contracts/src/attribution';
import { PERIOD_GRAINS, type PeriodGrain, periodStart } from '../../../../contracts/src/rollup-periods';
import { compositeKey, type CompositeKey } from '../composite-key';
import { addSums, type CreditSums } from '../credit-sums';
import type { ConversionView, Credit } from '../recompute-person';
import {
  bigintColumn,
  type Column,
  dayAndTextKeys,
  keyOfTable,
  type RollupRow,
  rowsOfDelta,
  type RollupTable,
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

/**
 * A credit delta's key: a credit's model and the dimensions reports group by. The rollups key their rows by the
 * dimensions alone and hold the models side by side (`modelValuesOf`); the platform is the ad rollup's
 * (docs/decisions.md, Storage, "The models side by side").
 */
export const ROLLUP_KEY = compositeKey([
  'day',
  'goal',
  'model',
  'channel',
  'source',
  'medium',
  'campaign',
  'landingPage',
]);

/** The sums of one attribution rollup group, keyed by `ROLLUP_KEY`. */
export type RollupDelta = CreditSums;

/** Adds `sign` times the credits into the delta map (exact integer arithmetic). */
export function accumulateCredits(into: Map<string, RollupDelta>, credits: Iterable<CreditRow>, sign: 1 | -1): void {
  for (const c of credits) addSums(into, ROLLUP_KEY.of(c), c, sign);
}

/**
 * The summed columns of the credit rollups (the attribution rollups and attribution_by_ad): the four sums of each
 * model side by side, `<sum>_<model>` in the order of `MODELS` (docs/decisions.md, Storage, "The models side by
 * side"). A group's row holds every model's credit, so a conversion's touchpoints cost one row per group rather
 * than one per group and model.
 */
export const MODEL_SUM_COLUMNS: readonly Column[] = MODELS.flatMap((model) =>
  CREDIT_SUMS.map((sum) => bigintColumn(modelSumColumn(sum, model))),
);

/** Where each model's four sums start in a row's values (`MODEL_SUM_COLUMNS` order). */
const MODEL_OFFSET = new Map<string, number>(MODELS.map((m, i) => [m, i * CREDIT_SUMS.length]));

const DAILY_KEYS = dayAndTextKeys(ROLLUP_KEY.columns.filter((c) => c !== 'model'));

export const ATTRIBUTION_DAILY: RollupTable = {
  table: 'attribution_daily',
  keys: DAILY_KEYS,
  values: MODEL_SUM_COLUMNS,
};
export const ATTRIBUTION_BY_SOURCE: RollupTable = {
  table: 'attribution_by_source',
  keys: DAILY_KEYS.filter((c) => c.name !== 'landing_page'),
  values: MODEL_SUM_COLUMNS,
};
/** The same two by whole week and whole month: `day` holds the period's first day, `grain` which period. */
export const ATTRIBUTION_PERIODS: RollupTable = {
  table: 'attribution_periods',
  keys: [textColumn('grain'), ...ATTRIBUTION_DAILY.keys],
  values: MODEL_SUM_COLUMNS,
};
export const ATTRIBUTION_BY_SOURCE_PERIODS: RollupTable = {
  table: 'attribution_by_source_periods',
  keys: [textColumn('grain'), ...ATTRIBUTION_BY_SOURCE.keys],
  values: MODEL_SUM_COLUMNS,
};

/** The attribution rollups, in the order a batch writes them (one order for every worker). */
export const ATTRIBUTION_ROLLUPS = [
  ATTRIBUTION_DAILY,
  ATTRIBUTION_BY_SOURCE,
  ATTRIBUTION_PERIODS,
  ATTRIBUTION_BY_SOURCE_PERIODS,
] as const;

/**
 * A credit delta's groups, its keys split once: `deltaKey` names the fields (a model and dimensions), and each
 * group knows where its model's sums go (a model without columns is named by `where` rather than dropped).
 */
export interface DeltaGroups {
  fieldAt: ReadonlyMap<string, number>;
  groups: ReadonlyArray<{ parts: readonly string[]; offset: number; sums: CreditSums }>;
}

export function groupsOf(
  delta: ReadonlyMap<string, CreditSums>,
  deltaKey: CompositeKey<string>,
  where: string,
): DeltaGroups {
  const fieldAt = new Map(deltaKey.columns.map((c, i) => [c, i]));
  const modelAt = fieldAt.get('model')!;
  const groups: Array<DeltaGroups['groups'][number]> = [];
  for (const [k, sums] of delta) {
    const parts = deltaKey.parts(k);
    const offset = MODEL_OFFSET.get(parts[modelAt]!);
    if (offset === undefined) throw new Error(`${where}: no columns for the model ${parts[modelAt]}`);
    groups.push({ parts, offset, sums });
  }
  return { fieldAt, groups };
}

/**
 * The groups as the values of a table that holds the models side by side (`MODEL_SUM_COLUMNS`), keyed by its key:
 * summed over the fields its key leaves out (the model, the landing page), each day moved to the first day of its
 * `grain` for a table by period, each model's sums at its columns.
 */
export function modelValuesOf(
  t: RollupTable,
  { fieldAt, groups }: DeltaGroups,
  grain?: PeriodGrain,
): Map<string, number[]> {
  const tableKey = keyOfTable(t);
  const picked = t.keys.filter((c) => c.name !== 'grain').map((c) => fieldAt.get(c.name)!);
  const dayAt = picked.indexOf(fieldAt.get('day')!);
  const periodOf = new Map<string, string>();
  const out = new Map<string, number[]>();
  for (const { parts, offset, sums: d } of groups) {
    const cells = picked.map((i) => parts[i]!);
    if (grain) {
      const day = cells[dayAt]!;
      let first = periodOf.get(day);
      if (first === undefined) periodOf.set(day, (first = periodStart(grain, day)));
      cells[dayAt] = first;
      cells.unshift(grain);
    }
    const key = tableKey.ofParts(cells);
    let values = out.get(key);
    if (!values) out.set(key, (values = new Array<number>(MODEL_SUM_COLUMNS.length).fill(0)));
    values[offset]! += d.weight;
    values[offset + 1]! += d.newWeight;
    values[offset + 2]! += d.valueMicros;
    values[offset + 3]! += d.cogsMicros;
  }
  return out;
}

/** A credit delta (keyed by `ROLLUP_KEY`) as the values of one attribution rollup (see `modelValuesOf`). */
export const rollupValues = (
  t: RollupTable,
  delta: ReadonlyMap<string, RollupDelta>,
  grain?: PeriodGrain,
): Map<string, number[]> => modelValuesOf(t, groupsOf(delta, ROLLUP_KEY, t.table), grain);

/** Whether a table holds whole weeks and months (its key starts with the `grain`) rather than days. */
export const isByPeriod = (t: RollupTable): boolean => t.keys[0]?.name === 'grain';

/**
 * A credit delta's values for each attribution rollup, in `ATTRIBUTION_ROLLUPS` order: a table by period holds its
 * weeks and its months together. The delta's keys are split once for all the tables (a batch's delta has a group
 * per credited day, model and touchpoint dimensions).
 */
export function attributionRollupValues(
  delta: ReadonlyMap<string, RollupDelta>,
): Array<{ table: RollupTable; values: Map<string, number[]> }> {
  const groups = groupsOf(delta, ROLLUP_KEY, 'attribution rollups');
  return ATTRIBUTION_ROLLUPS.map((table) => ({
    table,
    values: isByPeriod(table)
      ? new Map(PERIOD_GRAINS.flatMap((grain) => [...modelValuesOf(table, groups, grain)]))
      : modelValuesOf(table, groups),
  }));
}

/** A credit delta's rows for each attribution rollup, in `ATTRIBUTION_ROLLUPS` order. */
export function attributionRollupRows(
  delta: ReadonlyMap<string, RollupDelta>,
): Array<{ table: RollupTable; rows: RollupRow[] }> {
  return attributionRollupValues(delta).map(({ table, values }) => ({ table, rows: rowsOfDelta(table, values) }));
}
