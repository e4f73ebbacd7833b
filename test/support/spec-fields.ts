/**
 * The interface specification's field tables ("Resources and their fields", "Endpoints", "Limits") and docs/product.md, API conventions and Tracking links, written down once as data, with two checkers generated from them:
 * `checkValue` for a live JSON value and `checkSchema` for the OpenAPI document's schema of the same thing.
 * The contract and limits tests (test/integration/api-*.int.test.ts) build their assertions from these tables
 * only, so a field added to, renamed in or retyped in the API shows up as a named problem.
 *
 * Conventions of the tables:
 * - `optional`: the member may be absent (the spec says optional, requiredness unspecified or "not shown").
 * - `nullable`: the member may be null ("null or object", "string or null").
 * - `oneOf`: the closed set of allowed values; `shown`: values the spec shows (others may exist).
 * - an `object` without `fields` is one whose inner structure the spec does not show.
 * - `open`: members beyond the table are allowed (only where the spec names some fields and not all).
 */

export type StringFormat =
  /** `YYYY-MM-DD HH:MM:SS` (the API's store-time format). */
  | 'local-datetime'
  /** ISO 8601 timestamp. */
  | 'iso-datetime'
  /** `YYYY-MM-DD`. */
  | 'date'
  /** Decimal text such as `"375.30"`. */
  | 'decimal'
  /** ISO 4217 code. */
  | 'currency'
  /** `https://{short_link_host}/<code>`. */
  | 'short-link';

interface Common {
  optional?: boolean;
  nullable?: boolean;
}
export type Field =
  | (Common & { type: 'string'; format?: StringFormat; oneOf?: readonly string[]; shown?: readonly string[] })
  | (Common & { type: 'integer'; minimum?: number; maximum?: number })
  | (Common & { type: 'number' })
  | (Common & { type: 'boolean' })
  | (Common & { type: 'object'; fields?: Table; open?: boolean })
  | (Common & { type: 'array'; items: Field; minItems?: number; maxItems?: number })
  /** Exactly JSON null (the `data` of an error envelope). */
  | (Common & { type: 'null' })
  /** Any JSON value (the spec names the member and not its type). */
  | (Common & { type: 'any' });
export type Table = Readonly<Record<string, Field>>;

type StringOpts = { format?: StringFormat; oneOf?: readonly string[]; shown?: readonly string[] };
const str = (o: StringOpts = {}): Field => ({ type: 'string', ...o });
const int = (o: { minimum?: number; maximum?: number } = {}): Field => ({ type: 'integer', ...o });
const num = (): Field => ({ type: 'number' });
const bool = (): Field => ({ type: 'boolean' });
const obj = (fields?: Table, o: { open?: boolean } = {}): Field => ({
  type: 'object',
  ...(fields ? { fields } : {}),
  ...o,
});
const arr = (items: Field, o: { minItems?: number; maxItems?: number } = {}): Field => ({ type: 'array', items, ...o });
const anyValue = (): Field => ({ type: 'any' });
const nullable = (f: Field): Field => ({ ...f, nullable: true });
const optional = (f: Field): Field => ({ ...f, optional: true });
const each = (names: readonly string[], f: () => Field): Table => Object.fromEntries(names.map((n) => [n, f()]));

// ---------------------------------------------------------------------------------------------------------------
// Values and limits (spec Endpoints 1-2 and Limits, docs/product.md, API conventions)
// ---------------------------------------------------------------------------------------------------------------

export const VERSION = 'v2-4-2';
export const DIMENSIONS = ['campaign', 'channel', 'source', 'medium', 'landing_page'] as const;
/** The rule-based models, which every store has (the live tests call each). */
export const MODELS = ['first', 'last', 'linear', 'position', 'time_decay'] as const;
/** Every model a field may name: the rule-based ones and `data_driven`, which exists once a store is fitted. */
export const ALL_MODELS = [...MODELS, 'data_driven'] as const;
export const GOALS = ['purchase', 'add_to_cart', 'checkout_start', 'payment_info_submitted'] as const;
/** Ad report dimensions (docs/product.md, Ads attribution); `ad_name` is an alias of `ad`. */
export const AD_DIMENSIONS = ['channel', 'platform', 'campaign', 'ad_set', 'ad', 'ad_name'] as const;
export const IDENTITY_EVENT_NAMES = [
  'Active On site',
  'Viewed Product',
  'Collection View',
  'Added to Cart',
  'Checkout Started',
  'Subscribe',
] as const;

