/**
 * The dashboard's own read operations (docs/product.md, Dashboard): daily totals for the overview chart, the
 * recent attributed orders, and the data-health summary. Every query is scoped to the caller's store.
 */
import { adConnectionStatusOf, listAdConnections } from '../../../storage/ad-connections';
import { MONEY_SCALE } from '../../../contracts/src/attribution';
import type {
  DailySummaryData,
  DailySummaryRequest,
  DataHealth,
  OrderListData,
  OrderListRequest,
  SourceFreshness,
} from '../../../contracts/src/dashboard';
import { roundMoney } from '../../../contracts/src/metrics';
import { dayInZone, localDateTime } from '../../../contracts/src/time';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';
import { badRequest } from '../app/errors';
import { parseDay, type ReportService, validateRange } from './report.service';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** The chart covers at most a quarter: one summary per day. */
export const MAX_DAILY_DAYS = 92;
/** Minutes of the events-per-minute series. */
export const HEALTH_MINUTES = 60;
/** Days of the order capture window. */
export const CAPTURE_DAYS = 30;

const addDays = (day: string, n: number): string =>
  new Date(parseDay('date', day) + n * DAY_MS).toISOString().slice(0, 10);

export class DashboardReadsService {
  constructor(
    private readonly db: Db,
    private readonly reports: ReportService,
    private readonly now: () => number,
  ) {}

  /** get-list-sum of each day of the range, so that each day equals what get-list-sum answers for it. */
  async daily(store: StoreRecord, req: DailySummaryRequest): Promise<DailySummaryData> {
    validateRange(req.start_date, req.end_date);
    const days = (parseDay('end_date', req.end_date) - parseDay('start_date', req.start_date)) / DAY_MS;
    if (days > MAX_DAILY_DAYS) throw badRequest('end_date', `must be at most ${MAX_DAILY_DAYS} days after start_date`);
    const records = [];
    for (let i = 0; i < days; i++) {
      const date = addDays(req.start_date, i);
      const sum = await this.reports.sum(store, {
        start_date: date,
        end_date: addDays(date, 1),
        dimensions: ['channel'],
        model: req.model,
        goal: req.goal,
      });
      records.push({ date, ...sum });
    }
    return { records };
  }

  /** Purchase conversions of the range, newest first. */
  async orders(store: StoreRecord, req: OrderListRequest): Promise<OrderListData> {
    validateRange(req.start_date, req.end_date);
    const where = `where store_id = $1 and goal = 'purchase' and order_id is not null and day >= $2::date and day < $3::date`;
    const params = [store.store_id, req.start_date, req.end_date];
    const [count] = await this.db.query<{ n: string }>(
      'orders.count',
      `select count(*) as n from conversions ${where}`,
      params,
    );
    const rows = await this.db.query<{ order_id: string; occurred_at: Date; value_micros: string; is_new: boolean }>(
      'orders.page',
      `select order_id, occurred_at, value_micros, is_new from conversions ${where}
       order by occurred_at desc, order_id desc offset $4 limit $5`,
      [...params, (req.page - 1) * req.page_size, req.page_size],
    );
    return {
      total: Number(count?.n ?? 0),
      page_size: req.page_size,
      records: rows.map((r) => ({
        order_id: r.order_id,
        created_at: localDateTime(r.occurred_at.getTime(), store.timezone),
        value: roundMoney(Number(r.value_micros) / MONEY_SCALE),
        is_new_customer: r.is_new,
      })),
    };
  }

