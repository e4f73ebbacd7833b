/**
 * Settings operations (docs/product.md, Settings): the attribution models and conversion goals a store's
 * reports accept, and the connections that feed it and that it feeds.
 */
import type { Goal, Model } from './attribution';

/** An empty JSON object: the body of every settings operation. */
export type EmptyBody = Record<string, never>;

/** Shares of the first, middle and last touchpoints, where a model is described by them. */
interface PositionWeights {
  first: number;
  middle: number;
  last: number;
}

/** One attribution model. */
export interface ModelSettingRecord {
  /** What `model` accepts. */
  code: Model;
  name: string;
  /** The built-in model this one is (every model is a built-in today). */
  base_model: Model;
  /**
   * The store's lookback window in days.
   * @isInt
   */
  lookback_days: number;
  /** The shares for first, last and position (position: 0.4 / 0.2 / 0.4 for three or more touchpoints); null otherwise. */
  position_weights: PositionWeights | null;
  /** The store's half-life for `time_decay`; null for the other models. */
  half_life_days: number | null;
  /** The model reports are read under when none is named (`last`). */
  is_default: boolean;
  description: string;
  /** `data_driven` only: the store's fit per goal (docs/product.md, Attribution, "Data-driven"). */
  data_driven?: DataDrivenStatus;
}

/** The data-driven model's state for a store: its thresholds and the last fit of each goal. */
export interface DataDrivenStatus {
  /**
   * Conversions of the goal the 90-day window must hold for a fit.
   * @isInt
   */
  min_conversions: number;
  /**
   * Paths (converting and not) the window must hold for a fit.
   * @isInt
   */
  min_paths: number;
  goals: DataDrivenGoalStatus[];
}

interface DataDrivenGoalStatus {
  goal: Goal;
  /** Reports of this goal accept `model: "data_driven"`. */
  fitted: boolean;
  /** Why the goal is not fitted (its counts against the thresholds, or no fit yet); null when fitted. */
  reason: string | null;
  /** Each channel's weight (its normalised removal effect), summing to 1; empty when not fitted. */
  weights: Record<string, number>;
  /** The fit's window, `YYYY-MM-DD`, end exclusive; null before the first fit. */
  window_from: string | null;
  window_to: string | null;
  /**
   * Paths and conversions in the window at the last fit.
   * @isInt
   */
  paths: number;
  /** @isInt */
  conversions: number;
  /** When the last fit ran, `YYYY-MM-DD HH:MM:SS` store time; null before the first. */
  fitted_at: string | null;
}

export interface SettingModelsData {
  records: ModelSettingRecord[];
}

export interface SettingModelsResponse {
  /** @isInt */
  code: number;
  message: string;
  data: SettingModelsData;
}

/** One conversion goal. */
interface GoalSettingRecord {
  /** What `goal` accepts. */
  code: Goal;
  name: string;
  /** The storefront event that converts (`checkout_completed`, `product_added_to_cart`, ...). */
  event_type: string;
  /** @isInt */
  lookback_days: number;
  /**
   * Conversions of the goal in the last 30 days (by conversion time).
   * @isInt
   */
  conversion_num: number;
}

export interface SettingGoalsData {
  goals: GoalSettingRecord[];
}

export interface SettingGoalsResponse {
  /** @isInt */
  code: number;
  message: string;
  data: SettingGoalsData;
}

/** One source that feeds the store, as seen from what it received. */
export interface SourceConnectionRecord {
  /** `shopify_pixel`, `web_snippet`, `store_push`, or `ad:<platform>:<account id>`. */
  id: string;
  /** `shopify_pixel`, `web_snippet`, `store_push`, or the ad platform of ad-spend pushes (`google`, `facebook`, ...). */
  platform_type: string;
  /** The ad account for an ad platform, else `""`. */
  account_id: string;
  name: string;
  /** Whether something arrived in the last 7 days. */
  connected: boolean;
  /** When the latest event, push or ad-spend row arrived (`YYYY-MM-DD HH:MM:SS`, store time); null when never. */
  last_event_at: string | null;
  /**
   * What arrived in the last 24 hours (events, pushed records or ad-spend rows).
   * @isInt
   */
  events_24h: number;
  /** For an ad account pulled through a connection: its pull status. */
  pull?: AdConnectionStatus;
}

/** The pull status of an ad-platform connection (docs/product.md, Ad spend from the ad platforms). */
export interface AdConnectionStatus {
  /** The connection id (`ac_...`). */
  id: string;
  /** `meta`, `google` or `tiktok`. */
  kind: string;
  account_id: string;
  /** `connected`, or `failing` after the platform refused the credentials (see `error`). */
  status: string;
  /** The platform's message of the failing pull; null when connected. */
  error: string | null;
  /** The last successful pull, `YYYY-MM-DD HH:MM:SS` store time; null before the first. */
  last_pull_at: string | null;
  /**
   * Rows of the last successful pull.
   * @isInt
   */
  rows: number;
  /**
   * Days with rows in the last successful pull.
   * @isInt
   */
  days: number;
  /** The first and last day ever pulled, `YYYY-MM-DD`; null before the first pull. */
  first_day: string | null;
  last_day: string | null;
}

export interface SourceConnectionData {
  records: SourceConnectionRecord[];
}

export interface SourceConnectionResponse {
  /** @isInt */
  code: number;
  message: string;
  data: SourceConnectionData;
}

/** One destination: of the identity events, or of the purchases sent to an ad platform's conversion API. */
export interface DestinationConnectionRecord {
  id: string;
  /**
   * `webhook` (a Standard Webhooks endpoint or Klaviyo's Create Event API), or the ad platform's conversion API:
   * `meta_capi`, `google_ads`, `tiktok_events`.
   */
  platform_type: 'webhook' | 'meta_capi' | 'google_ads' | 'tiktok_events';
  /**
   * The destination's host, and `(klaviyo)` for a Klaviyo destination; for an ad platform, its pixel or customer
   * id (and `test events` while it sends to the platform's test events tool).
   */
  name: string;
  status: 'enabled' | 'disabled';
  /** Each of the six identity events: whether this destination receives it; `{purchase: true}` for an ad platform. */
  server_config: Record<string, boolean>;
  /** Last successful delivery (`YYYY-MM-DD HH:MM:SS`, store time); null when none yet. */
  last_delivery_at: string | null;
  /** Whether the latest attempt known failed (a failure after the last success). */
  failing: boolean;
  /**
   * Dead letters waiting for a redrive.
   * @isInt
   */
  dead_letters: number;
}

export interface DestinationConnectionData {
  records: DestinationConnectionRecord[];
}

export interface DestinationConnectionResponse {
  /** @isInt */
  code: number;
  message: string;
  data: DestinationConnectionData;
}

/**
 * The goals a model of get/setting-models can be read for: undefined for a model offered for every goal, the
 * fitted goals for `data_driven` (empty before any fit: the model is not offered yet).
 */
export function offeredGoals(record: {
  data_driven?: { goals: ReadonlyArray<{ goal: string; fitted: boolean }> };
}): string[] | undefined {
  return record.data_driven?.goals.filter((g) => g.fitted).map((g) => g.goal);
}