export const LIMITS = {
  pageSize: { min: 1, max: 100 },
  dimensions: { min: 1, max: 3 },
  maxRangeDays: 366,
  maxOrderIds: 100,
} as const;

/** Requests per second per API key (spec Limits, docs/product.md, API conventions and Tracking links for the link builder). */
export const RATE_LIMITS = {
  'get-list': 5,
  'get-list-sum': 5,
  'link-analysis': 5,
  'order-event': 20,
  'attribution-touch': 20,
  'link-create': 10,
  'ad-list': 5,
  'ad-list-sum': 5,
  'ad-customer-list': 5,
  'campaign-order-list': 5,
  'setting-models': 10,
  'setting-goals': 10,
  'connection-source': 10,
  'connection-destination': 10,
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Resources (spec "Resources and their fields")
// ---------------------------------------------------------------------------------------------------------------

/** The dimension-like string members of an attribution record (`platform` is one, though not requestable). */
export const RECORD_STRING_FIELDS = ['campaign', 'channel', 'source', 'platform', 'medium', 'landing_page'] as const;

export const METRIC_FIELDS = [
  'conversions',
  'new_lead_conversions',
  'conversion_value',
  'spend',
  'clicks',
  'ad_conversion_value',
  'impressions',
  'roas',
  'ad_roas',
  'cpa',
  'cpm',
  'cpc',
  'net_profit',
  'net_margin',
] as const;

/** data of get-list-sum: the fourteen numbers and no dimension fields. */
export const ATTRIBUTION_SUMMARY: Table = each(METRIC_FIELDS, num);

/** data.records[] of get-list. */
export const ATTRIBUTION_RECORD: Table = { ...each(RECORD_STRING_FIELDS, str), ...ATTRIBUTION_SUMMARY };

/** List data wrapper of get-list. */
export const ATTRIBUTION_LIST: Table = { total: int(), page_size: int(), records: arr(obj(ATTRIBUTION_RECORD)) };

/** The ad object of an event item. */
export const AD_FIELDS = [
  'account_id',
  'account_name',
  'campaign_id',
  'campaign_name',
  'set_id',
  'set_name',
  'ad_id',
  'ad_name',
  'ad_platform',
  'keyword',
] as const;
export const AD: Table = each(AD_FIELDS, str);

/** The objects of an event item that are null unless the event is of their kind ("inner structure not shown"). */
export const KIND_OBJECT_FIELDS = [
  'email',
  'social_media',
  'organic_search',
  'products',
  'cart_viewed',
  'checkout_started',
  'checkout_completed',
  'payment_info_submitted',
  'search_submitted',
] as const;

/** Event item of an order journey. */
export const EVENT_ITEM: Table = {
  event_id: str(),
  event_at: str({ format: 'local-datetime' }),
  event_page_url: str(),
  event_page_title: str(),
  event_page_referrer: str(),
  event_page_ip: str(),
  event_page_user_agent: str(),
  event_campaign: str(),
  event_source: str(),
  event_medium: str(),
  event_type: str({ shown: ['ad'] }),
  creator: nullable(obj()),
  ad: nullable(obj(AD)),
  ...each(KIND_OBJECT_FIELDS, () => nullable(obj())),
};

/** data of order/event. */
export const ORDER_JOURNEY: Table = {
  order_id: str(),
  shop_currency: str({ format: 'currency' }),
  total: int(),
  page: int(),
  page_size: int(),
  events: arr(obj(EVENT_ITEM)),
};

/** Touchpoint of order/attribution-touch. */
export const TOUCHPOINT: Table = {
  campaign: str(),
  channel: str(),
  source: str(),
  medium: str(),
  time: str({ format: 'local-datetime' }),
};

/** data[] of order/attribution-touch; docs/product.md, API conventions: unknown order ids come back with null touchpoints. */
export const ORDER_TOUCHPOINTS: Table = {
  order_id: str(),
  first_touchpoint: nullable(obj(TOUCHPOINT)),
  last_touchpoint: nullable(obj(TOUCHPOINT)),
};

export const TRACKING_LINK_NUMBERS = [
  'total_users',
  'new_users',
  'clicks',
  'purchase',
  'purchase_conversion_value',
  'add_to_cart',
  'add_to_cart_conversion_value',
  'collection_view',
  'search_submit',
] as const;

/** data.records[] of link-builder-analysis/list. */
export const TRACKING_LINK_RECORD: Table = {
  tracking_link: str({ format: 'short-link' }),
  campaign: str(),
  source: str(),
  medium: str(),
  landing_page: str(),
  created_at: str({ format: 'local-datetime' }),
  ...each(TRACKING_LINK_NUMBERS, num),
};

export const TRACKING_LINK_LIST: Table = {
  total: int(),
  page_size: int(),
  records: arr(obj(TRACKING_LINK_RECORD)),
};

/** data of link-builder/create (docs/product.md, Tracking links names only the short link). */
export const LINK_CREATED: Table = { tracking_link: str({ format: 'short-link' }) };

/** Address of a customer. */
export const ADDRESS: Table = {
  id: num(),
  customer_id: num(),
  first_name: str(),
  last_name: str(),
  company: optional(nullable(str())),
  address1: str(),
  address2: optional(nullable(str())),
  city: str(),
  province: str(),
  country: str(),
  zip: str(),
  phone: optional(nullable(str())),
  name: str(),
  province_code: str(),
  country_code: str(),
  country_name: str(),
  default: bool(),
};

/** Item of customers[]. */
export const CUSTOMER: Table = {
  id: num(),
  email: str(),
  created_at: str({ format: 'iso-datetime' }),
  updated_at: str({ format: 'iso-datetime' }),
  first_name: str(),
  last_name: str(),
  orders_count: num(),
  state: str({ shown: ['disabled', 'enabled'] }),
  total_spent: str({ format: 'decimal' }),
  last_order_id: optional(nullable(num())),
  verified_email: bool(),
  tags: str(),
  currency: str({ format: 'currency' }),
  phone: optional(nullable(str())),
  addresses: arr(obj(ADDRESS)),
  email_marketing_consent: obj({
    state: str({ shown: ['not_subscribed'] }),
    opt_in_level: str({ shown: ['single_opt_in'] }),
    consent_updated_at: optional(nullable(str({ format: 'iso-datetime' }))),
  }),
  default_address: obj(ADDRESS),
  // "Additional fields present in customer responses with requiredness unspecified"
  note: optional(anyValue()),
  multipass_identifier: optional(anyValue()),
  tax_exempt: optional(anyValue()),
  last_order_name: optional(anyValue()),
  tax_exemptions: optional(arr(anyValue())),
  sms_marketing_consent: optional(nullable(obj())),
  admin_graphql_api_id: optional(str()),
};

export const CUSTOMERS_PAGE: Table = { customers: arr(obj(CUSTOMER)) };

/** A touchpoint as order/attribution-touch shows it. */
export const API_TOUCHPOINT: Table = {
  campaign: str(),
  channel: str(),
  source: str(),
  medium: str(),
  time: str({ format: 'local-datetime' }),
};

/** The ad report's numbers: the fourteen plus ctr and cvr (docs/product.md, Ads attribution). */
export const AD_SUMMARY: Table = { ...ATTRIBUTION_SUMMARY, ctr: num(), cvr: num() };

/** data.records[] of get/ad-analysis/list. */
export const AD_RECORD: Table = {
  ...each(['channel', 'platform', 'campaign', 'ad_set', 'ad', 'account_id', 'campaign_id', 'ad_set_id', 'ad_id'], str),
  ...AD_SUMMARY,
};

export const AD_LIST: Table = { total: int(), page_size: int(), records: arr(obj(AD_RECORD)) };

export const AD_CUSTOMER_LIST: Table = {
  total: int(),
  page: int(),
  page_size: int(),
  records: arr(
    obj({
      order_id: str(),
      customer_id: str(),
      email: str(),
      first_name: str(),
      last_name: str(),
      converted_at: str({ format: 'local-datetime' }),
      credit: num(),
      conversion_value: num(),
      order_value: num(),
      new_customer: bool(),
      first_touchpoint: obj(API_TOUCHPOINT),
      last_touchpoint: obj(API_TOUCHPOINT),
    }),
  ),
};

export const CAMPAIGN_ORDER_LIST: Table = {
  total: int(),
  page: int(),
  page_size: int(),
  records: arr(
    obj({
      order_id: str(),
      created_at: str({ format: 'local-datetime' }),
      customer_id: str(),
      email: str(),
      total_price: num(),
      currency: str({ format: 'currency' }),
      credit: num(),
      attributed_value: num(),
      new_customer: bool(),
      touchpoints_count: int(),
      first_touchpoint: obj(API_TOUCHPOINT),
      last_touchpoint: obj(API_TOUCHPOINT),
    }),
  ),
};

/** data of get/setting-models (docs/product.md, Settings). */
export const SETTING_MODELS: Table = {
  records: arr(
    obj({
      code: str({ oneOf: ALL_MODELS }),
      name: str(),
      base_model: str({ oneOf: ALL_MODELS }),
      lookback_days: int(),
      position_weights: nullable(obj({ first: num(), middle: num(), last: num() })),
      half_life_days: nullable(num()),
      is_default: bool(),
      description: str(),
      // Ours (docs/product.md, Attribution, "Data-driven"): the data_driven record's fit per goal.
      data_driven: optional(
        obj({
          min_conversions: int(),
          min_paths: int(),
          goals: arr(
            obj({
              goal: str({ oneOf: GOALS }),
              fitted: bool(),
              reason: nullable(str()),
              weights: anyValue(),
              window_from: nullable(str()),
              window_to: nullable(str()),
              paths: int(),
              conversions: int(),
              fitted_at: nullable(str({ format: 'local-datetime' })),
            }),
          ),
        }),
      ),
    }),
  ),
};

export const SETTING_GOALS: Table = {
  goals: arr(
    obj({ code: str({ oneOf: GOALS }), name: str(), event_type: str(), lookback_days: int(), conversion_num: int() }),
  ),
};

export const CONNECTION_SOURCES: Table = {
  records: arr(
    obj({
      id: str(),
      platform_type: str({ shown: ['shopify_pixel', 'web_snippet', 'store_push', 'google', 'facebook'] }),
      account_id: str(),
      name: str(),
      connected: bool(),
      last_event_at: nullable(str({ format: 'local-datetime' })),
      events_24h: int(),
      // Ours (docs/product.md, Ad spend from the ad platforms): an ad account pulled through a connection.
      pull: optional(
        obj({
          id: str(),
          kind: str({ shown: ['meta', 'google', 'tiktok'] }),
          account_id: str(),
          status: str({ shown: ['connected', 'failing'] }),
          error: nullable(str()),
          last_pull_at: nullable(str({ format: 'local-datetime' })),
          rows: int(),
          days: int(),
          first_day: nullable(str()),
          last_day: nullable(str()),
        }),
      ),
    }),
  ),
};

export const CONNECTION_DESTINATIONS: Table = {
  records: arr(
    obj({
      id: str(),
      // docs/product.md, Conversions to the ad platforms: the three ad platforms' kinds beside identity webhooks.
      platform_type: str({ oneOf: ['webhook', 'meta_capi', 'google_ads', 'tiktok_events'] }),
      name: str(),
      status: str({ oneOf: ['enabled', 'disabled'] }),
      server_config: obj(),
      last_delivery_at: nullable(str({ format: 'local-datetime' })),
      failing: bool(),
      dead_letters: int(),
    }),
  ),
};

/** Common response envelope of the reporting API (success). */
export function envelope(data: Field): Table {
  return { code: int(), message: str(), data };
}

/** docs/product.md, API conventions error envelope: `{code: <status>, message: "<field>: <what is wrong>", data: null}`. */
export const ERROR_ENVELOPE: Table = { code: int(), message: str(), data: { type: 'null', nullable: true } };

// ---------------------------------------------------------------------------------------------------------------
// Request bodies (spec "Endpoints" 1-5)
// ---------------------------------------------------------------------------------------------------------------

const date = (): Field => str({ format: 'date' });

export const GET_LIST_SUM_REQUEST: Table = {
  start_date: date(),
  end_date: date(),
  // spec: at most 3; docs/product.md, API conventions: 1..3 distinct
  dimensions: arr(str({ oneOf: DIMENSIONS }), { minItems: LIMITS.dimensions.min, maxItems: LIMITS.dimensions.max }),
  model: str({ oneOf: ALL_MODELS }),
  goal: str({ oneOf: GOALS }),
};

export const GET_LIST_REQUEST: Table = {
  ...GET_LIST_SUM_REQUEST,
  page: int(),
  page_size: int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max }),
  // "accepted; whether it is required and the allowed columns: not shown"
  orders: optional(arr(obj({ column: str(), order: str() }))),
};

