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

// The public shapes of the operations the views read, from the contracts (never redeclared here).
export type { OrderJourney as Journey } from '../../contracts/src/reports';
export type { TrackingLinkRecord as LinkRecord, LinkCreateData as CreatedLink } from '../../contracts/src/reports';
export type { DataHealth } from '../../contracts/src/dashboard';
export type { ModelSettingRecord as SettingModel } from '../../contracts/src/settings';

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
