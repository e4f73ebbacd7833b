/**
 * Reporting API bodies (spec "Endpoints" 1-5, docs/product.md, Views and metrics and API conventions and Tracking links). All operations are
 * `POST /{version}/api/...` with a JSON body and answer HTTP 200 with `{code: 1, message: "success", data}`;
 * errors answer the HTTP status with `{code: <status>, message: "<field>: <what is wrong>", data: null}` (docs/product.md, API conventions).
 */
import type { Dimension, Goal, Model } from './attribution';

/** The API version of every path, `/{version}/api/...`. */
export const API_VERSION = 'v2-4-2';

/** Sort directions of `OrderSpec.order`. */
export const SORT_ORDERS = ['asc', 'desc'] as const;

/** One sort key of a get-list request. */
export interface OrderSpec {
  /** A metric (`conversions`, `spend`, ...) or a requested dimension. */
  column: string;
  /** `asc` or `desc`. */
  order: string;
}

/** Body of get-list-sum (operation 2). */
export interface GetListSumRequest {
  /**
   * First day, `YYYY-MM-DD` in the store time zone (inclusive).
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  start_date: string;
  /**
   * Day after the last day, `YYYY-MM-DD` in the store time zone (exclusive). At most 366 days after start_date.
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  end_date: string;
  /**
   * One to three distinct dimensions.
   * @minItems 1
   * @maxItems 3
   */
  dimensions: Dimension[];
  model: Model;
  goal: Goal;
}

/** Body of get-list (operation 1). */
export interface GetListRequest extends GetListSumRequest {
  /**
   * Page number, from 1.
   * @isInt
   * @minimum 1
   * @maximum 1000000
   */
  page: number;
  /**
   * @isInt
   * @minimum 1
   * @maximum 100
   */
  page_size: number;
  /** Sort keys; default conversions desc, ties broken by the dimensions ascending. */
  orders?: OrderSpec[];
}

/** The fourteen numbers of an attribution row (docs/product.md, Views and metrics). */
export interface AttributionSummary {
  conversions: number;
  new_lead_conversions: number;
  conversion_value: number;
  spend: number;
  clicks: number;
  ad_conversion_value: number;
  impressions: number;
  roas: number;
  ad_roas: number;
  cpa: number;
  cpm: number;
  cpc: number;
  net_profit: number;
  net_margin: number;
}

/** The fourteen numbers by name, in the order of the specification (sortable columns, tool outputs). */
export const ATTRIBUTION_METRICS = [
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
] as const satisfies readonly (keyof AttributionSummary)[];
export type AttributionMetric = (typeof ATTRIBUTION_METRICS)[number];

/** One row of get-list: dimensions not requested are `""`. */
export interface AttributionRecord extends AttributionSummary {
  campaign: string;
  channel: string;
  source: string;
  platform: string;
  medium: string;
  landing_page: string;
}

/** Data of get-list. */
export interface AttributionListData {
  /**
   * Number of rows over all pages.
   * @isInt
   */
  total: number;
  /** @isInt */
  page_size: number;
  records: AttributionRecord[];
}

export interface GetListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: AttributionListData;
}

export interface GetListSumResponse {
  /** @isInt */
  code: number;
  message: string;
  data: AttributionSummary;
}

// ---------------------------------------------------------------------------------------------------------------
// Order journey (operation 3)
// ---------------------------------------------------------------------------------------------------------------

/** Body of order/event. */
export interface OrderEventRequest {
  order_id: string;
  /**
   * From 1; default 1.
   * @isInt
   * @minimum 1
   * @maximum 1000000
   */
  page?: number;
  /**
   * Default 20.
   * @isInt
   * @minimum 1
   * @maximum 100
   */
  page_size?: number;
}

/** The ad behind a paid landing event. */
export interface AdInfo {
  account_id: string;
  account_name: string;
  campaign_id: string;
  campaign_name: string;
  set_id: string;
  set_name: string;
  ad_id: string;
  ad_name: string;
  /** `google`, `facebook`, ... */
  ad_platform: string;
  /** Search keyword (`utm_term`) when known, else `""`. */
  keyword: string;
}

/** The tracking link (and its creator) a session came from (docs/product.md, Tracking links). */
interface CreatorInfo {
  /** `creator` given when the link was created; `""` when none. */
  creator: string;
  code: string;
  tracking_link: string;
}

/** An email landing (`event_type` `email`). */
interface EmailInfo {
  /** e.g. `klaviyo`. */
  source: string;
  campaign: string;
  /** `utm_content`, `""` when absent. */
  content: string;
  /** `utm_term`, `""` when absent. */
  term: string;
}

/** A social-network landing (`event_type` `social_media`). */
interface SocialMediaInfo {
  /** e.g. `facebook`, `instagram`. */
  network: string;
  referrer: string;
  campaign: string;
}

/** A search-engine landing (`event_type` `organic_search`). */
interface OrganicSearchInfo {
  /** e.g. `google`. */
  engine: string;
  referrer: string;
  /** Search keyword when known, else `""`. */
  keyword: string;
}

/** A product line in a journey event. */
export interface ProductItem {
  product_id: string;
  variant_id: string;
  title: string;
  variant_title: string;
  sku: string;
  /** Unit price. */
  price: number;
  currency: string;
  quantity: number;
  /** Product URL, `""` when unknown. */
  url: string;
  image_url: string;
}

/** `product_viewed`, `product_added_to_cart`, `product_removed_from_cart` and `collection_viewed` events. */
interface ProductsInfo {
  /** The collection title on `collection_viewed`, else `""`. */
  collection: string;
  items: ProductItem[];
}