// "Whether each body field is required: not shown"
export const ORDER_EVENT_REQUEST: Table = {
  order_id: str(),
  page: optional(int()),
  page_size: optional(int()),
};

// spec: "whether order_ids is required and its maximum length: not shown"; docs/product.md, API conventions: at most 100
export const ATTRIBUTION_TOUCH_REQUEST: Table = {
  order_ids: optional(arr(str(), { maxItems: LIMITS.maxOrderIds })),
};

export const AD_SUM_REQUEST: Table = {
  start_date: date(),
  end_date: date(),
  dimensions: arr(str({ oneOf: AD_DIMENSIONS }), { minItems: 1, maxItems: 4 }),
  model: str({ oneOf: ALL_MODELS }),
  goal: str({ oneOf: GOALS }),
  filters: optional(arr(obj({ key: str(), operator: str(), value: anyValue() }), { maxItems: 20 })),
};

export const AD_LIST_REQUEST: Table = {
  ...AD_SUM_REQUEST,
  page: int(),
  page_size: int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max }),
  orders: optional(arr(obj({ column: str(), order: str() }))),
};

export const AD_CUSTOMER_LIST_REQUEST: Table = {
  ...AD_SUM_REQUEST,
  page: optional(int()),
  page_size: optional(int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max })),
};

