/**
 * Analytics API bodies (docs/product.md, Analytics): the web funnel, the event summary of a landing page,
 * product analytics and influencer links. Every operation is `POST /{version}/api/get/...` with the
 * envelope and error shape of the reporting API (contracts/src/reports.ts).
 */
import type { Model } from './attribution';
import type { OrderSpec, TrackingLinkRecord } from './reports';

/** Dimensions of the web funnel. */
export const WEB_ANALYSIS_DIMENSIONS = ['channel', 'source', 'medium', 'campaign', 'landing_page'] as const;
export type WebAnalysisDimension = (typeof WEB_ANALYSIS_DIMENSIONS)[number];

/** A date range: [start_date, end_date) in the store time zone, at most 366 days. */
export interface DateRange {
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
}

/** Paging and sorting of a list. */
interface Paging {
  /**
   * Page number, from 1; default 1.
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
  /** Sort keys (a number of the record or a requested dimension, `asc` or `desc`). */
  orders?: OrderSpec[];
}

// ---------------------------------------------------------------------------------------------------------------
// Web funnel
// ---------------------------------------------------------------------------------------------------------------

/** Body of get/web-analysis/list-sum. */
export interface WebAnalysisSumRequest extends DateRange {
  /**
   * Zero to three distinct dimensions (list-sum ignores the grouping: it answers over every session).
   * @maxItems 3
   */
  dimensions?: WebAnalysisDimension[];
}

/** Body of get/web-analysis/list. */
export interface WebAnalysisRequest extends DateRange, Paging {
  /**
   * Zero to three distinct dimensions; default none (one record).
   * @maxItems 3
   */
  dimensions?: WebAnalysisDimension[];
}

/** The funnel numbers of a group of sessions. */
export interface WebAnalysisSummary {
  /** Distinct persons with a session. */
  unique_users: number;
  /** Persons whose first session ever is in the range (and group). */
  new_users: number;
  /** unique_users - new_users. */
  returning_users: number;
  total_sessions: number;
  /** Events / sessions. */
  events_per_session: number;
  /** Sessions with two or more page views or any other event / sessions. */
  engagement_rate: number;
  /** 1 - engagement_rate (0 without sessions). */
  bounce_rate: number;
  product_view_users: number;
  atc_users: number;
  checkout_users: number;
  payment_info_users: number;
  purchase_users: number;
  /** Purchases credited to the group under the last-touch model. */
  purchases: number;
  /** purchase_users / unique_users. */
  purchase_rate: number;
  /** Value of those purchases, store currency. */
  revenue: number;
  /** Ad spend on the group's channel, source, medium and campaign (none per landing page). */
  spend: number;
}

/** The funnel numbers by name (sortable columns, tool outputs). */
export const WEB_ANALYSIS_METRICS = [
  'unique_users',
  'new_users',
  'returning_users',
  'total_sessions',
  'events_per_session',
  'engagement_rate',
  'bounce_rate',
  'product_view_users',
  'atc_users',
  'checkout_users',
  'payment_info_users',
  'purchase_users',
  'purchases',
  'purchase_rate',
  'revenue',
  'spend',
] as const satisfies readonly (keyof WebAnalysisSummary)[];

/** One record of get/web-analysis/list: dimensions not requested are `""`. */
export interface WebAnalysisRecord extends WebAnalysisSummary {
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  landing_page: string;
}

export interface WebAnalysisListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  records: WebAnalysisRecord[];
}

export interface WebAnalysisListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: WebAnalysisListData;
}

export interface WebAnalysisSumResponse {
  /** @isInt */
  code: number;
  message: string;
  data: WebAnalysisSummary;
}

// ---------------------------------------------------------------------------------------------------------------
// Landing page
// ---------------------------------------------------------------------------------------------------------------

/** Filters of the landing-page summary: only sessions with these touchpoint values. */
interface LandingPageFilters {
  channel?: string;
  source?: string;
  medium?: string;
  campaign?: string;
}

/** Body of get/landing-page/event-summary. */
export interface LandingPageSummaryRequest extends DateRange {
  /** A path (`/products/tee`); a trailing `*` matches every path that starts with what precedes it. */
  landing_page: string;
  dimensions?: LandingPageFilters;
}

/** One event kind within the sessions that landed on the page. */
interface LandingPageEvent {
  /** The event kind (`page_viewed`, `product_viewed`, ...). */
  event: string;
  /** Distinct persons with such an event. */
  users: number;
  /** Events of the kind. */
  count: number;
  /** users / visitors. */
  rate: number;
}

export interface LandingPageSummary {
  landing_page: string;
  /** Distinct persons with a session that landed on the page. */
  visitors: number;
  sessions: number;
  /** Every event kind, in the order of the event list. */
  events: LandingPageEvent[];
}

export interface LandingPageSummaryResponse {
  /** @isInt */
  code: number;
  message: string;
  data: LandingPageSummary;
}

// ---------------------------------------------------------------------------------------------------------------
// Products
// ---------------------------------------------------------------------------------------------------------------

