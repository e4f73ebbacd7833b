/** The API's answers as the dashboard reads them (the public shapes; see docs/product.md, API conventions). */
import type { AttributionRecord, AttributionSummary } from '../../contracts/src/reports';

export type Summary = AttributionSummary;
export type ReportRecord = AttributionRecord;

export interface Page<T> {
  total: number;
  page_size: number;
  records: T[];
}

export type { DailySummaryRecord as DailyRecord, OrderListRecord as OrderRecord } from '../../contracts/src/dashboard';
export type { ApiTouchpoint as Touchpoint, OrderTouchpoints } from '../../contracts/src/reports';

export interface JourneyEvent {
  event_id: string;
  event_at: string;
  event_page_url: string;
  event_page_title: string;
  event_source: string;
  event_medium: string;
  event_campaign: string;
  event_type: string;
}

export interface Journey {
  order_id: string;
  shop_currency: string;
  total: number;
  events: JourneyEvent[];
}

export interface LinkRecord {
  tracking_link: string;
  campaign: string;
  source: string;
  medium: string;
  landing_page: string;
  created_at: string;
  total_users: number;
  new_users: number;
  clicks: number;
  purchase: number;
  purchase_conversion_value: number;
}

export interface CreatedLink {
  tracking_link: string;
  code: string;
}

export interface DataHealth {
  now: string;
  events_per_minute: Array<{ minute: string; events: number }>;
  last_event_by_source: Array<{ source: string; total: number; last_at: string | null }>;
  order_capture: { start_date: string; end_date: string; purchases: number; tracked: number; rate: number | null };
  dead_letters: { total: number; last_24h: number; last_at: string | null; webhook_undelivered: number };
  views_updated_at: string | null;
  views_lag_seconds: number | null;
}

/** get/setting-models, where the server has it. */
export interface SettingModel {
  code: string;
  name: string;
  lookback_days: number;
  is_default: boolean;
  /** `data_driven` only: each goal's fit. */
  data_driven?: {
    goals: Array<{ goal: string; fitted: boolean; weights: Record<string, number>; fitted_at: string | null }>;
  };
}

/** The analytics and ads operations' shapes, as the contracts define them (docs/product.md, Analytics, Ads attribution). */
export type {
  InfluencerRecord,
  LandingPageSummary,
  ProductAnalysisRecord,
  ProductAnalysisSummary,
  ProductChannelRecord,
  ProductTrendPoint,
  WebAnalysisDimension,
  WebAnalysisRecord,
  WebAnalysisSummary,
} from '../../contracts/src/analytics';
export type { TrackingLinkRecord } from '../../contracts/src/reports';
export type { AdCustomerRecord, AdFilter, AdRecord, AdSummary, CampaignOrderRecord } from '../../contracts/src/ads';
