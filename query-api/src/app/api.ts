/** Builds the API's context and HTTP server; used by server.ts and by tests that run it in-process. */
import { shutdown } from '../../../runtime/shutdown';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectDependencies, dependencyChecks } from '../../../runtime/lifecycle';
import type { Logger } from '../../../runtime/logger';
import type { Db } from '../../../storage/db';
import { createEventPublisher } from '../adapters/event-publisher';
import { pipelineRequester } from '../adapters/pipeline-requests';
import { createApp } from './app';
import type { ApiConfig } from './config';
import type { AppContext } from './context';
import { createApiMetrics } from './metrics';
import { CredentialCache } from './credential-cache';
import { listenToChannel } from '../../../storage/channel-listener';
import { CREDENTIAL_CHANGES_CHANNEL } from '../../../storage/store-registry';
import { RateLimiter } from './rate-limiter';
import { createRequestTiming } from './request-timing';

export interface RunningApi {
  ctx: AppContext;
  server: http.Server;
  nc: NatsConnection;
  url: string;
  stop(): Promise<void>;
}

export async function startApi(config: ApiConfig, logger: Logger): Promise<RunningApi> {
  const metrics = createApiMetrics();
  const requestTiming = config.serverTiming ? createRequestTiming() : undefined;
  const { db, nc } = await connectDependencies('query-api', config, logger, {
    observe: (labels, seconds) => {
      metrics.dbQuery.observe(labels, seconds);
      requestTiming?.noteQuery(seconds);
    },
  });
  const lifecycle = shutdown(logger);
  const credentialCache = new CredentialCache({
    freshMs: config.credentialCacheMs,
    staleMs: config.credentialStaleMs,
    onHit: () => metrics.credentialCacheHits.inc(),
  });
  const ctx: AppContext = {
    config,
    db,
    publisher: createEventPublisher(nc),
    askPipeline: pipelineRequester(nc),
    logger,
    metrics,
    rateLimiter: new RateLimiter(),
    credentialCache,
    requestTiming,
    now: Date.now,
    isDraining: lifecycle.isDraining,
    readiness: dependencyChecks({ isDraining: lifecycle.isDraining, nc, db }),
  };
  const app = createApp(ctx);
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  // The cache serves a verification only while this connection hears every change (docs/decisions.md,
  // Credentials and tenancy). Started once the server listens, so that a failed start leaves nothing running.
  let listening = false;
  const credentialChanges =
    config.credentialCacheMs > 0 && (await changesAnnounced(db, logger))
      ? listenToChannel({
          connectionString: config.databaseUrl,
          applicationName: 'query-api-credential-changes',
          channel: CREDENTIAL_CHANGES_CHANNEL,
          retryMs: config.credentialListenRetryMs,
          onNotify: () => {
            credentialCache.forgetAll();
            metrics.credentialChangesHeard.inc();
          },
          onListening: (now) => {
            credentialCache.trust(now);
            metrics.credentialChangesListening.set(now ? 1 : 0);
            if (now !== listening) {
              if (now) logger.info('credential changes: listening; verified credentials are kept');
              else logger.warn('credential changes: not listening; every request asks the database until it is back');
            }
            listening = now;
          },
          onError: (err) => logger.debug({ err }, 'credential changes: connection failed'),
        })
      : null;
  const addr = server.address() as AddressInfo;
  const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;

  const stop = lifecycle.stopWith({
    drain: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.race([closed, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      server.closeAllConnections();
    },
    nc,
    beforeDb: async () => credentialChanges?.close(),
    db,
  });

  return { ctx, server, nc, url: `http://${host}:${addr.port}`, stop };
}

/**
 * Whether the database announces credential changes (migration 0016): an API started on a database not yet
 * migrated would otherwise listen to a silent channel and keep revoked keys.
 */
async function changesAnnounced(db: Db, logger: Logger): Promise<boolean> {
  const [row] = await db
    .query<{ ok: boolean }>(
      'credential.announcements_check',
      "select exists (select 1 from pg_trigger where tgname = 'credentials_announce_change') as ok",
    )
    .catch(() => [{ ok: false }]);
  if (!row?.ok)
    logger.warn('credential changes are not announced (migrations pending?): every request looks its credential up');
  return row?.ok === true;
}
