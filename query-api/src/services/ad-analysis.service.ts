/**
 * The ad report and its drill-downs (docs/product.md, Ads attribution): get/ad-analysis/list and list-sum from
 * the ad rollup and the ad-spend rows, get/ad-analysis/customer-list and order/campaign-list from the stored
 * credits of each conversion. Credits and spend rows go through the same resolution (ad-keys.ts), so the
 * customers behind a row add up to that row.
 */
import { requireFitFor } from './data-driven-gate';
import { type AdDimension, type AdFilter, MAX_AD_FILTERS } from '../../../contracts/src/ads';
import type {
  AdAnalysisListRequest,
  AdAnalysisSumRequest,
  AdCustomerListData,
  AdCustomerListRequest,
  AdListData,
  AdRecord,
  AdSummary,
  CampaignOrderListData,
  CampaignOrderListRequest,
} from '../../../contracts/src/ads';
import { GOALS, MODELS, MONEY_SCALE, WEIGHT_SCALE, type Goal, type Model } from '../../../contracts/src/attribution';
import { RATIO_DECIMALS, roundMoney, roundTo } from '../../../contracts/src/metrics';
import { ATTRIBUTION_METRICS, type ApiTouchpoint } from '../../../contracts/src/reports';
import { localDateTime } from '../../../contracts/src/time';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';
import { badRequest } from '../app/errors';
import {
  type AdDirectory,
  adGroupKey,
  adRecordDims,
  type AdPredicate,
  dirKey,
  type RawAdRow,
  resolveAdRow,
  type ResolvedAdRow,
  validateAdDimensions,
  validateAdFilters,
} from './ad-keys';
import { sortRecords, validateSort } from './analytics-lists';
import { modelSumsOf } from './attribution-rows';
import { addReportSums, emptySums, type ReportSums, summaryOfSums, validateRange } from './report.service';

export const DEFAULT_DRILL_PAGE_SIZE = 20;
const AD_METRIC_COLUMNS = [...ATTRIBUTION_METRICS, 'ctr', 'cvr'] as const;

/** The fourteen numbers (get-list's formulas) plus ctr and cvr, from integer sums. */
function summaryOf(s: ReportSums): AdSummary {
  return {
    ...summaryOfSums(s),
    ctr: roundTo(s.impressions === 0 ? 0 : s.clicks / s.impressions, RATIO_DECIMALS),
    cvr: roundTo(s.clicks === 0 ? 0 : s.weight / WEIGHT_SCALE / s.clicks, RATIO_DECIMALS),
  };
}

function validateModelGoal(model: unknown, goal: unknown): void {
  if (!(MODELS as readonly unknown[]).includes(model)) throw badRequest('model', `must be one of ${MODELS.join(', ')}`);
  if (!(GOALS as readonly unknown[]).includes(goal)) throw badRequest('goal', `must be one of ${GOALS.join(', ')}`);
}

function validateFilters(filters: readonly AdFilter[] | undefined): AdPredicate {
  if (filters && filters.length > MAX_AD_FILTERS)
    throw badRequest('filters', `must have at most ${MAX_AD_FILTERS} entries`);
  return validateAdFilters(filters);
}

interface SumsRow {
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
  spend_micros: string;
  impressions: string;
  clicks: string;
  ad_value_micros: string;
}

const rawOf = (r: SumsRow): RawAdRow => ({
  channel: r.channel,
  platform: r.platform,
  campaign: r.campaign,
  campaignId: r.campaign_id,
  adSetId: r.ad_set_id,
  adId: r.ad_id,
});

const sumsOf = (r: SumsRow): ReportSums => ({
  weight: Number(r.weight),
  newWeight: Number(r.new_weight),
  valueMicros: Number(r.value_micros),
  cogsMicros: Number(r.cogs_micros),
  spendMicros: Number(r.spend_micros),
  impressions: Number(r.impressions),
  clicks: Number(r.clicks),
  adValueMicros: Number(r.ad_value_micros),
});

