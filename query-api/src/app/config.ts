/** Query API configuration, from environment variables only (docs/product.md, Operations). */
import { z } from 'zod';
import { DEFAULT_PARTITIONS } from '../../../contracts/src/subjects';
import {
  envInt,
  envLogLevel,
  envRequired,
  envExitWithParent,
  envSecretsKey,
  envStartupTimeout,
  parseEnv,
} from '../../../runtime/env';

const int = envInt;

const schema = z
  .object({
    NATS_URL: envRequired('nats://127.0.0.1:4222'),
    DATABASE_URL: envRequired('postgres://user:pass@127.0.0.1:5432/attribution'),
    PORT: int(8080),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: envLogLevel(),
    STARTUP_TIMEOUT_MS: envStartupTimeout(),
    EXIT_WITH_PARENT: envExitWithParent(),
    SHORT_LINK_HOST: z.string().min(1).default('localhost:8080'),
    EVENT_PARTITIONS: int(DEFAULT_PARTITIONS, 1),
    API_BODY_LIMIT_BYTES: int(1024 * 1024, 1024),
    API_MAX_BATCH: int(500, 1),
    API_DB_POOL: int(10, 1),
    API_STATEMENT_TIMEOUT_MS: int(5000, 100),
    API_TRUST_PROXY: z.enum(['true', 'false']).default('false'),
    API_SERVER_TIMING: z.enum(['true', 'false']).default('false'),
    API_SHUTDOWN_TIMEOUT_MS: int(10000, 1),
    API_CREDENTIAL_CACHE_MS: int(60_000),
    API_CREDENTIAL_STALE_MS: int(600_000),
    API_CREDENTIAL_LISTEN_RETRY_MS: int(1000, 1),
    MCP_ALLOWED_ORIGINS: z.string().default(''),
    API_COLLECT_KEY_RATE: int(1000, 1),
    API_COLLECT_IP_RATE: int(100, 1),
    /**
     * A store's events per second to the live partitions, and the burst above it, before its requests go to the
     * overflow partitions (docs/decisions.md, Ingestion); 0 keeps every store live.
     */
    API_LIVE_EVENTS_PER_STORE: int(1000, 0),
    API_LIVE_BURST_PER_STORE: int(2_000, 1),
    /** Events per second a store is accepted at while other stores send; 0: not held. */
    API_PACED_EVENTS_PER_STORE: int(1000, 0),
    /** Store webhooks (/hooks/...): requests per second per connection, and per client IP before the lookup. */
    API_HOOK_CONNECTION_RATE: int(200, 1),
    API_HOOK_IP_RATE: int(1000, 1),
    /** How long a verified connection (its opened secret) is kept; a removal takes effect within it. */
    API_HOOK_CONNECTION_CACHE_MS: int(5000),
    /** How long an erasure request waits for the pipeline to run it before it answers `pending` (docs/operations.md, Privacy). */
    API_PRIVACY_WAIT_MS: int(20_000, 0),
    /** 32 random bytes, base64: opens the sealed secrets of store connections (the CLI seals with the same key). */
    SECRETS_KEY: envSecretsKey(),
  })
  .transform((env) => ({
    natsUrl: env.NATS_URL,
    databaseUrl: env.DATABASE_URL,
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    startupTimeoutMs: env.STARTUP_TIMEOUT_MS,
    exitWithParent: env.EXIT_WITH_PARENT,
    shortLinkHost: env.SHORT_LINK_HOST,
    eventPartitions: env.EVENT_PARTITIONS,
    bodyLimitBytes: env.API_BODY_LIMIT_BYTES,
    maxBatch: env.API_MAX_BATCH,
    dbPool: env.API_DB_POOL,
    statementTimeoutMs: env.API_STATEMENT_TIMEOUT_MS,
    trustProxy: env.API_TRUST_PROXY === 'true',
    /** Answers carry a Server-Timing header (docs/operations.md, Metrics). */
    serverTiming: env.API_SERVER_TIMING === 'true',
    shutdownTimeoutMs: env.API_SHUTDOWN_TIMEOUT_MS,
    credentialCacheMs: env.API_CREDENTIAL_CACHE_MS,
    credentialStaleMs: env.API_CREDENTIAL_STALE_MS,
    credentialListenRetryMs: env.API_CREDENTIAL_LISTEN_RETRY_MS,
    /** Browser origins allowed to call /mcp besides the API's own (comma-separated). */
    mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS.split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    /** Requests per second on /collect per ingest key, and per client IP (see docs/decisions.md, Ingestion). */
    collectKeyRate: env.API_COLLECT_KEY_RATE,
    collectIpRate: env.API_COLLECT_IP_RATE,
    /** A store's live rate and burst (docs/decisions.md, Ingestion, "A store over its live rate overflows"). */
    liveEventsPerStore: env.API_LIVE_EVENTS_PER_STORE,
    liveBurstPerStore: env.API_LIVE_BURST_PER_STORE,
    pacedEventsPerStore: env.API_PACED_EVENTS_PER_STORE,
    /** Store webhooks (docs/product.md, Store connections). */
    hookConnectionRate: env.API_HOOK_CONNECTION_RATE,
    hookIpRate: env.API_HOOK_IP_RATE,
    hookConnectionCacheMs: env.API_HOOK_CONNECTION_CACHE_MS,
    privacyWaitMs: env.API_PRIVACY_WAIT_MS,
    secretsKey: env.SECRETS_KEY,
  }));

export type ApiConfig = z.output<typeof schema>;

export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  return parseEnv(schema, env);
}
