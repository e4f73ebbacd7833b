/**
 * One interface for the ad platforms' reporting APIs (docs/product.md, Ad spend from the ad platforms): a client
 * pulls the daily ad-level rows of one account over a range of days, in the account's currency, exact micros.
 */
import {
  type AdPlatformEndpoints,
  DEFAULT_AD_PLATFORM_ENDPOINTS,
} from '../../../../contracts/src/ad-platform-endpoints';
export type AdPlatformKind = 'meta' | 'google' | 'tiktok';
export const AD_PLATFORM_KINDS: readonly AdPlatformKind[] = ['meta', 'google', 'tiktok'];

/** The `platform` of the spend rows each connection kind produces (the names touchpoints carry). */
export { AD_SPEND_PLATFORM as SPEND_PLATFORM } from '../../../../storage/ad-connections';

export interface AdRow {
  /** The account's day, `YYYY-MM-DD`. */
  day: string;
  accountId: string;
  campaignId: string;
  campaignName: string;
  adsetId: string;
  adsetName: string;
  adId: string;
  adName: string;
  spendMicros: number;
  impressions: number;
  clicks: number;
  purchases: number;
  purchaseValueMicros: number;
  /** ISO 4217 code of the account's currency. */
  currency: string;
}

export interface MetaCredentials {
  kind: 'meta';
  /** `act_<id>`. */
  account: string;
  token: string;
}
export interface GoogleCredentials {
  kind: 'google';
  /** Customer id, digits only. */
  customer: string;
  loginCustomer?: string;
  developerToken: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}
export interface TiktokCredentials {
  kind: 'tiktok';
  advertiser: string;
  token: string;
}
export type AdAccountCredentials = MetaCredentials | GoogleCredentials | TiktokCredentials;

export interface AdPlatformClient {
  /** Rows of the days in [fromDay, toDay] (inclusive). Throws AdPlatformError. */
  pullDailyAdRows(account: AdAccountCredentials, fromDay: string, toDay: string): Promise<AdRow[]>;
}

/** Where the platforms are and which API versions are pinned (shared with the webhook worker), and how to call them. */
export interface AdPlatformConfig extends AdPlatformEndpoints {
  /** Per request. */
  timeoutMs: number;
  /** Attempts after the first, for rate limits, 5xx and network errors. */
  maxRetries: number;
  /** Longest wait honoured between attempts; a platform asking for more fails the pull (the next run retries). */
  maxRetryDelayMs: number;
  /** Meta ranges of at least this many days run as an asynchronous report (the 90-day backfill). */
  metaAsyncMinDays: number;
  /** Between two looks at an asynchronous report's status. */
  metaAsyncPollMs: number;
  /** An asynchronous report not done by then fails the pull (the next run starts another). */
  metaAsyncTimeoutMs: number;
}

export const DEFAULT_AD_PLATFORM_CONFIG: AdPlatformConfig = {
  ...DEFAULT_AD_PLATFORM_ENDPOINTS,
  timeoutMs: 60_000,
  maxRetries: 4,
  maxRetryDelayMs: 60_000,
  metaAsyncMinDays: 31,
  metaAsyncPollMs: 5_000,
  metaAsyncTimeoutMs: 900_000,
};

/**
 * A failed pull with the platform's own message. `auth` marks an invalid or expired credential (the
 * connection becomes `failing` until someone fixes it); otherwise the failure is transient.
 */
export class AdPlatformError extends Error {
  constructor(
    readonly platform: AdPlatformKind,
    message: string,
    readonly auth = false,
  ) {
    super(`${platform}: ${message}`);
    this.name = 'AdPlatformError';
  }
}
