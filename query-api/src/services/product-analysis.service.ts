/**
 * Product analytics (docs/product.md, Analytics): per product over [start_date, end_date) in the store time
 * zone, views, add-to-carts and checkouts by the day of the event, purchases, units, revenue and cost of
 * goods by the day of the purchase (product_daily), distinct viewers and cart adders (spans of
 * product_users); purchase credits per product and touchpoint under a model (product_credits_daily); and a
 * trend by day, week or month. Names and images: the product push when there is one, else the storefront
 * events.
 */
import { requireFitFor } from './data-driven-gate';
import { MODELS, MONEY_SCALE, WEIGHT_SCALE } from '../../../contracts/src/attribution';
import {
  PRODUCT_ANALYSIS_METRICS,
  TREND_GRANULARITIES,
  WEB_ANALYSIS_DIMENSIONS,
  type ProductAnalysisListData,
  type ProductAnalysisRecord,
  type ProductAnalysisRequest,
  type ProductAnalysisSumRequest,
  type ProductAnalysisSummary,
  type ProductChannelListData,
  type ProductChannelRecord,
  type ProductChannelRequest,
  type ProductTrendPoint,
  type ProductTrendRequest,
} from '../../../contracts/src/analytics';
import { roundMoney, roundTo } from '../../../contracts/src/metrics';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';
import { badRequest } from '../app/errors';
import { validateRange } from './report.service';
import {
  pageOf,
  ratio,
  requestedValue,
  sortRecords,
  validateDimensionList,
  validateProductIds,
  validateSort,
} from './analytics-lists';

const MAX_FILTER = 100;
const MAX_TREND = 20;

const SUMS = [
  'views',
  'view_users',
  'add_to_cart',
  'add_to_cart_users',
  'checkouts',
  'purchases',
  'units',
  'revenue_micros',
  'cogs_micros',
  'new_customer_purchases',
] as const;
type Sums = Record<(typeof SUMS)[number], number>;

function summaryOf(s: Sums): ProductAnalysisSummary {
  const revenue = s.revenue_micros / MONEY_SCALE;
  const cogs = s.cogs_micros / MONEY_SCALE;
  return {
    views: s.views,
    view_users: s.view_users,
    add_to_cart: s.add_to_cart,
    add_to_cart_users: s.add_to_cart_users,
    checkouts: s.checkouts,
    purchases: s.purchases,
    units: s.units,
    revenue: roundMoney(revenue),
    cogs: roundMoney(cogs),
    gross_profit: roundMoney(revenue - cogs),
    view_to_cart_rate: ratio(s.add_to_cart, s.views),
    cart_to_purchase_rate: ratio(s.purchases, s.add_to_cart),
    new_customer_purchases: s.new_customer_purchases,
  };
}

const sumsOf = (r: Record<string, string | null>): Sums =>
  Object.fromEntries(SUMS.map((c) => [c, Number(r[c] ?? 0)])) as Sums;

/** Names and images: the pushed product wins over what the events showed. */
const PRODUCT_NAMES = `
  coalesce(nullif(sp.payload ->> 'title', ''), pi.title, '') as title,
  coalesce(nullif(sp.payload ->> 'vendor', ''), pi.vendor, '') as vendor,
  coalesce(nullif(sp.payload ->> 'product_type', ''), pi.product_type, '') as product_type,
  coalesce(nullif(sp.payload #>> '{images,0,src}', ''), pi.image_src, '') as image_src`;
const NAME_JOINS = (productCol: string): string => `
  left join shop_products sp on sp.store_id = $1 and sp.product_id = ${productCol}
  left join product_info pi on pi.store_id = $1 and pi.product_id = ${productCol}`;

export class ProductAnalysisService {
  constructor(private readonly db: Db) {}

  async list(store: StoreRecord, req: ProductAnalysisRequest): Promise<ProductAnalysisListData> {
    validateRange(req.start_date, req.end_date);
    const ids = validateProductIds('product_ids', req.product_ids, MAX_FILTER);
    const keys = validateSort(req.orders, [...PRODUCT_ANALYSIS_METRICS, 'product_id', 'title']);
    const rows = await this.db.query<Record<string, string>>(
      'products.list',
      `with d as (
         select product_id, sum(views) as views, sum(add_to_cart) as add_to_cart, sum(checkouts) as checkouts,
                sum(purchases) as purchases, sum(units) as units, sum(revenue_micros) as revenue_micros,
                sum(cogs_micros) as cogs_micros, sum(new_customer_purchases) as new_customer_purchases
         from product_daily where store_id = $1 and day >= $2::date and day < $3::date
           and ($4::text[] is null or product_id = any($4)) group by product_id
       ), u as (
         -- A person counts once per product: on its row of the first day it was active in the range.
         select product_id, sum(view_users) as view_users, sum(add_to_cart_users) as add_to_cart_users
         from product_users where store_id = $1 and day >= $2::date and day < $3::date and prev_day < $2::date
           and product_id <> '' and ($4::text[] is null or product_id = any($4)) group by product_id
       )
       select x.*, ${PRODUCT_NAMES}
       from (select coalesce(d.product_id, u.product_id) as product_id, d.views, d.add_to_cart, d.checkouts, d.purchases,
                    d.units, d.revenue_micros, d.cogs_micros, d.new_customer_purchases, u.view_users, u.add_to_cart_users
             from d full join u using (product_id)) x
       ${NAME_JOINS('x.product_id')}`,
      [store.store_id, req.start_date, req.end_date, ids],
    );
    const records = rows.map((r): ProductAnalysisRecord => ({
      product_id: r.product_id!,
      title: r.title!,
      vendor: r.vendor!,
      product_type: r.product_type!,
      image_src: r.image_src!,
      ...summaryOf(sumsOf(r)),
    }));
    sortRecords(records, keys.length ? keys : [{ column: 'revenue', desc: true }], ['product_id']);
    return pageOf(records, req.page, req.page_size);
  }