/** A `cart_viewed` event. */
interface CartViewedInfo {
  cart_id: string;
  total_quantity: number;
  total_amount: number;
  currency: string;
  items: ProductItem[];
}

/** A checkout step (`checkout_started`, `payment_info_submitted`). */
export interface CheckoutInfo {
  checkout_token: string;
  total_price: number;
  subtotal_price: number;
  currency: string;
  item_count: number;
  /** Buyer email, `""` when not given yet. */
  email: string;
  discount_codes: string[];
  items: ProductItem[];
}

/** A `checkout_completed` event. */
export interface CheckoutCompletedInfo extends CheckoutInfo {
  order_id: string;
  /** `order.customer.isFirstOrder` as sent. */
  is_first_order: boolean | null;
}

/** A `search_submitted` event. */
interface SearchSubmittedInfo {
  query: string;
  result_count: number;
}

/**
 * One event of an order journey. For a session's landing event `event_type` is `ad`, `email`, `social_media`,
 * `organic_search`, `referral` or `direct` (with `ad`, `email`, `social_media` or `organic_search` filled to
 * match); otherwise it is the event's kind name and the object of that kind is filled. The others are null.
 */
export interface EventItem {
  event_id: string;
  /** `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  event_at: string;
  event_page_url: string;
  event_page_title: string;
  /** May be empty. */
  event_page_referrer: string;
  event_page_ip: string;
  event_page_user_agent: string;
  event_campaign: string;
  event_source: string;
  event_medium: string;
  event_type: string;
  creator: CreatorInfo | null;
  ad: AdInfo | null;
  email: EmailInfo | null;
  social_media: SocialMediaInfo | null;
  organic_search: OrganicSearchInfo | null;
  products: ProductsInfo | null;
  cart_viewed: CartViewedInfo | null;
  checkout_started: CheckoutInfo | null;
  checkout_completed: CheckoutCompletedInfo | null;
  payment_info_submitted: CheckoutInfo | null;
  search_submitted: SearchSubmittedInfo | null;
}

/** Data of order/event. */
export interface OrderJourney {
  order_id: string;
  /** ISO 4217. */
  shop_currency: string;
  /**
   * Number of events over all pages.
   * @isInt
   */
  total: number;
  /** @isInt */
  page: number;
  /** @isInt */
  page_size: number;
  events: EventItem[];
}

export interface OrderEventResponse {
  /** @isInt */
  code: number;
  message: string;
  data: OrderJourney;
}

// ---------------------------------------------------------------------------------------------------------------
// Touchpoints (operation 4)
// ---------------------------------------------------------------------------------------------------------------

/** Body of order/attribution-touch. */
export interface AttributionTouchRequest {
  /**
   * @minItems 1
   * @maxItems 100
   */
  order_ids: string[];
}

/** A touchpoint as the API shows it. */
export interface ApiTouchpoint {
  campaign: string;
  channel: string;
  source: string;
  medium: string;
  /** Session start, `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  time: string;
}

/** First and last touchpoint of an order; both null for an unknown order id (docs/product.md, API conventions). */
export interface OrderTouchpoints {
  order_id: string;
  first_touchpoint: ApiTouchpoint | null;
  last_touchpoint: ApiTouchpoint | null;
}

export interface AttributionTouchResponse {
  /** @isInt */
  code: number;
  message: string;
  data: OrderTouchpoints[];
}

// ---------------------------------------------------------------------------------------------------------------
// Tracking links (operation 5, docs/product.md, Tracking links)
// ---------------------------------------------------------------------------------------------------------------

/** Body of link-builder/create. */
export interface LinkCreateRequest {
  /** Absolute http(s) URL of a store page. */
  landing_page: string;
  /** @minLength 1 */
  campaign: string;
  /** @minLength 1 */
  source: string;
  /**
   * Required, except on a creator's link: there it may be left out (absent, `null` and `""` all mean "not set")
   * and then becomes `influencer`.
   */
  medium?: string | null;
  content?: string;
  term?: string;
  /** Who the link is for (influencer, partner): its links are reported per creator. */
  creator?: string;
}

/** Data of link-builder/create. */
export interface LinkCreateData {
  /** `https://{short_link_host}/<code>`. */
  tracking_link: string;
  code: string;
  landing_page: string;
  campaign: string;
  source: string;
  medium: string;
  content: string;
  term: string;
  creator: string;
  /** `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  created_at: string;
}

export interface LinkCreateResponse {
  /** @isInt */
  code: number;
  message: string;
  data: LinkCreateData;
}

/** Body of get/link-builder-analysis/list. */
export interface LinkAnalysisRequest {
  /**
   * First day, inclusive.
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  start_date: string;
  /**
   * Day after the last day (exclusive).
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  end_date: string;
  /**
   * From 1; default 1.
   * @isInt
   * @minimum 1
   * @maximum 1000000
   */
  page?: number;
  /**
   * Default 20.
   * @isInt
   * @minimum 1
   * @maximum 100
   */
  page_size?: number;
}

/** One tracking link with its statistics over the requested days. */
export interface TrackingLinkRecord {
  /** URL on the short-link host. */
  tracking_link: string;
  campaign: string;
  source: string;
  medium: string;
  landing_page: string;
  /** `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  created_at: string;
  total_users: number;
  new_users: number;
  clicks: number;
  purchase: number;
  purchase_conversion_value: number;
  add_to_cart: number;
  add_to_cart_conversion_value: number;
  collection_view: number;
  search_submit: number;
}

export interface TrackingLinkListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  records: TrackingLinkRecord[];
}

export interface LinkAnalysisResponse {
  /** @isInt */
  code: number;
  message: string;
  data: TrackingLinkListData;
}
