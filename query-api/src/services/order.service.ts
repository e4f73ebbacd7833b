/**
 * Order journeys and touchpoints (spec operations 3 and 4, docs/product.md, API conventions). The journey is the events of the
 * order's person within the store's lookback window, up to and including the completing checkout; the
 * touchpoints are the first and last credited touchpoints the pipeline stored with the conversion.
 */
import { ORDER_CLIENT_PREFIX } from '../../../contracts/src/identity';
import { storedOrderId } from '../../../contracts/src/shopify-ids';
import type { EventFactRow, SessionRow } from '../../../storage/schema';
import type { EventKindData } from '../../../contracts/src/event-shown';
import type { AdInfo, ApiTouchpoint, OrderJourney, OrderTouchpoints } from '../../../contracts/src/reports';
import { localDateTime } from '../../../contracts/src/time';
import type { StoreRecord } from '../../../storage/store-registry';
import type { Db } from '../../../storage/db';
import { badRequest, notFound } from '../app/errors';
import { type JourneyEvent, type JourneySession, toEventItem } from './journey-mapper';

export const DEFAULT_JOURNEY_PAGE_SIZE = 20;
const DAY_MS = 86_400_000;

interface Anchor {
  personId: string;
  at: number;
}

interface StoredTouch {
  campaign: string;
  channel: string;
  source: string;
  medium: string;
  time: number;
}

export class OrderService {
  constructor(
    private readonly db: Db,
    /** Host of the tracking short links, for the `creator` object of a journey. */
    private readonly shortLinkHost: string,
  ) {}

  /** The person and time of an order: its purchase conversion, else its completing event, else its push. */
  private async anchor(storeId: string, orderId: string): Promise<Anchor | null> {
    const rows = await this.db.query<{ person_id: string; at: Date }>(
      'journey.anchor',
      `select person_id, at from (
         select person_id, occurred_at as at, 1 as rank from conversions
           where store_id = $1 and goal = 'purchase' and conversion_key = $2
         union all
         select c.person_id, e.occurred_at, 2 from event_facts e join clients c on c.store_id = e.store_id and c.client_id = e.client_id
           where e.store_id = $1 and e.order_id = $2 and e.name = 'checkout_completed'
         union all
         select c.person_id, o.created_at, 3 from order_facts o join clients c on c.store_id = o.store_id and c.client_id = $3 || o.order_id
           where o.store_id = $1 and o.order_id = $2
       ) a order by rank, at limit 1`,
      [storeId, orderId, ORDER_CLIENT_PREFIX],
    );
    const r = rows[0];
    return r ? { personId: r.person_id, at: r.at.getTime() } : null;
  }

  async journey(
    store: StoreRecord,
    orderId: string,
    page = 1,
    pageSize = DEFAULT_JOURNEY_PAGE_SIZE,
  ): Promise<OrderJourney> {
    if (!orderId.trim()) throw badRequest('order_id', 'must not be empty');
    // A Shopify global id (as the pixel sent it) names the order stored under its number.
    const anchor = await this.anchor(store.store_id, storedOrderId(orderId));
    if (!anchor) throw notFound('order_id', `no order ${orderId} in this store`);
    const from = new Date(anchor.at - store.lookback_days * DAY_MS).toISOString();
    const to = new Date(anchor.at).toISOString();
    const params = [store.store_id, anchor.personId, from, to];
    const window = `from event_facts e join clients c on c.store_id = e.store_id and c.client_id = e.client_id
       where e.store_id = $1 and c.person_id = $2 and e.occurred_at >= $3 and e.occurred_at <= $4`;
    const [count] = await this.db.query<{ n: string }>('journey.count', `select count(*) as n ${window}`, params);
    const total = Number(count?.n ?? 0);
    const events = await this.db.query<
      Pick<
        EventFactRow,
        | 'event_id'
        | 'client_id'
        | 'name'
        | 'occurred_at'
        | 'page_url'
        | 'referrer'
        | 'page_title'
        | 'client_ip'
        | 'user_agent'
        | 'data'
      >
    >(
      'journey.events',
      // Everything shown comes from the facts, so a journey is the same whether the raw payloads are kept or not.
      `select e.event_id, e.client_id, e.name, e.occurred_at, e.page_url, e.referrer, e.page_title, e.client_ip,
              e.user_agent, e.data
       ${window}
       order by e.occurred_at, e.event_id
       offset $5 limit $6`,
      [...params, (page - 1) * pageSize, pageSize],
    );

    // The session of each event: the client's latest session started at or before it.
    const clients = [...new Set(events.map((e) => e.client_id))];
    const sessions = clients.length
      ? await this.db.query<Omit<SessionRow, 'landing_page' | 'click_id_param'> & { referrer: string | null }>(
          'journey.sessions',
          `select s.client_id, s.started_at, s.landing_event_id, s.origin, s.channel, s.source, s.medium, s.campaign, s.platform,
                  s.content, s.term, s.link_code, f.referrer
           from sessions s left join event_facts f on f.store_id = s.store_id and f.event_id = s.landing_event_id
           where s.store_id = $1 and s.client_id = any($2::text[]) and s.started_at <= $3
           order by s.client_id, s.started_at`,
          [store.store_id, clients, to],
        )
      : [];
    const byClient = new Map<string, JourneySession[]>();
    for (const s of sessions) {
      const list = byClient.get(s.client_id) ?? [];
      list.push({
        startedAt: s.started_at.getTime(),
        landingEventId: s.landing_event_id,
        origin: s.origin,
        channel: s.channel,
        source: s.source,
        medium: s.medium,
        campaign: s.campaign,
        platform: s.platform,
        content: s.content,
        term: s.term,
        linkCode: s.link_code,
        referrer: s.referrer ?? '',
      });
      byClient.set(s.client_id, list);
    }
    const sessionOf = (clientId: string, at: number): JourneySession | null => {
      const list = byClient.get(clientId) ?? [];
      let found: JourneySession | null = null;
      for (const s of list) if (s.startedAt <= at) found = s;
      return found;
    };

    const ads = await this.adLookup(store.store_id, sessions);
    const links = await this.linkLookup(
      store.store_id,
      sessions.map((s) => s.link_code).filter((c) => c),
    );
    const items = events.map((e) => {
      const je: JourneyEvent = {
        eventId: e.event_id,
        name: e.name,
        at: e.occurred_at.getTime(),
        pageUrl: e.page_url,
        referrer: e.referrer,
        pageTitle: e.page_title ?? '',
        clientIp: e.client_ip ?? '',
        userAgent: e.user_agent ?? '',
        kindData: e.data === null ? null : ({ name: e.name, data: e.data } as EventKindData),
      };
      return toEventItem(je, sessionOf(e.client_id, je.at), {
        timezone: store.timezone,
        adOf: (platform, campaign) => ads.get(`${platform}\u0000${campaign}`),
        linkOf: (code) => links.get(code),
      });
    });
    return { order_id: orderId, shop_currency: store.currency, total, page, page_size: pageSize, events: items };
  }

