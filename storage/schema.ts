/**
 * The tables that the pipeline, the operations and the query API share, named once: which tables are facts
 * and which are views, and the shape of the rows more than one of them reads (infra/migrations holds the
 * DDL). Row types are as node-postgres returns them: bigint and numeric as strings, timestamptz as Date.
 */

/**
 * Facts derived from the stream: what a rebuild from the stream empties and loads again, all but the raw payloads,
 * which it keeps.
 */
export const STREAM_FACT_TABLES = [
  'raw_events',
  'event_facts',
  'order_facts',
  'shop_orders',
  'shop_products',
  'shop_customers',
  'ad_spend',
  'variant_costs',
  'link_clicks',
  'identity_links',
  'product_info',
] as const;

/** Views: everything the pipeline maintains incrementally and the reconciliation recomputes from the facts. */
export const VIEW_TABLES = [
  'clients',
  'sessions',
  'conversions',
  'conversion_credits',
  'attribution_daily',
  'attribution_by_source',
  'attribution_periods',
  'attribution_by_source_periods',
  'attribution_by_ad',
  'ad_spend_daily',
  'web_person_days',
  'product_person_days',
  'product_person_credits',
  'web_daily',
  'web_users',
  'product_daily',
  'product_users',
  'product_credits_daily',
] as const;
export type ViewTable = (typeof VIEW_TABLES)[number];

/** Views a repair deletes and writes again in full (it rewrites persons and sessions in place). */
export const REBUILT_VIEW_TABLES = VIEW_TABLES.filter(
  (t): t is Exclude<ViewTable, 'clients' | 'sessions'> => t !== 'clients' && t !== 'sessions',
);

/** A row of `event_facts`. */
export interface EventFactRow {
  event_id: string;
  client_id: string;
  name: string;
  occurred_at: Date;
  page_url: string;
  referrer: string;
  email: string | null;
  customer_id: string | null;
  order_id: string | null;
  checkout_token: string | null;
  is_first_order: boolean | null;
  value_micros: string | null;
  value_orig: string | null;
  currency_orig: string | null;
  /** [[variant id, quantity], ...] */
  lines: Array<[string, number]>;
  /** [[product id, variant id, quantity, line amount in cents], ...] */
  items: Array<[string, string, number, number]>;
  /** When the pipeline stored the fact, and when the API had received the event (data health, sources). */
  stored_at: Date;
  received_at: Date | null;
  /** What is shown of the event (`contracts/src/event-shown.ts`), null where the event had none. */
  page_title: string | null;
  client_ip: string | null;
  user_agent: string | null;
  fbp: string | null;
  /** The event's `data`, for the kinds whose data the facts keep. */
  data: unknown;
}

/** A row of `order_facts`. */
export interface OrderFactRow {
  order_id: string;
  created_at: Date;
  cancelled: boolean;
  email: string | null;
  customer_id: string | null;
  value_micros: string;
  refunded_micros: string;
  value_orig: string;
  currency_orig: string;
  landing_site: string;
  referring_site: string;
  checkout_token: string | null;
  lines: Array<[string, number]>;
  items: Array<[string, string, number, number]>;
}

/** The columns of `sessions` after store_id, in table order. */
export const SESSION_COLUMNS = [
  'client_id',
  'started_at',
  'landing_event_id',
  'origin',
  'channel',
  'source',
  'medium',
  'campaign',
  'landing_page',
  'platform',
  'content',
  'term',
  'link_code',
  'click_id_param',
  'campaign_id',
  'ad_set_id',
  'ad_id',
] as const;

/** A row of `sessions`. */
export type SessionRow = { started_at: Date } & Record<Exclude<(typeof SESSION_COLUMNS)[number], 'started_at'>, string>;

/** A row of `conversion_credits` (`day` as `YYYY-MM-DD`). */
export interface CreditDbRow {
  goal: string;
  conversion_key: string;
  model: string;
  touch_index: number;
  day: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  landing_page: string;
  platform: string;
  link_code: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
  weight: string;
  new_weight: string;
  value_micros: string;
  cogs_micros: string;
  touches: number;
}
