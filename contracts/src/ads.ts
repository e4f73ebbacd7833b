/**
 * Ads attribution bodies (docs/product.md, Ads attribution): the ad report (get/ad-analysis/list and list-sum),
 * the converting customers behind one of its rows (get/ad-analysis/customer-list) and the orders credited to a
 * campaign (order/campaign-list).
 */
import type { Goal, Model } from './attribution';
import type { ApiTouchpoint, AttributionSummary, OrderSpec } from './reports';

/** Dimensions of the ad report; `ad_name` is accepted as an alias of `ad`. */
export const AD_DIMENSIONS = ['channel', 'platform', 'campaign', 'ad_set', 'ad'] as const;
export type AdDimension = (typeof AD_DIMENSIONS)[number];
/** What `dimensions` accepts: the dimensions and `ad_name`. */
export const AD_DIMENSION_NAMES = [...AD_DIMENSIONS, 'ad_name'] as const;
type AdDimensionName = (typeof AD_DIMENSION_NAMES)[number];

/** Keys a filter may name: the dimensions, the `ad_name` alias and the ids. */
export const AD_FILTER_KEYS = [...AD_DIMENSIONS, 'ad_name', 'campaign_id', 'ad_set_id', 'ad_id'] as const;
export type AdFilterKey = (typeof AD_FILTER_KEYS)[number];

/** Operators of a filter. */
export const AD_FILTER_OPERATORS = ['eq', 'in'] as const;

/** At most this many filters, and this many values in one `in` filter. */
export const MAX_AD_FILTERS = 20;
export const MAX_AD_FILTER_VALUES = 100;

/** One filter of an ad report: `eq` takes a string, `in` an array of strings. */
export interface AdFilter {
  /** `channel`, `platform`, `campaign`, `ad_set`, `ad` (or `ad_name`), `campaign_id`, `ad_set_id` or `ad_id`. */
  key: string;
  /** `eq` or `in`. */
  operator: string;
  /** A string for `eq`, an array of strings for `in`. */
  value: string | string[];
}

/** Body of get/ad-analysis/list-sum. */
export interface AdAnalysisSumRequest {
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
   * One to four distinct of `channel`, `platform`, `campaign`, `ad_set`, `ad` (`ad_name` is an alias of `ad`).
   * @minItems 1
   * @maxItems 4
   */
  dimensions: AdDimensionName[];
  model: Model;
  goal: Goal;
  /**
   * Optional filters on the dimensions and ids, all of which must hold.
   * @maxItems 20
   */
  filters?: AdFilter[];
}

/** Body of get/ad-analysis/list. */
export interface AdAnalysisListRequest extends AdAnalysisSumRequest {
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
  /** Sort keys (a number or a requested dimension); default conversions desc, ties by the dimensions ascending. */
  orders?: OrderSpec[];
}

/** The fourteen numbers plus the click-through and conversion rates. */
export interface AdSummary extends AttributionSummary {
  /** clicks / impressions (0 without impressions). */
  ctr: number;
  /** conversions / clicks (0 without clicks). */
  cvr: number;
}

/** One row of the ad report: dimensions and ids not requested are `""`. */
export interface AdRecord extends AdSummary {
  channel: string;
  platform: string;
  /** The campaign name of the ad platform (from the ad-spend rows), else the touchpoint's campaign. */
  campaign: string;
  /** The ad set name from the ad-spend rows, else `""`. */
  ad_set: string;
  /** The ad name from the ad-spend rows, else `""`. */
  ad: string;
  /** The ad account of the campaign, ad set or ad in the ad-spend rows, else `""`. */
  account_id: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
}

export interface AdListData {
  /**
   * Number of rows over all pages.
   * @isInt
   */
  total: number;
  /** @isInt */
  page_size: number;
  records: AdRecord[];
}

export interface AdAnalysisListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: AdListData;
}

export interface AdAnalysisSumResponse {
  /** @isInt */
  code: number;
  message: string;
  data: AdSummary;
}

/** Body of get/ad-analysis/customer-list: an ad report body whose `filters` name one row. */
export interface AdCustomerListRequest extends AdAnalysisSumRequest {
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

/** One converting customer behind an ad report row. */
export interface AdCustomerRecord {
  /** The order id of a purchase, else the conversion key. */
  order_id: string;
  /** `""` when unknown. */
  customer_id: string;
  email: string;
  first_name: string;
  last_name: string;
  /** `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  converted_at: string;
  /** The share of the conversion credited to the row under the model (0 to 1). */
  credit: number;
  /** The conversion value credited to the row. */
  conversion_value: number;
  /** The whole conversion value. */
  order_value: number;
  new_customer: boolean;
  first_touchpoint: ApiTouchpoint;
  last_touchpoint: ApiTouchpoint;
}

export interface AdCustomerListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page: number;
  /** @isInt */
  page_size: number;
  records: AdCustomerRecord[];
}

export interface AdCustomerListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: AdCustomerListData;
}

/** Body of order/campaign-list. */
export interface CampaignOrderListRequest {
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
   * The touchpoint campaign, as reports show it.
   * @minLength 1
   */
  campaign: string;
  channel?: string;
  source?: string;
  medium?: string;
  platform?: string;
  /** Default `last`. */
  model?: Model;
  /** Default `purchase`. */
  goal?: Goal;
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

/** One order (or other conversion) credited to the campaign. */
export interface CampaignOrderRecord {
  /** The order id of a purchase, else the conversion key. */
  order_id: string;
  /** `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  created_at: string;
  customer_id: string;
  email: string;
  /** The whole conversion value in the store currency. */
  total_price: number;
  /** The store currency. */
  currency: string;
  /** The share of the conversion credited to the campaign under the model (0 to 1). */
  credit: number;
  /** The conversion value credited to the campaign. */
  attributed_value: number;
  new_customer: boolean;
  /**
   * Touchpoints the conversion was credited to under the model.
   * @isInt
   */
  touchpoints_count: number;
  first_touchpoint: ApiTouchpoint;
  last_touchpoint: ApiTouchpoint;
}

export interface CampaignOrderListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page: number;
  /** @isInt */
  page_size: number;
  records: CampaignOrderRecord[];
}

export interface CampaignOrderListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: CampaignOrderListData;
}