interface StoredTouch {
  campaign: string;
  channel: string;
  source: string;
  medium: string;
  time: number;
}

interface ConversionRow {
  goal: string;
  conversion_key: string;
  order_id: string | null;
  occurred_at: Date;
  value_micros: string;
  is_new: boolean;
  first_touch: StoredTouch;
  last_touch: StoredTouch;
  customer_id: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
}

export class AdAnalysisService {
  constructor(private readonly db: Db) {}

  /** Names, accounts and campaign ids of the store's ads, from all its ad-spend rows (the latest row wins). */
  private async directory(storeId: string): Promise<AdDirectory> {
    const rows = await this.db.query<{
      level: 'campaign' | 'ad_set' | 'ad';
      platform: string;
      id: string;
      name: string;
      account_id: string;
    }>(
      'ads.directory',
      `select distinct on (level, platform, id) level, platform, id, name, account_id from (
         select 'campaign' as level, platform, campaign_id as id, coalesce(row->>'campaign_name', '') as name, account_id,
                day, updated_at from ad_spend where store_id = $1 and campaign_id <> ''
         union all
         select 'ad_set', platform, adset_id, coalesce(row->>'adset_name', ''), account_id, day, updated_at
           from ad_spend where store_id = $1 and adset_id <> ''
         union all
         select 'ad', platform, ad_id, coalesce(row->>'ad_name', ''), account_id, day, updated_at
           from ad_spend where store_id = $1 and ad_id <> ''
       ) x order by level, platform, id, (name = ''), day desc, updated_at desc`,
      [storeId],
    );
    const byName = await this.db.query<{ platform: string; campaign: string; campaign_id: string }>(
      'ads.campaign_ids',
      `select platform, campaign, min(campaign_id) as campaign_id from ad_spend
       where store_id = $1 and campaign_id <> '' group by platform, campaign having count(distinct campaign_id) = 1`,
      [storeId],
    );
    const level = (l: string) =>
      new Map(
        rows
          .filter((r) => r.level === l)
          .map((r) => [dirKey(r.platform, r.id), { name: r.name, accountId: r.account_id }]),
      );
    return {
      campaigns: level('campaign'),
      adSets: level('ad_set'),
      ads: level('ad'),
      campaignIdByName: new Map(byName.map((r) => [dirKey(r.platform, r.campaign), r.campaign_id])),
    };
  }

  /** Credits of paid touchpoints and spend, resolved, filtered and grouped by the requested dimensions. */
  private async groups(
    store: StoreRecord,
    req: AdAnalysisSumRequest,
  ): Promise<{ dims: AdDimension[]; groups: Array<{ row: ResolvedAdRow; sums: ReportSums }> }> {
    validateRange(req.start_date, req.end_date);
    validateModelGoal(req.model, req.goal);
    const dims = validateAdDimensions(req.dimensions);
    const keep = validateFilters(req.filters);
    await requireFitFor(this.db, store.store_id, req.model, req.goal);
    const params = [store.store_id, req.goal, req.start_date, req.end_date];
    // The ad rollup holds the models side by side: the model's four sums, from the rows it credited.
    const model = modelSumsOf(req.model);
    const [dir, rows] = await Promise.all([
      this.directory(store.store_id),
      this.db.query<SumsRow>(
        'ads.groups',
        `select channel, platform, campaign, campaign_id, ad_set_id, ad_id,
                sum(weight) as weight, sum(new_weight) as new_weight, sum(value_micros) as value_micros,
                sum(cogs_micros) as cogs_micros, 0 as spend_micros, 0 as impressions, 0 as clicks, 0 as ad_value_micros
         from (select channel, platform, campaign, campaign_id, ad_set_id, ad_id, ${model.sums}
               from attribution_by_ad
               where store_id = $1 and goal = $2 and day >= $3::date and day < $4::date and ${model.credited}) r
         group by channel, platform, campaign, campaign_id, ad_set_id, ad_id
         union all
         select channel, platform, campaign, campaign_id, adset_id, ad_id, 0, 0, 0, 0,
                sum(spend_micros), sum(impressions), sum(clicks), sum(conv_value_micros)
         from ad_spend
         where store_id = $1 and day >= $3::date and day < $4::date
         group by channel, platform, campaign, campaign_id, adset_id, ad_id`,
        params,
      ),
    ]);
    const groups = new Map<string, { row: ResolvedAdRow; sums: ReportSums }>();
    for (const r of rows) {
      const resolved = resolveAdRow(rawOf(r), dir);
      if (!keep(resolved)) continue;
      const k = adGroupKey(resolved, dims);
      const g = groups.get(k) ?? { row: resolved, sums: emptySums() };
      addReportSums(g.sums, sumsOf(r));
      groups.set(k, g);
    }
    return { dims, groups: [...groups.values()] };
  }

