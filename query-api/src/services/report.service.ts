/**
 * Attribution reports (get-list and get-list-sum): the attribution rollup summed over [start_date, end_date)
 * in the store's time zone (read by day, week and month: attribution-rows.ts), one record per combination of the
 * requested dimensions, fully joined with ad spend on the requested dimensions spend has, with the metric
 * formulas of docs/decisions.md (Views and metrics). The summary is computed from the same grouped rows, so it
 * always equals the sum of every page.
 */
import { requireFitFor } from './data-driven-gate';
import { DIMENSIONS, type Dimension, MONEY_SCALE, WEIGHT_SCALE } from '../../../contracts/src/attribution';
import { computeMetrics, roundMoney, roundTo } from '../../../contracts/src/metrics';
import {
  ATTRIBUTION_METRICS,
  type AttributionListData,
  type AttributionRecord,
  type AttributionSummary,
  type GetListRequest,
  type GetListSumRequest,
  type OrderSpec,
} from '../../../contracts/src/reports';
import type { StoreRecord } from '../../../storage/store-registry';
import type { Db } from '../../../storage/db';
import { badRequest } from '../app/errors';
import { attributionRows } from './attribution-rows';
import { compareBy, requestedValue, type SortKey, validateSort } from './analytics-lists';

export const MAX_RANGE_DAYS = 366;

/** Integer sums of one group, in stored units. */
export interface GroupSums {
  dims: Record<Dimension, string>;
  weight: number;
  newWeight: number;
  valueMicros: number;
  cogsMicros: number;
  spendMicros: number;
  impressions: number;
  clicks: number;
  adValueMicros: number;
}

/** Validates a YYYY-MM-DD date and returns its UTC midnight (ms), or throws naming the field. */
export function parseDay(field: string, value: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== value) {
    throw badRequest(field, `must be a calendar date YYYY-MM-DD, got "${value}"`);
  }
  return t;
}

export function validateRange(start: string, end: string): void {
  const s = parseDay('start_date', start);
  const e = parseDay('end_date', end);
  if (e <= s)
    throw badRequest('end_date', 'must be after start_date (end_date is exclusive: pass the day after the last day)');
  if ((e - s) / 86_400_000 > MAX_RANGE_DAYS)
    throw badRequest('end_date', `must be at most ${MAX_RANGE_DAYS} days after start_date`);
}

export function validateDimensions(dimensions: readonly string[]): Dimension[] {
  if (dimensions.length < 1 || dimensions.length > 3) throw badRequest('dimensions', 'must have 1 to 3 entries');
  for (const d of dimensions) {
    if (!(DIMENSIONS as readonly string[]).includes(d))
      throw badRequest('dimensions', `"${d}" is not one of ${DIMENSIONS.join(', ')}`);
  }
  if (new Set(dimensions).size !== dimensions.length) throw badRequest('dimensions', 'must not repeat a dimension');
  return dimensions as Dimension[];
}

export function validateOrders(orders: readonly OrderSpec[] | undefined, dims: readonly Dimension[]): SortKey[] {
  return validateSort(orders, [...ATTRIBUTION_METRICS, ...dims]);
}

export function toRecord(g: GroupSums, dims: readonly Dimension[]): AttributionRecord {
  const conversions = g.weight / WEIGHT_SCALE;
  const conversionValue = g.valueMicros / MONEY_SCALE;
  const spend = g.spendMicros / MONEY_SCALE;
  const adValue = g.adValueMicros / MONEY_SCALE;
  const metrics = computeMetrics({
    conversions,
    conversion_value: conversionValue,
    spend,
    impressions: g.impressions,
    clicks: g.clicks,
    ad_conversion_value: adValue,
    cost_of_goods: g.cogsMicros / MONEY_SCALE,
  });
  return {
    campaign: requestedValue(g.dims, dims, 'campaign'),
    channel: requestedValue(g.dims, dims, 'channel'),
    source: requestedValue(g.dims, dims, 'source'),
    // platform is not a get-list dimension: one record per requested key spans every platform.
    platform: '',
    medium: requestedValue(g.dims, dims, 'medium'),
    landing_page: requestedValue(g.dims, dims, 'landing_page'),
    conversions: roundTo(conversions, 6),
    new_lead_conversions: roundTo(g.newWeight / WEIGHT_SCALE, 6),
    conversion_value: roundMoney(conversionValue),
    spend: roundMoney(spend),
    clicks: g.clicks,
    ad_conversion_value: roundMoney(adValue),
    impressions: g.impressions,
    ...metrics,
  };
}

/** The integer sums of a group without its dimension values. */
export type ReportSums = Omit<GroupSums, 'dims'>;

export const emptySums = (): ReportSums => ({
  weight: 0,
  newWeight: 0,
  valueMicros: 0,
  cogsMicros: 0,
  spendMicros: 0,
  impressions: 0,
  clicks: 0,
  adValueMicros: 0,
});