  /** Every product together; distinct persons are counted once over all (the filtered) products. */
  async sum(store: StoreRecord, req: ProductAnalysisSumRequest): Promise<ProductAnalysisSummary> {
    validateRange(req.start_date, req.end_date);
    const ids = validateProductIds('product_ids', req.product_ids, MAX_FILTER);
    const args = [store.store_id, req.start_date, req.end_date, ids];
    const [[totals], [users]] = await Promise.all([
      this.db.query<Record<string, string>>(
        'products.sum',
        `select sum(views) as views, sum(add_to_cart) as add_to_cart, sum(checkouts) as checkouts, sum(purchases) as purchases,
                sum(units) as units, sum(revenue_micros) as revenue_micros, sum(cogs_micros) as cogs_micros,
                sum(new_customer_purchases) as new_customer_purchases
         from product_daily where store_id = $1 and day >= $2::date and day < $3::date
           and ($4::text[] is null or product_id = any($4))`,
        args,
      ),
      ids === null
        ? this.db.query<Record<string, string>>(
            'products.sum_users',
            `select sum(view_users) as view_users, sum(add_to_cart_users) as add_to_cart_users from product_users
             where store_id = $1 and day >= $2::date and day < $3::date and prev_day < $2::date and product_id = ''`,
            [store.store_id, req.start_date, req.end_date],
          )
        : // Some products only: their distinct persons from the per-person rows.
          this.db.query<Record<string, string>>(
            'products.sum_users_of',
            `select count(distinct person_id) filter (where views > 0) as view_users,
                    count(distinct person_id) filter (where add_to_cart > 0) as add_to_cart_users
             from product_person_days where store_id = $1 and day >= $2::date and day < $3::date and product_id = any($4)`,
            args,
          ),
    ]);
    return summaryOf(sumsOf({ ...totals, ...users }));
  }

  async channelList(store: StoreRecord, req: ProductChannelRequest): Promise<ProductChannelListData> {
    validateRange(req.start_date, req.end_date);
    const dims = validateDimensionList('dimensions', req.dimensions, WEB_ANALYSIS_DIMENSIONS, 1);
    if (!(MODELS as readonly string[]).includes(req.model))
      throw badRequest('model', `"${String(req.model)}" is not one of ${MODELS.join(', ')}`);
    await requireFitFor(this.db, store.store_id, req.model, 'purchase');
    const ids = validateProductIds('product_ids', req.product_ids, MAX_FILTER);
    const keys = validateSort(req.orders, ['conversions', 'conversion_value', 'units', 'product_id', 'title', ...dims]);
    const rows = await this.db.query<Record<string, string>>(
      'products.channels',
      `select x.*, ${PRODUCT_NAMES}
       from (select product_id, ${dims.join(', ')}, sum(weight) as weight, sum(value_micros) as value_micros, sum(units) as units
             from product_credits_daily where store_id = $1 and model = $4 and day >= $2::date and day < $3::date
               and ($5::text[] is null or product_id = any($5))
             group by product_id, ${dims.join(', ')}) x
       ${NAME_JOINS('x.product_id')}`,
      [store.store_id, req.start_date, req.end_date, req.model, ids],
    );
    const records = rows.map((r): ProductChannelRecord => ({
      product_id: r.product_id!,
      title: r.title!,
      channel: requestedValue(r, dims, 'channel'),
      source: requestedValue(r, dims, 'source'),
      medium: requestedValue(r, dims, 'medium'),
      campaign: requestedValue(r, dims, 'campaign'),
      landing_page: requestedValue(r, dims, 'landing_page'),
      conversions: roundTo(Number(r.weight) / WEIGHT_SCALE, 6),
      conversion_value: roundMoney(Number(r.value_micros) / MONEY_SCALE),
      units: roundTo(Number(r.units) / WEIGHT_SCALE, 6),
    }));
    sortRecords(records, keys.length ? keys : [{ column: 'conversions', desc: true }], ['product_id', ...dims]);
    return pageOf(records, req.page, req.page_size);
  }

  async trend(store: StoreRecord, req: ProductTrendRequest): Promise<ProductTrendPoint[]> {
    validateRange(req.start_date, req.end_date);
    if (!Array.isArray(req.product_ids) || req.product_ids.length === 0)
      throw badRequest('product_ids', `must have 1 to ${MAX_TREND} entries`);
    const ids = validateProductIds('product_ids', req.product_ids, MAX_TREND)!;
    if (!(TREND_GRANULARITIES as readonly string[]).includes(req.granularity))
      throw badRequest('granularity', `"${String(req.granularity)}" is not one of ${TREND_GRANULARITIES.join(', ')}`);
    const rows = await this.db.query<Record<string, string>>(
      'products.trend',
      `select to_char(greatest(date_trunc($5, day)::date, $2::date), 'YYYY-MM-DD') as date, product_id,
              sum(views) as views, sum(add_to_cart) as add_to_cart, sum(purchases) as purchases, sum(units) as units,
              sum(revenue_micros) as revenue_micros
       from product_daily where store_id = $1 and day >= $2::date and day < $3::date and product_id = any($4)
       group by 1, 2 order by 1, 2`,
      [store.store_id, req.start_date, req.end_date, ids, req.granularity],
    );
    return rows.map((r) => ({
      date: r.date!,
      product_id: r.product_id!,
      views: Number(r.views),
      add_to_cart: Number(r.add_to_cart),
      purchases: Number(r.purchases),
      units: Number(r.units),
      revenue: roundMoney(Number(r.revenue_micros) / MONEY_SCALE),
    }));
  }
}