  async list(store: StoreRecord, req: AdAnalysisListRequest): Promise<AdListData> {
    const dims = validateAdDimensions(req.dimensions);
    const keys = validateSort(req.orders, [...AD_METRIC_COLUMNS, ...dims]);
    const { groups } = await this.groups(store, req);
    const records: AdRecord[] = groups.map((g) => ({ ...adRecordDims(g.row, dims), ...summaryOf(g.sums) }));
    const sortKeys = keys.length ? keys : [{ column: 'conversions', desc: true }];
    sortRecords(records, sortKeys, [...dims, 'campaign_id', 'ad_set_id', 'ad_id']);
    const from = (req.page - 1) * req.page_size;
    return { total: records.length, page_size: req.page_size, records: records.slice(from, from + req.page_size) };
  }

  async sum(store: StoreRecord, req: AdAnalysisSumRequest): Promise<AdSummary> {
    const { groups } = await this.groups(store, req);
    const total = emptySums();
    for (const g of groups) addReportSums(total, g.sums);
    return summaryOf(total);
  }

  /** The conversions behind the rows the filters select, with the credit the model gives those rows. */
  async customers(store: StoreRecord, req: AdCustomerListRequest): Promise<AdCustomerListData> {
    validateRange(req.start_date, req.end_date);
    validateModelGoal(req.model, req.goal);
    validateAdDimensions(req.dimensions);
    const keep = validateFilters(req.filters);
    await requireFitFor(this.db, store.store_id, req.model, req.goal);
    const page = req.page ?? 1;
    const pageSize = req.page_size ?? DEFAULT_DRILL_PAGE_SIZE;
    const [dir, credits] = await Promise.all([
      this.directory(store.store_id),
      this.db.query<RawDbCredit>(
        'ads.customer_credits',
        `select c.conversion_key, c.channel, c.platform, c.campaign, c.campaign_id, c.ad_set_id, c.ad_id,
                c.weight, c.value_micros, v.occurred_at
         from conversion_credits c
         join conversions v on v.store_id = c.store_id and v.goal = c.goal and v.conversion_key = c.conversion_key
         where c.store_id = $1 and c.goal = $2 and c.model = $3 and c.day >= $4::date and c.day < $5::date
           and c.platform <> ''`,
        [store.store_id, req.goal, req.model, req.start_date, req.end_date],
      ),
    ]);
    const byConversion = new Map<string, { weight: number; valueMicros: number; at: number }>();
    for (const c of credits) {
      const resolved = resolveAdRow(
        {
          channel: c.channel,
          platform: c.platform,
          campaign: c.campaign,
          campaignId: c.campaign_id,
          adSetId: c.ad_set_id,
          adId: c.ad_id,
        },
        dir,
      );
      if (!keep(resolved)) continue;
      const cur = byConversion.get(c.conversion_key) ?? { weight: 0, valueMicros: 0, at: c.occurred_at.getTime() };
      cur.weight += Number(c.weight);
      cur.valueMicros += Number(c.value_micros);
      byConversion.set(c.conversion_key, cur);
    }
    // Newest first; ties by conversion key.
    const ordered = [...byConversion].sort(([ka, a], [kb, b]) => b.at - a.at || (ka < kb ? -1 : ka > kb ? 1 : 0));
    const pageKeys = ordered.slice((page - 1) * pageSize, page * pageSize);
    const details = await this.conversions(
      store.store_id,
      req.goal,
      pageKeys.map(([k]) => k),
    );
    const fmt = touchFormatter(store);
    return {
      total: ordered.length,
      page,
      page_size: pageSize,
      records: pageKeys.map(([key, credit]) => {
        const d = details.get(key)!;
        return {
          order_id: d.order_id ?? d.conversion_key,
          customer_id: d.customer_id ?? '',
          email: d.email ?? '',
          first_name: d.first_name ?? '',
          last_name: d.last_name ?? '',
          converted_at: localDateTime(d.occurred_at.getTime(), store.timezone),
          credit: roundTo(credit.weight / WEIGHT_SCALE, 6),
          conversion_value: roundMoney(credit.valueMicros / MONEY_SCALE),
          order_value: roundMoney(Number(d.value_micros) / MONEY_SCALE),
          new_customer: d.is_new,
          first_touchpoint: fmt(d.first_touch),
          last_touchpoint: fmt(d.last_touch),
        };
      }),
    };
  }

