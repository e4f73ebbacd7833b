/**
 * Tracking links (docs/product.md, Tracking links): creation of short links, the redirect that records a click through the
 * stream, and the link report (spec operation 5) over [start_date, end_date) in store time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  LinkAnalysisRequest,
  LinkCreateData,
  LinkCreateRequest,
  TrackingLinkRecord,
} from '../../../contracts/src/reports';
import { eventSubject, LINK_CLICK_SUBJECT_NAME, partitionOf } from '../../../contracts/src/subjects';
import { localDateTime, zonedToEpoch } from '../../../contracts/src/time';
import type { StoreRecord } from '../../../storage/store-registry';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import type { EventPublisher } from '../adapters/event-publisher';
import type { ApiMetrics } from '../app/metrics';
import { badRequest } from '../app/errors';
import { validateRange } from './report.service';

const CODE_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const CODE_PATTERN = /^[A-Za-z0-9]{6,16}$/;
const MAX_FIELD = 200;
/** The medium a creator's link carries when it sets none. */
export const INFLUENCER_MEDIUM = 'influencer';

function newCode(): string {
  // 8 characters of a 57-letter alphabet: ~46 bits; rejection sampling keeps it uniform.
  let code = '';
  while (code.length < 8) {
    for (const b of randomBytes(16)) {
      if (b < 228 && code.length < 8) code += CODE_ALPHABET[b % CODE_ALPHABET.length];
    }
  }
  return code;
}

function clean(field: string, value: string | null | undefined, required: boolean | string): string {
  const v = (value ?? '').trim();
  if (required && !v) throw badRequest(field, typeof required === 'string' ? required : 'must not be empty');
  if (v.length > MAX_FIELD) throw badRequest(field, `must be at most ${MAX_FIELD} characters`);
  return v;
}

/** The landing page with the link's UTM parameters and `ab_lnk=<code>` added (existing ones replaced). */
export function redirectTarget(link: {
  code: string;
  landing_page: string;
  campaign: string;
  source: string;
  medium: string;
  content: string;
  term: string;
  creator?: string;
}): string {
  const url = new URL(link.landing_page);
  const set = (k: string, v: string) => (v ? url.searchParams.set(k, v) : url.searchParams.delete(k));
  set('utm_source', link.source);
  // A creator's link without a medium of its own says it is an influencer's (docs/product.md, Tracking links).
  set('utm_medium', link.medium || (link.creator ? INFLUENCER_MEDIUM : ''));
  set('utm_campaign', link.campaign);
  set('utm_content', link.content);
  set('utm_term', link.term);
  url.searchParams.set('ab_lnk', link.code);
  return url.toString();
}

interface LinkRow {
  store_id: string;
  code: string;
  landing_page: string;
  campaign: string;
  source: string;
  medium: string;
  content: string;
  term: string;
  creator: string;
  created_at: Date;
}

export interface LinkServiceDeps {
  db: Db;
  /** Records clicks on the stream, like any ingested event. */
  publisher: EventPublisher;
  logger: Logger;
  metrics: Pick<ApiMetrics, 'eventsReceived'>;
  now: () => number;
  shortLinkHost: string;
  eventPartitions: number;
}

export class LinkService {
  constructor(private readonly deps: LinkServiceDeps) {}

  private shortLink(code: string): string {
    return `https://${this.deps.shortLinkHost}/${code}`;
  }