export function addReportSums(into: ReportSums, from: ReportSums): void {
  into.weight += from.weight;
  into.newWeight += from.newWeight;
  into.valueMicros += from.valueMicros;
  into.cogsMicros += from.cogsMicros;
  into.spendMicros += from.spendMicros;
  into.impressions += from.impressions;
  into.clicks += from.clicks;
  into.adValueMicros += from.adValueMicros;
}

/** The fourteen numbers of get-list's formulas for a total (a record without its dimension values). */
export function summaryOfSums(s: ReportSums): AttributionSummary {
  const {
    campaign: _c,
    channel: _ch,
    source: _s,
    platform: _p,
    medium: _m,
    landing_page: _l,
    ...summary
  } = toRecord({ dims: { campaign: '', channel: '', source: '', medium: '', landing_page: '' }, ...s }, []);
  return summary;
}

export function compareRecords(
  a: AttributionRecord,
  b: AttributionRecord,
  keys: readonly SortKey[],
  dims: readonly Dimension[],
): number {
  return compareBy(a, b, keys, dims);
}

export class ReportService {
  constructor(private readonly db: Db) {}

  /** Grouped sums for the filters: attribution rows fully joined with spend on the requested dimensions. */
  private async groups(
    store: StoreRecord,
    req: GetListSumRequest,
  ): Promise<{ dims: Dimension[]; groups: GroupSums[] }> {
    validateRange(req.start_date, req.end_date);
    const dims = validateDimensions(req.dimensions);
    await requireFitFor(this.db, store.store_id, req.model, req.goal);
    const cols: string[] = dims;
    // Spend has no landing page: with landing_page requested, spend rows carry landing_page "".
    const spendCols = cols.map((c) => (c === 'landing_page' ? `''::text as landing_page` : c));
    const spendGroup = cols.filter((c) => c !== 'landing_page');
    // Only landing_page requested: all spend is one row (none when there is no spend).
    const spendGrouping = spendGroup.length ? `group by ${spendGroup.join(', ')}` : 'having count(*) > 0';
    const params: unknown[] = [store.store_id, req.goal, req.start_date, req.end_date];
    const credited = attributionRows(cols, 'store_id = $1 and goal = $2', req.model, req, params);
    const rows = await this.db.query<Record<string, string>>(
      'report.groups',
      `with a as (
         select ${cols.join(', ')}, sum(weight) as weight, sum(new_weight) as new_weight, sum(value_micros) as value_micros,
                sum(cogs_micros) as cogs_micros
         from ${credited}
         group by ${cols.join(', ')}
       ), s as (
         select ${spendCols.join(', ')}, sum(spend_micros) as spend_micros, sum(impressions) as impressions, sum(clicks) as clicks,
                sum(conv_value_micros) as ad_value_micros
         from ad_spend_daily
         where store_id = $1 and day >= $3::date and day < $4::date
         ${spendGrouping}
       )
       select ${cols.map((c) => `coalesce(a.${c}, s.${c}) as ${c}`).join(', ')},
              coalesce(a.weight, 0) as weight, coalesce(a.new_weight, 0) as new_weight, coalesce(a.value_micros, 0) as value_micros,
              coalesce(a.cogs_micros, 0) as cogs_micros, coalesce(s.spend_micros, 0) as spend_micros,
              coalesce(s.impressions, 0) as impressions, coalesce(s.clicks, 0) as clicks, coalesce(s.ad_value_micros, 0) as ad_value_micros
       from a full join s using (${cols.join(', ')})`,
      params,
    );
    const groups = rows.map((r): GroupSums => ({
      dims: {
        campaign: r.campaign ?? '',
        channel: r.channel ?? '',
        source: r.source ?? '',
        medium: r.medium ?? '',
        landing_page: r.landing_page ?? '',
      },
      weight: Number(r.weight),
      newWeight: Number(r.new_weight),
      valueMicros: Number(r.value_micros),
      cogsMicros: Number(r.cogs_micros),
      spendMicros: Number(r.spend_micros),
      impressions: Number(r.impressions),
      clicks: Number(r.clicks),
      adValueMicros: Number(r.ad_value_micros),
    }));
    return { dims, groups };
  }

  async list(store: StoreRecord, req: GetListRequest): Promise<AttributionListData> {
    const dims = validateDimensions(req.dimensions);
    const keys = validateOrders(req.orders, dims);
    const { groups } = await this.groups(store, req);
    const records = groups.map((g) => toRecord(g, dims));
    records.sort((a, b) => compareRecords(a, b, keys.length ? keys : [{ column: 'conversions', desc: true }], dims));
    const from = (req.page - 1) * req.page_size;
    return { total: records.length, page_size: req.page_size, records: records.slice(from, from + req.page_size) };
  }

  async sum(store: StoreRecord, req: GetListSumRequest): Promise<AttributionSummary> {
    const { groups } = await this.groups(store, req);
    const total = emptySums();
    for (const g of groups) addReportSums(total, g);
    return summaryOfSums(total);
  }
}
