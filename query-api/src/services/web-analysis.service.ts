/**
 * The web funnel (docs/product.md, Analytics): sessions and their figures from web_daily, distinct persons
 * per funnel step from the spans of web_users (exact over any range, docs/decisions.md, Analytics),
 * purchases and their value under the last-touch model from the attribution rollup, and ad spend, grouped
 * by 0 to 3 touchpoint dimensions over [start_date, end_date) in the store time zone.
 */
import { MONEY_SCALE, WEIGHT_SCALE } from '../../../contracts/src/attribution';
import {
  WEB_ANALYSIS_METRICS,
  WEB_ANALYSIS_DIMENSIONS,
  type WebAnalysisDimension,
  type WebAnalysisListData,
  type WebAnalysisRecord,
  type WebAnalysisRequest,
  type WebAnalysisSumRequest,
  type WebAnalysisSummary,
} from '../../../contracts/src/analytics';
import { roundMoney, roundTo } from '../../../contracts/src/metrics';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';
import { validateRange } from './report.service';
import { attributionRows } from './attribution-rows';
import { pageOf, ratio, sortRecords, validateDimensionList, validateSort } from './analytics-lists';

/** Bits of the dimension sets of web_users (one bit per dimension, in this order). */
const DIMENSION_BITS: readonly WebAnalysisDimension[] = ['channel', 'source', 'medium', 'campaign', 'landing_page'];

const COUNTS = [
  'sessions',
  'events',
  'engaged_sessions',
  'new_users',
  'users',
  'product_view_users',
  'atc_users',
  'checkout_users',
  'payment_info_users',
  'purchase_users',
  'weight',
  'value_micros',
  'spend_micros',
] as const;
type Counts = Record<(typeof COUNTS)[number], number>;

function summaryOf(c: Counts): WebAnalysisSummary {
  const engagement = ratio(c.engaged_sessions, c.sessions);
  return {
    unique_users: c.users,
    new_users: c.new_users,
    returning_users: Math.max(0, c.users - c.new_users),
    total_sessions: c.sessions,
    events_per_session: ratio(c.events, c.sessions),
    engagement_rate: engagement,
    bounce_rate: c.sessions === 0 ? 0 : roundTo(1 - engagement, 4),
    product_view_users: c.product_view_users,
    atc_users: c.atc_users,
    checkout_users: c.checkout_users,
    payment_info_users: c.payment_info_users,
    purchase_users: c.purchase_users,
    purchases: roundTo(c.weight / WEIGHT_SCALE, 6),
    purchase_rate: ratio(c.purchase_users, c.users),
    revenue: roundMoney(c.value_micros / MONEY_SCALE),
    spend: roundMoney(c.spend_micros / MONEY_SCALE),
  };
}

/**
 * A group's value of `d` ("" when not requested). At module level rather than a closure per group: tsx keeps
 * function names by a call where each named function is created (docs/decisions.md, Shape of the code).
 */
function valueOf(values: readonly string[], dims: readonly WebAnalysisDimension[], d: WebAnalysisDimension): string {
  const i = dims.indexOf(d);
  return i < 0 ? '' : values[i]!;
}

export class WebAnalysisService {
  constructor(private readonly db: Db) {}