  async health(store: StoreRecord): Promise<DataHealth> {
    const now = this.now();
    const tz = store.timezone;
    const local = (d: Date | null): string | null => (d ? localDateTime(d.getTime(), tz) : null);
    const id = store.store_id;
    const since = new Date(Math.floor(now / MINUTE_MS) * MINUTE_MS - (HEALTH_MINUTES - 1) * MINUTE_MS);

    const perMinute = await this.db.query<{ minute: Date; n: string }>(
      'health.per_minute',
      `select date_trunc('minute', stored_at) as minute, count(*) as n from event_facts
       where stored_at >= $2 and store_id = $1 group by 1`,
      [id, since.toISOString()],
    );
    const counts = new Map(perMinute.map((r) => [r.minute.getTime(), Number(r.n)]));
    const events_per_minute = Array.from({ length: HEALTH_MINUTES }, (_, i) => {
      const t = since.getTime() + i * MINUTE_MS;
      return { minute: localDateTime(t, tz).slice(0, 16), events: counts.get(t) ?? 0 };
    });

    // Facts stored before they kept received_at (pruned payloads) count as stored when received.
    const [latest] = await this.db.query<{ stored_at: Date; received_at: Date }>(
      'health.latest_event',
      `select stored_at, coalesce(received_at, stored_at) as received_at from event_facts
       where store_id = $1 order by stored_at desc limit 1`,
      [id],
    );
    const sources = await this.db.query<{ source: string; total: string; last_at: Date | null }>(
      'health.sources',
      `select 'storefront_events' as source, count(*) as total, max(stored_at) as last_at from event_facts where store_id = $1
       union all select 'orders', count(*), max(updated_at) from shop_orders where store_id = $1
       union all select 'products', count(*), max(updated_at) from shop_products where store_id = $1
       union all select 'customers', count(*), max(updated_at) from shop_customers where store_id = $1
       union all select 'ad_spend', count(*), max(updated_at) from ad_spend where store_id = $1`,
      [id],
    );
    const last_event_by_source: SourceFreshness[] = sources.map((s) => ({
      source: s.source,
      total: Number(s.total),
      last_at: local(s.last_at),
    }));

    // Purchases of the capture window: every order id pushed or seen completing; tracked: seen completing.
    const end = addDays(dayInZone(now, tz), 1);
    const start = addDays(end, -CAPTURE_DAYS);
    const [capture] = await this.db.query<{ purchases: string; tracked: string }>(
      'health.capture',
      `with o as (
         select order_id, false as tracked from order_facts
           where store_id = $1 and not cancelled and (created_at at time zone $4)::date >= $2::date
             and (created_at at time zone $4)::date < $3::date
         union all
         select order_id, true from event_facts
           where store_id = $1 and name = 'checkout_completed' and order_id is not null
             and (occurred_at at time zone $4)::date >= $2::date and (occurred_at at time zone $4)::date < $3::date
       )
       select count(distinct order_id) as purchases, count(distinct order_id) filter (where tracked) as tracked from o`,
      [id, start, end, tz],
    );
    const purchases = Number(capture?.purchases ?? 0);
    const tracked = Number(capture?.tracked ?? 0);

    const [dead] = await this.db.query<{ total: string; recent: string; last_at: Date | null; webhooks: string }>(
      'health.dead_letters',
      `select count(*) as total, count(*) filter (where created_at >= $2) as recent, max(created_at) as last_at,
              (select count(*) from webhook_dead_letters where store_id = $1 and redriven_at is null) as webhooks
       from dead_letters where store_id = $1`,
      [id, new Date(now - DAY_MS).toISOString()],
    );

    const adConnections = await listAdConnections(this.db, id);

    return {
      now: localDateTime(now, tz),
      events_per_minute,
      last_event_by_source,
      order_capture: {
        start_date: start,
        end_date: end,
        purchases,
        tracked,
        rate: purchases ? Math.round((tracked / purchases) * 10_000) / 10_000 : null,
      },
      dead_letters: {
        total: Number(dead?.total ?? 0),
        last_24h: Number(dead?.recent ?? 0),
        last_at: local(dead?.last_at ?? null),
        webhook_undelivered: Number(dead?.webhooks ?? 0),
      },
      views_updated_at: local(latest?.stored_at ?? null),
      views_lag_seconds: latest
        ? Math.max(0, Math.round((latest.stored_at.getTime() - latest.received_at.getTime()) / 100) / 10)
        : null,
      ad_connections: adConnections.map((c) => adConnectionStatusOf(c, (d) => localDateTime(d.getTime(), tz))),
    };
  }
}