export const CAMPAIGN_ORDER_LIST_REQUEST: Table = {
  start_date: date(),
  end_date: date(),
  campaign: str(),
  channel: optional(str()),
  source: optional(str()),
  medium: optional(str()),
  platform: optional(str()),
  model: optional(str({ oneOf: ALL_MODELS })),
  goal: optional(str({ oneOf: GOALS })),
  page: optional(int()),
  page_size: optional(int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max })),
};

export const LINK_ANALYSIS_REQUEST: Table = {
  start_date: date(),
  end_date: date(),
  page: optional(int()),
  page_size: optional(int()),
};

/**
 * Body of link-builder/create (docs/product.md, Tracking links: {landing_page, campaign, source, medium, content?,
 * term?, creator?}). `medium` may be left out (absent or null) on a creator's link, so the schema cannot require
 * it; the service does when there is no creator.
 */
export const LINK_CREATE_REQUEST: Table = {
  landing_page: str(),
  campaign: str(),
  source: str(),
  medium: optional(nullable(str())),
  content: optional(str()),
  term: optional(str()),
  creator: optional(str()),
};

// ---------------------------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------------------------

export interface Operation {
  /** Test name, also the key of RATE_LIMITS. */
  name: string;
  method: 'get' | 'post';
  /** Path as in the OpenAPI document. */
  path: string;
  auth: 'ApiKey' | 'Bearer';
  /** JSON body table (operations 1-5). */
  request?: Table;
  /** Table of the whole 200 body. */
  response: Table;
}

