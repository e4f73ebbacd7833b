/** Builds the API's context and HTTP server; used by server.ts and by tests that run it in-process. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectDependencies, dependencyChecks } from '../../../runtime/lifecycle';
import type { Logger } from '../../../runtime/logger';
import { createEventPublisher } from '../adapters/event-publisher';
import { createApp } from './app';
import type { ApiConfig } from './config';
import type { AppContext } from './context';
import { createApiMetrics } from './metrics';
import { CredentialCache } from './credential-cache';
import { RateLimiter } from './rate-limiter';

export interface RunningApi {
  ctx: AppContext;
  server: http.Server;
  nc: NatsConnection;
  url: string;
  stop(): Promise<void>;
}

export async function startApi(config: ApiConfig, logger: Logger): Promise<RunningApi> {
  const metrics = createApiMetrics();
  const { db, nc } = await connectDependencies('query-api', config, logger, metrics.dbQuery);
  let draining = false;
  const ctx: AppContext = {
    config,
    db,
    publisher: createEventPublisher(nc),
    logger,
    metrics,
    rateLimiter: new RateLimiter(),
    credentialCache: new CredentialCache({ freshMs: config.credentialCacheMs, staleMs: config.credentialStaleMs }),
    now: Date.now,
    isDraining: () => draining,
    readiness: dependencyChecks({ isDraining: () => draining, nc, db }),
  };
  const app = createApp(ctx);
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.race([closed, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      server.closeAllConnections();
      await nc.drain().catch(() => undefined);
      await db.close().catch(() => undefined);
    })();
    return stopping;
  };

  return { ctx, server, nc, url: `http://${host}:${addr.port}`, stop };
}