  /** The groups' counts, keyed by the requested dimension values. */
  private async groups(
    store: StoreRecord,
    range: { start_date: string; end_date: string },
    dims: readonly WebAnalysisDimension[],
  ): Promise<Array<{ values: string[]; counts: Counts }>> {
    validateRange(range.start_date, range.end_date);
    const mask = dims.reduce((m, d) => m | (1 << DIMENSION_BITS.indexOf(d)), 0);
    const select = dims.length ? `${dims.join(', ')}, ` : '';
    const groupBy = dims.length ? `group by ${dims.join(', ')}` : 'group by ()';
    // The web rollups key a touchpoint group by its id: sum by id first (narrow rows, one bigint to hash),
    // then name the groups once (docs/decisions.md, Analytics, touch groups).
    const byGroup = (sums: string): string =>
      `(${sums} group by group_id) s join touch_groups g on g.store_id = $1 and g.group_id = s.group_id`;
    const named = dims.length ? `${dims.map((d) => `g.${d}`).join(', ')}, ` : '';
    const namedGroupBy = dims.length ? `group by ${dims.map((d) => `g.${d}`).join(', ')}` : 'group by ()';
    const args = [store.store_id, range.start_date, range.end_date];
    const purchaseArgs: unknown[] = [store.store_id];
    const credited = attributionRows(dims, "store_id = $1 and goal = 'purchase'", 'last', range, purchaseArgs);
    const spendDims = dims.filter((d) => d !== 'landing_page');
    const [daily, users, purchases, spend] = await Promise.all([
      this.db.query<Record<string, string>>(
        'web.daily',
        `select ${named}sum(sessions) as sessions, sum(events) as events, sum(engaged_sessions) as engaged_sessions,
                sum(new_users) as new_users
         from ${byGroup(`select group_id, sum(sessions) as sessions, sum(events) as events,
                           sum(engaged_sessions) as engaged_sessions, sum(new_users) as new_users
                         from web_daily where store_id = $1 and day >= $2::date and day < $3::date`)}
         ${namedGroupBy}`,
        args,
      ),
      // A person counts once per group: on its row of the first day it was active in the range.
      this.db.query<Record<string, string>>(
        'web.users',
        `select ${named}sum(users) as users, sum(product_view_users) as product_view_users, sum(atc_users) as atc_users,
                sum(checkout_users) as checkout_users, sum(payment_info_users) as payment_info_users,
                sum(purchase_users) as purchase_users
         from ${byGroup(`select group_id, sum(users) as users, sum(product_view_users) as product_view_users,
                           sum(atc_users) as atc_users, sum(checkout_users) as checkout_users,
                           sum(payment_info_users) as payment_info_users, sum(purchase_users) as purchase_users
                         from web_users where store_id = $1 and dims = $4 and day >= $2::date and day < $3::date
                           and prev_day < $2::date`)}
         ${namedGroupBy}`,
        [...args, mask],
      ),
      this.db.query<Record<string, string>>(
        'web.purchases',
        `select ${select}sum(weight) as weight, sum(value_micros) as value_micros
         from ${credited} ${groupBy}`,
        purchaseArgs,
      ),
      // Spend has no landing page: with landing_page requested there is none to show.
      dims.includes('landing_page')
        ? Promise.resolve([])
        : this.db.query<Record<string, string>>(
            'web.spend',
            `select ${select}sum(spend_micros) as spend_micros from ad_spend_daily
             where store_id = $1 and day >= $2::date and day < $3::date
             ${spendDims.length ? `group by ${spendDims.join(', ')}` : 'group by ()'}`,
            args,
          ),
    ]);
    const groups = new Map<string, { values: string[]; counts: Counts }>();
    const merge = (rows: Array<Record<string, string>>): void => {
      for (const r of rows) {
        const values = dims.map((d) => r[d] ?? '');
        const key = values.join('\u0000');
        let g = groups.get(key);
        if (!g) {
          g = { values, counts: Object.fromEntries(COUNTS.map((c) => [c, 0])) as Counts };
          groups.set(key, g);
        }
        for (const c of COUNTS) if (r[c] !== undefined && r[c] !== null) g.counts[c] += Number(r[c]);
      }
    };
    merge(daily);
    merge(users);
    merge(purchases);
    merge(spend);
    // Without dimensions every query answers one grand-total row (of nulls when empty): one group.
    return [...groups.values()];
  }

  async list(store: StoreRecord, req: WebAnalysisRequest): Promise<WebAnalysisListData> {
    const dims = validateDimensionList('dimensions', req.dimensions, WEB_ANALYSIS_DIMENSIONS, 0);
    const keys = validateSort(req.orders, [...WEB_ANALYSIS_METRICS, ...dims]);
    const groups = await this.groups(store, req, dims);
    const records = groups.map((g): WebAnalysisRecord => ({
      channel: valueOf(g.values, dims, 'channel'),
      source: valueOf(g.values, dims, 'source'),
      medium: valueOf(g.values, dims, 'medium'),
      campaign: valueOf(g.values, dims, 'campaign'),
      landing_page: valueOf(g.values, dims, 'landing_page'),
      ...summaryOf(g.counts),
    }));
    sortRecords(records, keys.length ? keys : [{ column: 'unique_users', desc: true }], dims);
    return pageOf(records, req.page, req.page_size);
  }

  /** The funnel over every session of the range (distinct persons counted once overall). */
  async sum(store: StoreRecord, req: WebAnalysisSumRequest): Promise<WebAnalysisSummary> {
    validateDimensionList('dimensions', req.dimensions, WEB_ANALYSIS_DIMENSIONS, 0);
    const [g] = await this.groups(store, req, []);
    return summaryOf(g!.counts);
  }
}
