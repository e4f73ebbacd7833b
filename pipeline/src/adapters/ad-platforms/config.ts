/**
 * The ad platforms' configuration from the environment (docs/operations.md): base URLs (tests point them at a
 * local server), pinned API versions, timeouts and retries, and the spend pull's windows.
 */
import { DEFAULT_AD_PLATFORM_CONFIG, type AdPlatformConfig } from './types';

export interface SpendPullConfig {
  platforms: AdPlatformConfig;
  /** Trailing days pulled again on every run, since platforms restate recent figures. */
  windowDays: number;
  /** Days pulled on a connection's first pull. */
  backfillDays: number;
  /** Rows a second the pulled days are published at, at most. */
  publishRowsPerSecond: number;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    new URL(raw);
  } catch {
    throw new Error(`${name} is not a URL: "${raw}"`);
  }
  return raw.replace(/\/$/, '');
}

export function spendPullConfigFromEnv(env: NodeJS.ProcessEnv): SpendPullConfig {
  const d = DEFAULT_AD_PLATFORM_CONFIG;
  return {
    platforms: {
      metaGraphUrl: url(env, 'META_GRAPH_URL', d.metaGraphUrl),
      metaApiVersion: env.META_API_VERSION?.trim() || d.metaApiVersion,
      googleAdsApiUrl: url(env, 'GOOGLE_ADS_API_URL', d.googleAdsApiUrl),
      googleAdsApiVersion: env.GOOGLE_ADS_API_VERSION?.trim() || d.googleAdsApiVersion,
      googleOauthTokenUrl: url(env, 'GOOGLE_OAUTH_TOKEN_URL', d.googleOauthTokenUrl),
      tiktokApiUrl: url(env, 'TIKTOK_API_URL', d.tiktokApiUrl),
      timeoutMs: positive(env, 'AD_PLATFORM_TIMEOUT_MS', d.timeoutMs),
      maxRetries: positive(env, 'AD_PLATFORM_MAX_RETRIES', d.maxRetries),
      maxRetryDelayMs: positive(env, 'AD_PLATFORM_MAX_RETRY_DELAY_MS', d.maxRetryDelayMs),
      metaAsyncMinDays: positive(env, 'META_ASYNC_MIN_DAYS', d.metaAsyncMinDays),
      metaAsyncPollMs: positive(env, 'META_ASYNC_POLL_MS', d.metaAsyncPollMs),
      metaAsyncTimeoutMs: positive(env, 'META_ASYNC_TIMEOUT_MS', d.metaAsyncTimeoutMs),
    },
    windowDays: positive(env, 'SPEND_PULL_WINDOW_DAYS', 7),
    backfillDays: positive(env, 'SPEND_BACKFILL_DAYS', 90),
    publishRowsPerSecond: positive(env, 'SPEND_PUBLISH_ROWS_PER_S', 5_000),
  };
}
