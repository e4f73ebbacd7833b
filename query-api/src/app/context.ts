/** Everything a controller may need, built once by the composition root (server.ts) or a test. */
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import type { CredentialKind } from '../../../storage/credentials';
import type { StoreRecord } from '../../../storage/store-registry';
import type { EventPublisher } from '../adapters/event-publisher';
import type { AskPipeline } from '../adapters/pipeline-requests';
import type { ApiConfig } from './config';
import type { ApiMetrics } from './metrics';
import type { CredentialCache } from './credential-cache';
import type { RateLimiter } from './rate-limiter';
import type { RequestTiming } from './request-timing';

export interface AppContext {
  config: ApiConfig;
  db: Db;
  publisher: EventPublisher;
  /** Hands a recorded privacy request to the pipeline and waits for it (docs/operations.md, Privacy). */
  askPipeline: AskPipeline;
  logger: Logger;
  metrics: ApiMetrics;
  rateLimiter: RateLimiter;
  /** Verified credentials, kept while their changes are heard (see CredentialCache). */
  credentialCache: CredentialCache;
  /** Set when answers carry a Server-Timing header (`API_SERVER_TIMING`). */
  requestTiming?: RequestTiming;
  now: () => number;
  /** Readiness checks for /readyz. */
  readiness: Record<string, () => Promise<{ ok: boolean; detail?: string }>>;
  isDraining: () => boolean;
}

/** The authenticated caller, set on the request by authentication.ts. */
export interface Principal {
  store: StoreRecord;
  /** Hex prefix of the credential digest, to key rate limits without keeping the secret. */
  keyId: string;
  /** The kind of credential the caller presented (an API key or a read-only dashboard key, say). */
  kind: CredentialKind;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by tsoa from expressAuthentication's result. */
    user?: unknown;
  }
}