  /** Ad ids and names by (platform, utm campaign), from the store's ad spend rows. */
  private async adLookup(
    storeId: string,
    touches: ReadonlyArray<{ platform: string; campaign: string }>,
  ): Promise<Map<string, Omit<AdInfo, 'ad_platform' | 'keyword'>>> {
    const pairs = [
      ...new Map(touches.filter((t) => t.platform).map((t) => [`${t.platform}\u0000${t.campaign}`, t])).values(),
    ];
    if (pairs.length === 0) return new Map();
    const rows = await this.db.query<{ platform: string; campaign: string; row: Record<string, string> }>(
      'journey.ads',
      `select distinct on (platform, campaign) platform, campaign, row from ad_spend
       where store_id = $1 and (platform, campaign) in (select * from unnest($2::text[], $3::text[]))
       order by platform, campaign, day desc`,
      [storeId, pairs.map((p) => p.platform), pairs.map((p) => p.campaign)],
    );
    return new Map(
      rows.map((r) => [
        `${r.platform}\u0000${r.campaign}`,
        {
          account_id: r.row.account_id ?? '',
          account_name: '',
          campaign_id: r.row.campaign_id ?? '',
          campaign_name: r.row.campaign_name ?? '',
          set_id: r.row.adset_id ?? '',
          set_name: r.row.adset_name ?? '',
          ad_id: r.row.ad_id ?? '',
          ad_name: r.row.ad_name ?? '',
        },
      ]),
    );
  }

  private async linkLookup(
    storeId: string,
    codes: string[],
  ): Promise<Map<string, { creator: string; tracking_link: string }>> {
    if (codes.length === 0) return new Map();
    const rows = await this.db.query<{ code: string; creator: string }>(
      'journey.links',
      'select code, creator from tracking_links where store_id = $1 and code = any($2::text[])',
      [storeId, [...new Set(codes)]],
    );
    return new Map(
      rows.map((r) => [r.code, { creator: r.creator, tracking_link: `https://${this.shortLinkHost}/${r.code}` }]),
    );
  }

  async touchpoints(store: StoreRecord, orderIds: readonly string[]): Promise<OrderTouchpoints[]> {
    const rows = await this.db.query<{ conversion_key: string; first_touch: StoredTouch; last_touch: StoredTouch }>(
      'touch.lookup',
      `select conversion_key, first_touch, last_touch from conversions
       where store_id = $1 and goal = 'purchase' and conversion_key = any($2::text[])`,
      [store.store_id, [...new Set(orderIds.map(storedOrderId))]],
    );
    const byId = new Map(rows.map((r) => [r.conversion_key, r]));
    const fmt = (t: StoredTouch): ApiTouchpoint => ({
      campaign: t.campaign,
      channel: t.channel,
      source: t.source,
      medium: t.medium,
      time: localDateTime(t.time, store.timezone),
    });
    // Each answer carries the id as the caller sent it, whichever form that was.
    return orderIds.map((id) => {
      const r = byId.get(storedOrderId(id));
      return {
        order_id: id,
        first_touchpoint: r ? fmt(r.first_touch) : null,
        last_touchpoint: r ? fmt(r.last_touch) : null,
      };
    });
  }
}
