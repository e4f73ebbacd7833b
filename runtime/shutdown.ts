/**
 * A daemon's stop, written once like its start (`daemon.ts`): idempotent (every call returns the same drain),
 * draining from its first call (readiness answers 503 from then on), the daemon's own work drained first, then
 * the connections closed in one order: NATS drained (its pending publishes flushed), then PostgreSQL, then the
 * health server, so that /healthz answers until the last dependency is gone.
 */
import type { Server } from 'node:http';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Db } from '../storage/db';
import type { Logger } from './logger';

export interface StopParts {
  /** Stops the daemon's own work (pulling, serving, jobs) and waits for what it has in hand. */
  drain: () => Promise<void>;
  nc: NatsConnection;
  db: Db;
  /** Closed between NATS and PostgreSQL (e.g. a LISTEN connection). */
  beforeDb?: () => Promise<void>;
  healthServer?: Server | null;
}

export interface Shutdown {
  isDraining: () => boolean;
  /** The daemon's `stop()` over its parts; known only once they are all made, so given last. */
  stopWith: (parts: StopParts) => () => Promise<void>;
}

export function shutdown(logger: Logger): Shutdown {
  let draining = false;
  let stopping: Promise<void> | null = null;
  return {
    isDraining: () => draining,
    stopWith: (parts) => () => {
      stopping ??= (async () => {
        draining = true;
        await parts.drain();
        await parts.nc.drain().catch(() => undefined);
        await parts.beforeDb?.();
        await parts.db.close().catch(() => undefined);
        const server = parts.healthServer;
        if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}
