/**
 * The small read operations the dashboard needed beyond the reports (docs/product.md, Dashboard): daily totals
 * for the overview chart, the recent orders, and the data-health summary. Public operations like any other:
 * `POST /{version}/api/get/...`, the API key or the read-only dashboard key, the `report` rate class.
 */
import type { Goal, Model } from './attribution';
import type { AttributionSummary } from './reports';
import type { AdConnectionStatus } from './settings';

/** Body of get/daily-summary. */
export interface DailySummaryRequest {
  /**
   * First day, `YYYY-MM-DD` in the store time zone (inclusive).
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  start_date: string;
  /**
   * Day after the last day, `YYYY-MM-DD` (exclusive). At most 92 days after start_date.
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  end_date: string;
  model: Model;
  goal: Goal;
}

/** The fourteen numbers of one day: what get-list-sum answers for [date, date + 1 day). */
export interface DailySummaryRecord extends AttributionSummary {
  /** `YYYY-MM-DD` in the store time zone. */
  date: string;
}

export interface DailySummaryData {
  /** One record per day of the range, ascending, days without data included (zeros). */
  records: DailySummaryRecord[];
}

export interface DailySummaryResponse {
  /** @isInt */
  code: number;
  message: string;
  data: DailySummaryData;
}

/** Body of get/order/list. */
export interface OrderListRequest {
  /**
   * First day, `YYYY-MM-DD` in the store time zone (inclusive).
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  start_date: string;
  /**
   * Day after the last day, `YYYY-MM-DD` (exclusive). At most 366 days after start_date.
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  end_date: string;
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
}

/** One attributed order (a purchase conversion). */
export interface OrderListRecord {
  order_id: string;
  /** When it was placed, `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  created_at: string;
  /** Its value in the store currency, 2 decimals. */
  value: number;
  /** The buyer's first order. */
  is_new_customer: boolean;
}

export interface OrderListData {
  /** @isInt */
  total: number;
  /** @isInt */
  page_size: number;
  /** Newest first. */
  records: OrderListRecord[];
}

export interface OrderListResponse {
  /** @isInt */
  code: number;
  message: string;
  data: OrderListData;
}

/** Events stored in one minute. */
interface EventsPerMinute {
  /** `YYYY-MM-DD HH:MM` in the store time zone. */
  minute: string;
  /** @isInt */
  events: number;
}

/** The latest data of one source. */
export interface SourceFreshness {
  /** `storefront_events`, `orders`, `products`, `customers` or `ad_spend`. */
  source: string;
  /**
   * How many rows of it the store holds.
   * @isInt
   */
  total: number;
  /** The latest one (stored for events, updated for pushes), `YYYY-MM-DD HH:MM:SS` store time; null when none. */
  last_at: string | null;
}

/** Purchases of the last 30 days that a tracked session led to, among all purchases. */
interface OrderCapture {
  /** `YYYY-MM-DD`, inclusive. */
  start_date: string;
  /** `YYYY-MM-DD`, exclusive. */
  end_date: string;
  /**
   * Orders placed in the window (pushed or tracked).
   * @isInt
   */
  purchases: number;
  /**
   * Of those, the orders the tracker saw complete.
   * @isInt
   */
  tracked: number;
  /** tracked / purchases, 4 decimals; null without purchases. */
  rate: number | null;
}

interface DeadLetterSummary {
  /**
   * Poison messages of the store set aside by the pipeline.
   * @isInt
   */
  total: number;
  /**
   * Of those, the last 24 hours.
   * @isInt
   */
  last_24h: number;
  /** `YYYY-MM-DD HH:MM:SS` store time; null when none. */
  last_at: string | null;
  /**
   * Webhook deliveries given up on and not yet redriven.
   * @isInt
   */
  webhook_undelivered: number;
}

export interface DataHealth {
  /** Now, `YYYY-MM-DD HH:MM:SS` in the store time zone. */
  now: string;
  /** The last 60 minutes, oldest first, minutes without events included. */
  events_per_minute: EventsPerMinute[];
  last_event_by_source: SourceFreshness[];
  order_capture: OrderCapture;
  dead_letters: DeadLetterSummary;
  /** When the views last took in a storefront event, `YYYY-MM-DD HH:MM:SS` store time; null before the first. */
  views_updated_at: string | null;
  /** Seconds between that event's arrival and the views taking it in; null before the first. */
  views_lag_seconds: number | null;
  /** The ad-platform connections whose spend is pulled, a failing one with the platform's message. */
  ad_connections: AdConnectionStatus[];
}

export interface DataHealthResponse {
  /** @isInt */
  code: number;
  message: string;
  data: DataHealth;
}