  async create(store: StoreRecord, req: LinkCreateRequest): Promise<LinkCreateData> {
    const landing = clean('landing_page', req.landing_page, true);
    let url: URL;
    try {
      url = new URL(landing);
    } catch {
      throw badRequest('landing_page', 'must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw badRequest('landing_page', 'must be an absolute http(s) URL');
    const creator = clean('creator', req.creator, false);
    const fields = {
      campaign: clean('campaign', req.campaign, true),
      source: clean('source', req.source, true),
      // A creator's link may leave the medium empty: it is then an influencer's (docs/product.md, Tracking links).
      medium:
        clean('medium', req.medium, !creator && "is required (only a creator's link may leave it out)") ||
        INFLUENCER_MEDIUM,
      content: clean('content', req.content, false),
      term: clean('term', req.term, false),
      creator,
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = newCode();
      const rows = await this.deps.db.query<LinkRow>(
        'link.create',
        `insert into tracking_links (store_id, code, landing_page, campaign, source, medium, content, term, creator)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict do nothing
         returning *`,
        [
          store.store_id,
          code,
          url.toString(),
          fields.campaign,
          fields.source,
          fields.medium,
          fields.content,
          fields.term,
          fields.creator,
        ],
      );
      const row = rows[0];
      if (row) {
        return {
          tracking_link: this.shortLink(code),
          code,
          landing_page: row.landing_page,
          ...fields,
          created_at: localDateTime(row.created_at.getTime(), store.timezone),
        };
      }
    }
    throw new Error('could not allocate a unique link code');
  }

  /** Resolves a code, records the click through the stream, and returns where to redirect; null if unknown. */
  async click(
    code: string,
    visitor: { ip: string; userAgent: string; referrer: string; clientId: string },
  ): Promise<string | null> {
    if (!CODE_PATTERN.test(code)) return null;
    const [link] = await this.deps.db.query<LinkRow>('link.resolve', 'select * from tracking_links where code = $1', [
      code,
    ]);
    if (!link) return null;
    const clickId = randomUUID();
    const now = this.deps.now();
    const body = JSON.stringify({
      code,
      clickId,
      clientId: visitor.clientId,
      at: new Date(now).toISOString(),
      ip: visitor.ip,
      userAgent: visitor.userAgent.slice(0, 512),
      referrer: visitor.referrer.slice(0, 2048),
    });
    try {
      await this.deps.publisher.publish(
        eventSubject(
          partitionOf(link.store_id, clickId, this.deps.eventPartitions),
          link.store_id,
          LINK_CLICK_SUBJECT_NAME,
        ),
        body,
        `${link.store_id}:click:${clickId}`,
        now,
      );
    } catch (err) {
      // The visitor still gets where they were going; the lost click is logged and counted.
      this.deps.logger.error({ err, code }, 'could not record a link click');
      this.deps.metrics.eventsReceived.inc({ kind: 'link_click', result: 'lost' });
    }
    return redirectTarget(link);
  }

  /** The link report; with `creator`, only that creator's links (the influencer link list). */
  async analysis(
    store: StoreRecord,
    req: LinkAnalysisRequest,
    creator: string | null = null,
  ): Promise<{ total: number; page_size: number; records: TrackingLinkRecord[] }> {
    validateRange(req.start_date, req.end_date);
    const page = req.page ?? 1;
    const pageSize = req.page_size ?? 20;
    const from = new Date(zonedToEpoch(req.start_date, store.timezone)!).toISOString();
    const to = new Date(zonedToEpoch(req.end_date, store.timezone)!).toISOString();
    const [count] = await this.deps.db.query<{ n: string }>(
      'links.count',
      'select count(*) as n from tracking_links where store_id = $1 and ($2::text is null or creator = $2)',
      [store.store_id, creator],
    );
    const rows = await this.deps.db.query<
      LinkRow & {
        clicks: string;
        total_users: string;
        new_users: string;
        purchase: string;
        purchase_value: string;
        add_to_cart: string;
        add_to_cart_value: string;
        collection_view: string;
        search_submit: string;
      }
    >(
      'links.analysis',
      `with l as (
         select * from tracking_links where store_id = $1 and ($8::text is null or creator = $8)
         order by created_at desc, code offset $4 limit $5
       ), s as (
         -- Sessions from the links in the range, each with the start of the client's next session.
         select x.* from (
           select ss.client_id, ss.started_at, ss.link_code,
                  lead(ss.started_at) over (partition by ss.client_id order by ss.started_at) as next_started_at
           from sessions ss where ss.store_id = $1 and ss.client_id in (
             select client_id from sessions where store_id = $1 and link_code in (select code from l)
               and started_at >= $2 and started_at < $3)
         ) x where x.link_code in (select code from l) and x.started_at >= $2 and x.started_at < $3
           and x.client_id not like 'order:%'
       )
       select l.*,
         (select count(*) from link_clicks k where k.store_id = $1 and k.code = l.code and k.clicked_at >= $2 and k.clicked_at < $3) as clicks,
         (select count(distinct s.client_id) from s where s.link_code = l.code) as total_users,
         (select count(distinct s.client_id) from s join clients c on c.store_id = $1 and c.client_id = s.client_id
            where s.link_code = l.code and c.first_seen_at = s.started_at) as new_users,
         coalesce((select sum(weight) from conversion_credits cc where cc.store_id = $1 and cc.model = 'last' and cc.goal = 'purchase'
            and cc.link_code = l.code and cc.day >= $6::date and cc.day < $7::date), 0) as purchase,
         coalesce((select sum(value_micros) from conversion_credits cc where cc.store_id = $1 and cc.model = 'last' and cc.goal = 'purchase'
            and cc.link_code = l.code and cc.day >= $6::date and cc.day < $7::date), 0) as purchase_value,
         coalesce((select sum(weight) from conversion_credits cc where cc.store_id = $1 and cc.model = 'last' and cc.goal = 'add_to_cart'
            and cc.link_code = l.code and cc.day >= $6::date and cc.day < $7::date), 0) as add_to_cart,
         coalesce((select sum(value_micros) from conversion_credits cc where cc.store_id = $1 and cc.model = 'last' and cc.goal = 'add_to_cart'
            and cc.link_code = l.code and cc.day >= $6::date and cc.day < $7::date), 0) as add_to_cart_value,
         (select count(*) from s join event_facts e on e.store_id = $1 and e.client_id = s.client_id and e.occurred_at >= s.started_at
            and (s.next_started_at is null or e.occurred_at < s.next_started_at)
            where s.link_code = l.code and e.name = 'collection_viewed') as collection_view,
         (select count(*) from s join event_facts e on e.store_id = $1 and e.client_id = s.client_id and e.occurred_at >= s.started_at
            and (s.next_started_at is null or e.occurred_at < s.next_started_at)
            where s.link_code = l.code and e.name = 'search_submitted') as search_submit
       from l order by l.created_at desc, l.code`,
      [store.store_id, from, to, (page - 1) * pageSize, pageSize, req.start_date, req.end_date, creator],
    );
    return {
      total: Number(count?.n ?? 0),
      page_size: pageSize,
      records: rows.map((r) => ({
        tracking_link: this.shortLink(r.code),
        campaign: r.campaign,
        source: r.source,
        medium: r.medium,
        landing_page: r.landing_page,
        created_at: localDateTime(r.created_at.getTime(), store.timezone),
        total_users: Number(r.total_users),
        new_users: Number(r.new_users),
        clicks: Number(r.clicks),
        purchase: Number(r.purchase) / 1e6,
        purchase_conversion_value: Math.round(Number(r.purchase_value) / 1e4) / 100,
        add_to_cart: Number(r.add_to_cart) / 1e6,
        add_to_cart_conversion_value: Math.round(Number(r.add_to_cart_value) / 1e4) / 100,
        collection_view: Number(r.collection_view),
        search_submit: Number(r.search_submit),
      })),
    };
  }
}
