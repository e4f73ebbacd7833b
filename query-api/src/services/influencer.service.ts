/**
 * Influencer links (docs/product.md, Tracking links and Analytics): the store's tracking links grouped by
 * their `creator` over [start_date, end_date) in the store time zone, with the link report's figures
 * summed per creator (distinct visitors counted once per creator), and the link report of one creator.
 */
import { MONEY_SCALE, WEIGHT_SCALE } from '../../../contracts/src/attribution';
import type {
  InfluencerLinkListData,
  InfluencerLinkListRequest,
  InfluencerListData,
  InfluencerListRequest,
  InfluencerRecord,
} from '../../../contracts/src/analytics';
import { roundMoney, roundTo } from '../../../contracts/src/metrics';
import { zonedToEpoch } from '../../../contracts/src/time';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';
import { badRequest } from '../app/errors';
import type { LinkService } from './link.service';
import { validateRange } from './report.service';
import { pageOf, sortRecords, validateSort } from './analytics-lists';

const NUMBER_COLUMNS: ReadonlyArray<keyof InfluencerRecord> = [
  'links_count',
  'clicks',
  'total_users',
  'new_users',
  'add_to_cart',
  'purchase',
  'purchase_conversion_value',
  'new_customer_purchases',
];

export class InfluencerService {
  constructor(
    private readonly db: Db,
    private readonly links: LinkService,
  ) {}

  async list(store: StoreRecord, req: InfluencerListRequest): Promise<InfluencerListData> {
    validateRange(req.start_date, req.end_date);
    const keys = validateSort(req.orders, [...NUMBER_COLUMNS, 'creator']);
    const from = new Date(zonedToEpoch(req.start_date, store.timezone)!).toISOString();
    const to = new Date(zonedToEpoch(req.end_date, store.timezone)!).toISOString();
    const rows = await this.db.query<Record<string, string>>(
      'influencers.list',
      `with l as (
         select code, creator from tracking_links where store_id = $1 and creator <> ''
       ), k as (
         select l.creator, count(*) as clicks from link_clicks k join l on l.code = k.code
         where k.store_id = $1 and k.clicked_at >= $2 and k.clicked_at < $3 group by l.creator
       ), u as (
         select l.creator, count(distinct s.client_id) as total_users,
                count(distinct s.client_id) filter (where c.first_seen_at = s.started_at) as new_users
         from sessions s join l on l.code = s.link_code
         join clients c on c.store_id = s.store_id and c.client_id = s.client_id
         where s.store_id = $1 and s.started_at >= $2 and s.started_at < $3 and s.client_id not like 'order:%'
         group by l.creator
       ), cr as (
         select l.creator,
                sum(cc.weight) filter (where cc.goal = 'add_to_cart') as add_to_cart,
                sum(cc.weight) filter (where cc.goal = 'purchase') as purchase,
                sum(cc.value_micros) filter (where cc.goal = 'purchase') as purchase_value,
                sum(cc.new_weight) filter (where cc.goal = 'purchase') as new_purchase
         from conversion_credits cc join l on l.code = cc.link_code
         where cc.store_id = $1 and cc.model = 'last' and cc.goal in ('purchase', 'add_to_cart')
           and cc.day >= $4::date and cc.day < $5::date
         group by l.creator
       )
       select n.creator, n.links_count, k.clicks, u.total_users, u.new_users, cr.add_to_cart, cr.purchase,
              cr.purchase_value, cr.new_purchase
       from (select creator, count(*) as links_count from l group by creator) n
       left join k using (creator) left join u using (creator) left join cr using (creator)`,
      [store.store_id, from, to, req.start_date, req.end_date],
    );
    const n = (v: string | undefined): number => Number(v ?? 0);
    const records = rows.map((r): InfluencerRecord => ({
      creator: r.creator!,
      links_count: n(r.links_count),
      clicks: n(r.clicks),
      total_users: n(r.total_users),
      new_users: n(r.new_users),
      add_to_cart: roundTo(n(r.add_to_cart) / WEIGHT_SCALE, 6),
      purchase: roundTo(n(r.purchase) / WEIGHT_SCALE, 6),
      purchase_conversion_value: roundMoney(n(r.purchase_value) / MONEY_SCALE),
      new_customer_purchases: roundTo(n(r.new_purchase) / WEIGHT_SCALE, 6),
    }));
    sortRecords(records, keys.length ? keys : [{ column: 'purchase_conversion_value', desc: true }], ['creator']);
    return pageOf(records, req.page, req.page_size);
  }

  async linkList(store: StoreRecord, req: InfluencerLinkListRequest): Promise<InfluencerLinkListData> {
    const creator = typeof req.creator === 'string' ? req.creator.trim() : '';
    if (!creator) throw badRequest('creator', 'must not be empty');
    if (creator.length > 200) throw badRequest('creator', 'must be at most 200 characters');
    return this.links.analysis(store, req, creator);
  }
}