const path = (p: string): string => `/{version}/api/${p}`;

export const OPERATIONS: readonly Operation[] = [
  {
    name: 'get-list',
    method: 'post',
    path: path('all-attribution/get-list'),
    auth: 'ApiKey',
    request: GET_LIST_REQUEST,
    response: envelope(obj(ATTRIBUTION_LIST)),
  },
  {
    name: 'get-list-sum',
    method: 'post',
    path: path('all-attribution/get-list-sum'),
    auth: 'ApiKey',
    request: GET_LIST_SUM_REQUEST,
    response: envelope(obj(ATTRIBUTION_SUMMARY)),
  },
  {
    name: 'order-event',
    method: 'post',
    path: path('order/event'),
    auth: 'ApiKey',
    request: ORDER_EVENT_REQUEST,
    response: envelope(obj(ORDER_JOURNEY)),
  },
  {
    name: 'attribution-touch',
    method: 'post',
    path: path('order/attribution-touch'),
    auth: 'ApiKey',
    request: ATTRIBUTION_TOUCH_REQUEST,
    response: envelope(arr(obj(ORDER_TOUCHPOINTS))),
  },
  {
    name: 'link-analysis',
    method: 'post',
    path: path('get/link-builder-analysis/list'),
    auth: 'ApiKey',
    request: LINK_ANALYSIS_REQUEST,
    response: envelope(obj(TRACKING_LINK_LIST)),
  },
  {
    name: 'link-create',
    method: 'post',
    path: path('link-builder/create'),
    auth: 'ApiKey',
    request: LINK_CREATE_REQUEST,
    response: envelope(obj(LINK_CREATED, { open: true })),
  },
  { name: 'customers', method: 'get', path: path('customers'), auth: 'Bearer', response: CUSTOMERS_PAGE },
  {
    name: 'ad-list',
    method: 'post',
    path: path('get/ad-analysis/list'),
    auth: 'ApiKey',
    request: AD_LIST_REQUEST,
    response: envelope(obj(AD_LIST)),
  },
  {
    name: 'ad-list-sum',
    method: 'post',
    path: path('get/ad-analysis/list-sum'),
    auth: 'ApiKey',
    request: AD_SUM_REQUEST,
    response: envelope(obj(AD_SUMMARY)),
  },
  {
    name: 'ad-customer-list',
    method: 'post',
    path: path('get/ad-analysis/customer-list'),
    auth: 'ApiKey',
    request: AD_CUSTOMER_LIST_REQUEST,
    response: envelope(obj(AD_CUSTOMER_LIST)),
  },
  {
    name: 'campaign-order-list',
    method: 'post',
    path: path('order/campaign-list'),
    auth: 'ApiKey',
    request: CAMPAIGN_ORDER_LIST_REQUEST,
    response: envelope(obj(CAMPAIGN_ORDER_LIST)),
  },
  {
    name: 'setting-models',
    method: 'post',
    path: path('get/setting-models'),
    auth: 'ApiKey',
    request: {},
    response: envelope(obj(SETTING_MODELS)),
  },
  {
    name: 'setting-goals',
    method: 'post',
    path: path('get/setting-goals'),
    auth: 'ApiKey',
    request: {},
    response: envelope(obj(SETTING_GOALS)),
  },
  {
    name: 'connection-source',
    method: 'post',
    path: path('get/connection/source'),
    auth: 'ApiKey',
    request: {},
    response: envelope(obj(CONNECTION_SOURCES)),
  },
  {
    name: 'connection-destination',
    method: 'post',
    path: path('get/connection/destination'),
    auth: 'ApiKey',
    request: {},
    response: envelope(obj(CONNECTION_DESTINATIONS)),
  },
];