  /** The conversions credited to a campaign (touchpoint campaign, as reports show it), newest first. */
  async campaignOrders(store: StoreRecord, req: CampaignOrderListRequest): Promise<CampaignOrderListData> {
    validateRange(req.start_date, req.end_date);
    const model: Model = req.model ?? 'last';
    const goal: Goal = req.goal ?? 'purchase';
    validateModelGoal(model, goal);
    await requireFitFor(this.db, store.store_id, model, goal);
    const campaign = req.campaign.trim().toLowerCase();
    if (!campaign) throw badRequest('campaign', 'must not be empty');
    const page = req.page ?? 1;
    const pageSize = req.page_size ?? DEFAULT_DRILL_PAGE_SIZE;
    const optional = (['channel', 'source', 'medium', 'platform'] as const).filter((f) => req[f] !== undefined);
    const where = optional.map((f, i) => `and c.${f} = $${7 + i}`).join(' ');
    const rows = await this.db.query<{
      conversion_key: string;
      weight: string;
      value_micros: string;
      total: string;
    }>(
      'ads.campaign_orders',
      `select c.conversion_key, sum(c.weight) as weight, sum(c.value_micros) as value_micros, count(*) over () as total,
              max(v.occurred_at) as at
       from conversion_credits c
       join conversions v on v.store_id = c.store_id and v.goal = c.goal and v.conversion_key = c.conversion_key
       where c.store_id = $1 and c.goal = $2 and c.model = $3 and c.day >= $4::date and c.day < $5::date
         and c.campaign = $6 ${where}
       group by c.conversion_key
       order by at desc, c.conversion_key
       offset ${(page - 1) * pageSize} limit ${pageSize}`,
      [
        store.store_id,
        goal,
        model,
        req.start_date,
        req.end_date,
        campaign,
        ...optional.map((f) => req[f]!.trim().toLowerCase()),
      ],
    );
    const keys = rows.map((r) => r.conversion_key);
    const [details, counts] = await Promise.all([
      this.conversions(store.store_id, goal, keys),
      // A credit row sums the touchpoints that share its dimensions, and linear credits every touchpoint
      // (docs/decisions.md, Storage, "One credit row per distinct touchpoint").
      this.db.query<{ conversion_key: string; n: string }>(
        'ads.touch_counts',
        `select conversion_key, sum(touches) as n from conversion_credits
         where store_id = $1 and goal = $2 and model = 'linear' and conversion_key = any($3::text[])
         group by conversion_key`,
        [store.store_id, goal, keys],
      ),
    ]);
    const countOf = new Map(counts.map((c) => [c.conversion_key, Number(c.n)]));
    const fmt = touchFormatter(store);
    return {
      total: rows.length ? Number(rows[0]!.total) : await this.countCampaignOrders(store, req, goal, model, campaign),
      page,
      page_size: pageSize,
      records: rows.map((r) => {
        const d = details.get(r.conversion_key)!;
        return {
          order_id: d.order_id ?? d.conversion_key,
          created_at: localDateTime(d.occurred_at.getTime(), store.timezone),
          customer_id: d.customer_id ?? '',
          email: d.email ?? '',
          total_price: roundMoney(Number(d.value_micros) / MONEY_SCALE),
          currency: store.currency,
          credit: roundTo(Number(r.weight) / WEIGHT_SCALE, 6),
          attributed_value: roundMoney(Number(r.value_micros) / MONEY_SCALE),
          new_customer: d.is_new,
          touchpoints_count: countOf.get(r.conversion_key) ?? 0,
          first_touchpoint: fmt(d.first_touch),
          last_touchpoint: fmt(d.last_touch),
        };
      }),
    };
  }

