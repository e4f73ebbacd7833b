/**
 * Process lifecycle shared by the three daemons (STYLE 44): configuration read once or exit 1 with every
 * problem listed; SIGTERM/SIGINT drain within a bound; a second signal exits at once.
 */
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { createDb, type Db } from './db';
import { ConfigError } from './env';
import type { Logger } from './logger';

/** Loads the configuration, or prints every problem and exits 1. */
export function loadConfigOrExit<C>(service: string, load: () => C): C {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${service}: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** On SIGTERM/SIGINT: drain with `stop()` and exit 0, or exit 1 past the bound; a second signal exits 130. */
export function exitOnSignals(logger: Logger, stop: () => Promise<void>, shutdownTimeoutMs: number): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, shutdownTimeoutMs + 5000).unref();
    void stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

export type ReadinessCheck = () => Promise<{ ok: boolean; detail?: string }>;

/** The readiness checks every daemon has: not draining, NATS connected, PostgreSQL answering. */
export function dependencyChecks(deps: {
  isDraining: () => boolean;
  nc: NatsConnection;
  db: Db;
}): Record<string, ReadinessCheck> {
  return {
    draining: () => Promise.resolve({ ok: !deps.isDraining(), detail: deps.isDraining() ? 'draining' : undefined }),
    nats: () => Promise.resolve({ ok: !deps.nc.isClosed() && deps.nc.info !== undefined }),
    postgres: async () => {
      await deps.db.query('health', 'select 1');
      return { ok: true };
    },
  };
}

export interface DependencyOptions {
  service: string;
  databaseUrl: string;
  natsUrl: string;
  dbPool: number;
  statementTimeoutMs?: number;
  logger: Logger;
  /** The process's query-time histogram (labels tag and ok). */
  dbQuery: { observe(labels: { tag: string; ok: string }, seconds: number): void };
}

/** The database pool (instrumented, idle errors logged) and the NATS connection (reconnecting forever). */
export async function connectDependencies(o: DependencyOptions): Promise<{ db: Db; nc: NatsConnection }> {
  const db = createDb({
    connectionString: o.databaseUrl,
    service: o.service,
    max: o.dbPool,
    statementTimeoutMs: o.statementTimeoutMs,
    onError: (err) => o.logger.warn({ err }, 'idle PostgreSQL client error'),
    onQuery: (tag, seconds, ok) => o.dbQuery.observe({ tag, ok: String(ok) }, seconds),
  });
  const nc = await connect({ servers: o.natsUrl.split(','), name: o.service, maxReconnectAttempts: -1 });
  return { db, nc };
}