export const operation = (name: string): Operation => {
  const op = OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`no operation ${name}`);
  return op;
};

/** The concrete URL path of an operation. */
export const urlOf = (op: Operation, version: string = VERSION): string => op.path.replace('{version}', version);

// ---------------------------------------------------------------------------------------------------------------
// Checkers
// ---------------------------------------------------------------------------------------------------------------

const LOCAL_DATETIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const CURRENCY = /^[A-Z]{3}$/;

export interface CheckOptions {
  /** Host of the short links (SHORT_LINK_HOST). */
  shortLinkHost?: string;
}

const describeValue = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'string' ? `string ${JSON.stringify(v)}` : typeof v;

function checkFormat(v: string, format: StringFormat, opts: CheckOptions): string | null {
  switch (format) {
    case 'local-datetime':
      return LOCAL_DATETIME.test(v) ? null : 'YYYY-MM-DD HH:MM:SS';
    case 'iso-datetime':
      return ISO_DATETIME.test(v) && !Number.isNaN(Date.parse(v)) ? null : 'an ISO 8601 timestamp';
    case 'date':
      return DATE.test(v) ? null : 'YYYY-MM-DD';
    case 'decimal':
      return DECIMAL.test(v) ? null : 'decimal text';
    case 'currency':
      return CURRENCY.test(v) ? null : 'an ISO 4217 currency code';
    case 'short-link': {
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        return 'a URL on the short-link host';
      }
      const hostOk = opts.shortLinkHost === undefined || url.host === opts.shortLinkHost;
      return hostOk && /^\/[A-Za-z0-9]+$/.test(url.pathname) && (url.protocol === 'https:' || url.protocol === 'http:')
        ? null
        : `a URL https://${opts.shortLinkHost ?? '<short link host>'}/<code>`;
    }
  }
}

