/**
 * The ad rollup in PostgreSQL (`attribution_by_ad`, docs/product.md, Ads attribution): applying a credit delta
 * inside the batch transaction, and comparing the stored rollup (and the stored credits summed the same way)
 * with a recomputation for the reconciliation.
 */
import type { Query } from '../../../storage/db';
import { AD_ROLLUP_KEY, type AdRollupSums } from '../domain/ad-rollup';
import { isZeroSums } from '../domain/credit-sums';
import {
  applyCounterDelta,
  type CounterWriteOptions,
  CREDIT_SUM_COLUMNS,
  type CounterTable,
  creditSumValues,
  dayAndTextKeys,
} from './pg-counter-rollup';

const ATTRIBUTION_BY_AD: CounterTable = {
  table: 'attribution_by_ad',
  keys: dayAndTextKeys(AD_ROLLUP_KEY.columns),
  values: CREDIT_SUM_COLUMNS,
};

/** Adds a delta to the ad rollup (keyed by `AD_ROLLUP_KEY`). */
export async function applyAdRollupDelta(
  q: Query,
  storeId: string,
  delta: ReadonlyMap<string, AdRollupSums>,
  opts: CounterWriteOptions = {},
): Promise<void> {
  await applyCounterDelta(
    q,
    storeId,
    ATTRIBUTION_BY_AD,
    [...delta].map(([k, d]) => ({ key: AD_ROLLUP_KEY.parts(k), values: creditSumValues(d) })),
    opts,
  );
}

/** One row of the ad rollup's drift: which table, the key (`|`-joined) and both sides. */
export interface AdRollupDrift {
  view: 'attribution_by_ad' | 'conversion_credits';
  key: string;
  expected: AdRollupSums | null;
  actual: AdRollupSums | null;
}

interface SumsRow {
  day: string;
  goal: string;
  model: string;
  channel: string;
  platform: string;
  campaign: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
  weight: string;
  new_weight: string;
  value_micros: string;
  cogs_micros: string;
}

/**
 * Differences between `expected` (the recomputation, keyed by `AD_ROLLUP_KEY`) and what the store holds, over the
 * days [from, to) (either end open when absent): the ad rollup itself, and the stored credits of paid
 * touchpoints summed by the same key (which checks the ad ids the credits carry).
 */
export async function adRollupDrift(
  q: Query,
  storeId: string,
  expected: ReadonlyMap<string, AdRollupSums>,
  range: { from?: string; to?: string },
): Promise<AdRollupDrift[]> {
  const inRange = (day: string): boolean => (!range.from || day >= range.from) && (!range.to || day < range.to);
  const dims = `to_char(day, 'YYYY-MM-DD') as day, goal, model, channel, platform, campaign, campaign_id, ad_set_id, ad_id`;
  const days = `($2::date is null or day >= $2::date) and ($3::date is null or day < $3::date)`;
  const params = [storeId, range.from ?? null, range.to ?? null];
  const sources: Array<[AdRollupDrift['view'], SumsRow[]]> = [
    [
      'attribution_by_ad',
      await q<SumsRow>(
        'reconcile.attribution_by_ad',
        `select ${dims}, weight, new_weight, value_micros, cogs_micros from attribution_by_ad where store_id = $1 and ${days}`,
        params,
      ),
    ],
    [
      'conversion_credits',
      await q<SumsRow>(
        'reconcile.credits_by_ad',
        `select ${dims}, sum(weight) as weight, sum(new_weight) as new_weight, sum(value_micros) as value_micros,
                sum(cogs_micros) as cogs_micros
         from conversion_credits where store_id = $1 and platform <> '' and ${days}
         group by day, goal, model, channel, platform, campaign, campaign_id, ad_set_id, ad_id
         having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0`,
        params,
      ),
    ],
  ];
  const drift: AdRollupDrift[] = [];
  for (const [view, rows] of sources) {
    const want = new Map([...expected].filter(([k, d]) => !isZeroSums(d) && inRange(AD_ROLLUP_KEY.get(k, 'day'))));
    for (const r of rows) {
      const k = AD_ROLLUP_KEY.ofColumns(r);
      const actual: AdRollupSums = {
        weight: Number(r.weight),
        newWeight: Number(r.new_weight),
        valueMicros: Number(r.value_micros),
        cogsMicros: Number(r.cogs_micros),
      };
      const exp = want.get(k);
      if (!exp || JSON.stringify(exp) !== JSON.stringify(actual)) {
        drift.push({ view, key: AD_ROLLUP_KEY.display(k), expected: exp ?? null, actual });
      }
      want.delete(k);
    }
    for (const [k, exp] of want) drift.push({ view, key: AD_ROLLUP_KEY.display(k), expected: exp, actual: null });
  }
  return drift;
}