/** Body of get/product-analysis/list-sum. */
export interface ProductAnalysisSumRequest extends DateRange {
  /**
   * Only these products (default every product).
   * @maxItems 100
   */
  product_ids?: string[];
}

/** Body of get/product-analysis/list. */
export interface ProductAnalysisRequest extends ProductAnalysisSumRequest, Paging {}

/** Product figures over a range. */
export interface ProductAnalysisSummary {
  views: number;
  /** Distinct persons who viewed. */
  view_users: number;
  add_to_cart: number;
  /** Distinct persons who added to the cart. */
  add_to_cart_users: number;
  /** Checkouts started that held the product. */
  checkouts: number;
  /** Purchases that held the product. */
  purchases: number;
  units: number;
  /** The product's share of its purchases' value, store currency. */
  revenue: number;
  /** Cost of goods of the units sold. */
  cogs: number;
  /** revenue - cogs. */
  gross_profit: number;
  /** add_to_cart / views. */
  view_to_cart_rate: number;
  /** purchases / add_to_cart. */
  cart_to_purchase_rate: number;
  /** Purchases by first-time customers. */
  new_customer_purchases: number;
}

/** A product's numbers by name (sortable columns, tool outputs). */
export const PRODUCT_ANALYSIS_METRICS = [
  'views',
  'view_users',
  'add_to_cart',
  'add_to_cart_users',
  'checkouts',
  'purchases',
  'units',
  'revenue',
  'cogs',
  'gross_profit',
  'view_to_cart_rate',
  'cart_to_purchase_rate',
  'new_customer_purchases',
] as const satisfies readonly (keyof ProductAnalysisSummary)[];

export interface ProductAnalysisRecord extends ProductAnalysisSummary {
  product_id: string;
  /** `""` when unknown. */
  title: string;
  vendor: string;
  product_type: string;
  image_src: string;
}

export interface ProductAnalysisListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  records: ProductAnalysisRecord[];
}

export interface ProductAnalysisListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: ProductAnalysisListData;
}

export interface ProductAnalysisSumResponse {
  /** @isInt */
  code: number;
  message: string;
  data: ProductAnalysisSummary;
}

/** Body of get/product-analysis/channel-list. */
export interface ProductChannelRequest extends DateRange, Paging {
  /**
   * One to three distinct dimensions of get-list (`channel`, `source`, `medium`, `campaign`, `landing_page`).
   * @minItems 1
   * @maxItems 3
   */
  dimensions: WebAnalysisDimension[];
  model: Model;
  /**
   * Only these products (default every product).
   * @maxItems 100
   */
  product_ids?: string[];
}

export interface ProductChannelRecord {
  product_id: string;
  title: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  landing_page: string;
  /** Purchases holding the product credited to the touchpoint under the model (fractional). */
  conversions: number;
  /** The product's share of those purchases' value, credited the same way. */
  conversion_value: number;
  /** Units of the product, credited the same way (fractional). */
  units: number;
}

export interface ProductChannelListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  records: ProductChannelRecord[];
}

export interface ProductChannelListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: ProductChannelListData;
}

export const TREND_GRANULARITIES = ['day', 'week', 'month'] as const;
type TrendGranularity = (typeof TREND_GRANULARITIES)[number];

/** Body of get/product-analysis/trend. */
export interface ProductTrendRequest extends DateRange {
  /**
   * One to twenty products.
   * @minItems 1
   * @maxItems 20
   */
  product_ids: string[];
  /** `day`, `week` (from Monday) or `month`. */
  granularity: TrendGranularity;
}

export interface ProductTrendPoint {
  /** First day of the period, `YYYY-MM-DD` (clipped to start_date). */
  date: string;
  product_id: string;
  views: number;
  add_to_cart: number;
  purchases: number;
  units: number;
  revenue: number;
}

export interface ProductTrendResponse {
  /** @isInt */
  code: number;
  message: string;
  data: ProductTrendPoint[];
}

// ---------------------------------------------------------------------------------------------------------------
// Influencers
// ---------------------------------------------------------------------------------------------------------------

/** Body of get/influencer-analysis/list. */
export interface InfluencerListRequest extends DateRange, Paging {}

export interface InfluencerRecord {
  creator: string;
  links_count: number;
  clicks: number;
  /** Distinct visitors with a session from one of the creator's links. */
  total_users: number;
  /** ... of whom first seen in such a session. */
  new_users: number;
  /** Add-to-carts credited to the links under the last-touch model. */
  add_to_cart: number;
  /** Purchases credited to the links under the last-touch model. */
  purchase: number;
  purchase_conversion_value: number;
  /** Purchases by first-time customers, credited the same way. */
  new_customer_purchases: number;
}

export interface InfluencerListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  records: InfluencerRecord[];
}

export interface InfluencerListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: InfluencerListData;
}

/** Body of get/influencer-analysis/link-list. */
export interface InfluencerLinkListRequest extends DateRange {
  /** @minLength 1 */
  creator: string;
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

export interface InfluencerLinkListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  records: TrackingLinkRecord[];
}

export interface InfluencerLinkListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: InfluencerLinkListData;
}