/**
 * Problems of a live JSON value against a table field, as `path: expected ..., got ...` lines (empty when it
 * conforms). Objects with a table must have exactly the table's members (optional ones may be absent).
 */
export function checkValue(value: unknown, field: Field, at = '$', opts: CheckOptions = {}): string[] {
  if (value === null) return field.nullable || field.type === 'null' || field.type === 'any' ? [] : [`${at}: got null`];
  if (value === undefined) return field.optional ? [] : [`${at}: missing`];
  const bad = (what: string): string[] => [`${at}: expected ${what}, got ${describeValue(value)}`];
  switch (field.type) {
    case 'any':
      return [];
    case 'null':
      return bad('null');
    case 'string': {
      if (typeof value !== 'string') return bad('string');
      if (field.oneOf && !field.oneOf.includes(value)) return bad(`one of ${field.oneOf.join(', ')}`);
      const f = field.format ? checkFormat(value, field.format, opts) : null;
      return f ? bad(f) : [];
    }
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? [] : bad('integer');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : bad('number');
    case 'boolean':
      return typeof value === 'boolean' ? [] : bad('boolean');
    case 'array':
      if (!Array.isArray(value)) return bad('array');
      return value.flatMap((v, i) => checkValue(v, field.items, `${at}[${i}]`, opts));
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return bad('object');
      if (!field.fields) return [];
      const rec = value as Record<string, unknown>;
      const problems = Object.entries(field.fields).flatMap(([k, f]) => {
        if (!(k in rec)) return f.optional ? [] : [`${at}.${k}: missing`];
        return checkValue(rec[k], f, `${at}.${k}`, opts);
      });
      if (!field.open)
        for (const k of Object.keys(rec)) if (!(k in field.fields)) problems.push(`${at}.${k}: not in the spec`);
      return problems;
    }
  }
}

/** Shorthand: problems of a value against a table. */
export const checkTable = (value: unknown, table: Table, at = '$', opts: CheckOptions = {}): string[] =>
  checkValue(value, obj(table), at, opts);

// ------------------------------------------------------------------------------------------------------------
// OpenAPI 3.0 side
// ------------------------------------------------------------------------------------------------------------

export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  [k: string]: unknown;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, Record<string, unknown>> };
  [k: string]: unknown;
}

export interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: Array<Record<string, string[]>>;
  [k: string]: unknown;
}