  /** The total of a page past the end (where the window count has no row to ride on). */
  private async countCampaignOrders(
    store: StoreRecord,
    req: CampaignOrderListRequest,
    goal: Goal,
    model: Model,
    campaign: string,
  ): Promise<number> {
    const optional = (['channel', 'source', 'medium', 'platform'] as const).filter((f) => req[f] !== undefined);
    const where = optional.map((f, i) => `and ${f} = $${7 + i}`).join(' ');
    const [row] = await this.db.query<{ n: string }>(
      'ads.campaign_orders_count',
      `select count(distinct conversion_key) as n from conversion_credits
       where store_id = $1 and goal = $2 and model = $3 and day >= $4::date and day < $5::date and campaign = $6 ${where}`,
      [
        store.store_id,
        goal,
        model,
        req.start_date,
        req.end_date,
        campaign,
        ...optional.map((f) => req[f]!.trim().toLowerCase()),
      ],
    );
    return Number(row?.n ?? 0);
  }

  /** Conversions with their customer: from the order push, else the latest email and customer id the person gave by then. */
  private async conversions(
    storeId: string,
    goal: string,
    keys: readonly string[],
  ): Promise<Map<string, ConversionRow>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db.query<ConversionRow>(
      'ads.conversions',
      `select v.goal, v.conversion_key, v.order_id, v.occurred_at, v.value_micros, v.is_new, v.first_touch, v.last_touch,
              coalesce(o.payload->'customer'->>'id', p.customer_id) as customer_id,
              coalesce(nullif(o.payload->>'email', ''), o.payload->'customer'->>'email', p.email) as email,
              o.payload->'customer'->>'first_name' as first_name, o.payload->'customer'->>'last_name' as last_name
       from conversions v
       left join shop_orders o on o.store_id = v.store_id and o.order_id = v.order_id
       left join lateral (
         select (array_agg(e.email order by e.occurred_at desc) filter (where e.email is not null))[1] as email,
                (array_agg(e.customer_id order by e.occurred_at desc) filter (where e.customer_id is not null))[1] as customer_id
         from event_facts e join clients k on k.store_id = e.store_id and k.client_id = e.client_id
         where e.store_id = v.store_id and k.person_id = v.person_id and e.occurred_at <= v.occurred_at
       ) p on true
       where v.store_id = $1 and v.goal = $2 and v.conversion_key = any($3::text[])`,
      [storeId, goal, keys],
    );
    return new Map(rows.map((r) => [r.conversion_key, r]));
  }
}

interface RawDbCredit {
  conversion_key: string;
  channel: string;
  platform: string;
  campaign: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
  weight: string;
  value_micros: string;
  occurred_at: Date;
}

function touchFormatter(store: StoreRecord): (t: StoredTouch) => ApiTouchpoint {
  return (t) => ({
    campaign: t.campaign,
    channel: t.channel,
    source: t.source,
    medium: t.medium,
    time: localDateTime(t.time, store.timezone),
  });
}
