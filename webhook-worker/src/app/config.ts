/** Webhook delivery worker configuration, from environment variables only (docs/product.md, Operations). */
import { z } from 'zod';
import {
  envInt,
  envLogLevel,
  envRequired,
  envExitWithParent,
  envSecretsKey,
  envStartupTimeout,
  parseEnv,
} from '../../../runtime/env';
import { DEFAULT_BACKOFF_MS, MAX_RETRY_AFTER_MS, parseBackoffList } from '../backoff';
import { DEFAULT_AD_PLATFORM_ENDPOINTS as AD } from '../../../contracts/src/ad-platform-endpoints';

const int = envInt;
/** An absolute http(s) URL without a trailing slash (a platform's base URL). */
const baseUrl = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((text) => /^https?:\/\/[^\s/]+/.test(text) && URL.canParse(text), 'must be an absolute http(s) URL')
    .transform((text) => text.replace(/\/+$/, ''));
const version = (fallback: string) =>
  z
    .string()
    .regex(/^v[\d.]+$/, 'must look like v21.0')
    .default(fallback);
const required = envRequired;

const schema = z
  .object({
    NATS_URL: required('nats://127.0.0.1:4222'),
    DATABASE_URL: required('postgres://user:pass@127.0.0.1:5432/attribution'),
    LOG_LEVEL: envLogLevel(),
    STARTUP_TIMEOUT_MS: envStartupTimeout(),
    EXIT_WITH_PARENT: envExitWithParent(),
    /** Deliveries attempted at once by this worker. */
    WEBHOOK_CONCURRENCY: int(16, 1),
    /** Timeout of one HTTP attempt (connection, answer and the first bytes of a failure's body). */
    WEBHOOK_TIMEOUT_MS: int(10000, 100),
    /** Retry delays after attempts 1..n, comma-separated ms; n + 1 attempts in all, then the dead-letter list. */
    WEBHOOK_BACKOFF_MS: z
      .string()
      .default(DEFAULT_BACKOFF_MS.join(','))
      .transform((text, ctx) => {
        try {
          return parseBackoffList(text);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /** Relative jitter of each retry delay: a uniform factor in [1 - j, 1 + j]. */
    WEBHOOK_BACKOFF_JITTER: z.coerce.number().min(0).max(0.9).default(0.2),
    /** Longest Retry-After honoured. */
    WEBHOOK_RETRY_AFTER_MAX_MS: int(MAX_RETRY_AFTER_MS, 0),
    /** How long a destination (URL, secret, enabled) is cached. */
    WEBHOOK_DESTINATION_CACHE_MS: int(5000, 0),
    WEBHOOK_HEALTH_PORT: int(9465),
    WEBHOOK_HEALTH_HOST: z.string().default('127.0.0.1'),
    /** Time given to attempts in flight at SIGTERM before they are aborted and handed back. */
    WEBHOOK_SHUTDOWN_TIMEOUT_MS: int(15000, 1),
    WEBHOOK_DB_POOL: int(4, 1),
    WEBHOOK_USER_AGENT: z.string().min(1).default('open-attribution-webhooks/0.1'),
    /**
     * 32 random bytes, base64: the key that encrypts Klaviyo private keys at rest. Optional: without it, plain
     * webhooks work and deliveries to `klaviyo` destinations are dead-lettered, saying why.
     */
    SECRETS_KEY: envSecretsKey(),
    /** The ad platforms' base URLs and pinned API versions (shared with the spend pull; tests point them at fakes). */
    META_GRAPH_URL: baseUrl(AD.metaGraphUrl),
    META_API_VERSION: version(AD.metaApiVersion),
    GOOGLE_ADS_API_URL: baseUrl(AD.googleAdsApiUrl),
    GOOGLE_ADS_API_VERSION: version(AD.googleAdsApiVersion),
    GOOGLE_OAUTH_TOKEN_URL: baseUrl(AD.googleOauthTokenUrl),
    TIKTOK_API_URL: baseUrl(AD.tiktokApiUrl),
    /** How long a batch of purchases for one ad platform waits for more after its first. */
    AD_CONVERSIONS_LINGER_MS: int(1000, 0),
    /** Purchases per request to an ad platform at most (each platform's own limit applies too). */
    AD_CONVERSIONS_MAX_BATCH: int(500, 1),
    /** Purchases a worker holds at once (waiting for their batch or in a request): bounds its memory. */
    AD_CONVERSIONS_IN_FLIGHT: int(2000, 1),
  })
  .transform((env) => ({
    natsUrl: env.NATS_URL,
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    startupTimeoutMs: env.STARTUP_TIMEOUT_MS,
    exitWithParent: env.EXIT_WITH_PARENT,
    concurrency: env.WEBHOOK_CONCURRENCY,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    backoff: {
      scheduleMs: env.WEBHOOK_BACKOFF_MS,
      jitter: env.WEBHOOK_BACKOFF_JITTER,
      maxRetryAfterMs: env.WEBHOOK_RETRY_AFTER_MAX_MS,
    },
    destinationCacheMs: env.WEBHOOK_DESTINATION_CACHE_MS,
    healthPort: env.WEBHOOK_HEALTH_PORT,
    healthHost: env.WEBHOOK_HEALTH_HOST,
    shutdownTimeoutMs: env.WEBHOOK_SHUTDOWN_TIMEOUT_MS,
    dbPool: env.WEBHOOK_DB_POOL,
    userAgent: env.WEBHOOK_USER_AGENT,
    secretsKey: env.SECRETS_KEY,
    adPlatforms: {
      endpoints: {
        metaGraphUrl: env.META_GRAPH_URL,
        metaApiVersion: env.META_API_VERSION,
        googleAdsApiUrl: env.GOOGLE_ADS_API_URL,
        googleAdsApiVersion: env.GOOGLE_ADS_API_VERSION,
        googleOauthTokenUrl: env.GOOGLE_OAUTH_TOKEN_URL,
        tiktokApiUrl: env.TIKTOK_API_URL,
      },
      lingerMs: env.AD_CONVERSIONS_LINGER_MS,
      maxBatch: env.AD_CONVERSIONS_MAX_BATCH,
      inFlight: env.AD_CONVERSIONS_IN_FLIGHT,
    },
  }));

export type WebhookWorkerConfig = z.output<typeof schema>;

// The worker's config module plays the role of app/config.ts for its process.
const processEnv = (): Record<string, string | undefined> => process.env;

export function loadWebhookWorkerConfig(env: Record<string, string | undefined> = processEnv()): WebhookWorkerConfig {
  return parseEnv(schema, env);
}