/** Follows `$ref`s (`#/components/schemas/X`) and single-member `allOf` wrappers; keeps an outer `nullable`. */
export function resolve(doc: OpenApiDoc, schema: Schema, seen: string[] = []): Schema {
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/components\/schemas\//, '');
    if (seen.includes(name)) throw new Error(`cyclic $ref ${schema.$ref}`);
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    const { $ref: _ref, ...rest } = schema;
    return { ...resolve(doc, target, [...seen, name]), ...rest };
  }
  if (schema.allOf && schema.allOf.length === 1 && !schema.properties) {
    const { allOf, ...rest } = schema;
    const inner = resolve(doc, allOf[0]!, seen);
    return { ...inner, ...rest, nullable: Boolean(rest.nullable ?? inner.nullable) };
  }
  return schema;
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const isNullable = (s: Schema): boolean => s.nullable === true || typesOf(s).includes('null');

/**
 * Problems of an OpenAPI schema against a table field: type (integer where the spec says integer), nullability,
 * the members of objects (all documented, none extra), requiredness, enums and the documented limits.
 */
export function checkSchema(doc: OpenApiDoc, raw: Schema | undefined, field: Field, at = '$'): string[] {
  if (!raw) return [`${at}: no schema`];
  const s = resolve(doc, raw);
  const problems: string[] = [];
  const types = typesOf(s).filter((t) => t !== 'null');
  const expectType = (...allowed: string[]): void => {
    if (!types.some((t) => allowed.includes(t)))
      problems.push(`${at}: type ${types.join('|') || '(none)'}, the spec says ${allowed[0]}`);
  };
  if (field.type !== 'any' && field.type !== 'null') {
    if (field.nullable && !isNullable(s)) problems.push(`${at}: not nullable, the spec says it may be null`);
    if (!field.nullable && isNullable(s)) problems.push(`${at}: nullable, the spec says it is never null`);
  }
  switch (field.type) {
    case 'any':
      break;
    case 'null':
      if (!isNullable(s) || !(s.enum && s.enum.length === 1 && s.enum[0] === null))
        problems.push(`${at}: should be exactly null (nullable with enum [null])`);
      break;
    case 'string': {
      expectType('string');
      if (field.oneOf) {
        const got = [...(s.enum ?? [])].map(String).sort();
        const want = [...field.oneOf].sort();
        if (JSON.stringify(got) !== JSON.stringify(want))
          problems.push(`${at}: enum ${JSON.stringify(got)}, the spec allows ${JSON.stringify(want)}`);
      }
      if (field.shown && s.enum)
        for (const v of field.shown)
          if (!s.enum.includes(v)) problems.push(`${at}: enum lacks the spec's value ${JSON.stringify(v)}`);
      break;
    }
    case 'integer':
      expectType('integer');
      if (field.minimum !== undefined && s.minimum !== field.minimum)
        problems.push(`${at}: minimum ${String(s.minimum)}, the spec says ${field.minimum}`);
      if (field.maximum !== undefined && s.maximum !== field.maximum)
        problems.push(`${at}: maximum ${String(s.maximum)}, the spec says ${field.maximum}`);
      break;
    case 'number':
      expectType('number', 'integer');
      break;
    case 'boolean':
      expectType('boolean');
      break;
    case 'array':
      expectType('array');
      if (field.maxItems !== undefined && s.maxItems !== field.maxItems)
        problems.push(`${at}: maxItems ${String(s.maxItems)}, the spec says ${field.maxItems}`);
      if (field.minItems !== undefined && s.minItems !== field.minItems)
        problems.push(`${at}: minItems ${String(s.minItems)}, the spec says ${field.minItems}`);
      problems.push(...checkSchema(doc, s.items, field.items, `${at}[]`));
      break;
    case 'object': {
      expectType('object');
      if (!field.fields) break;
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      for (const [k, f] of Object.entries(field.fields)) {
        if (!(k in props)) {
          problems.push(`${at}.${k}: not documented`);
          continue;
        }
        if (!f.optional && !required.has(k)) problems.push(`${at}.${k}: not required, the spec says it always is`);
        problems.push(...checkSchema(doc, props[k], f, `${at}.${k}`));
      }
      if (!field.open)
        for (const k of Object.keys(props)) if (!(k in field.fields)) problems.push(`${at}.${k}: not in the spec`);
      break;
    }
  }
  return problems;
}
