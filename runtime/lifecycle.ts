/**
 * Process lifecycle shared by the three daemons: configuration read once or exit 1 with every
 * problem listed; SIGTERM/SIGINT drain within a bound; a second signal exits at once.
 */
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { createDb, type Db } from '../storage/db';
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

/**
 * On SIGTERM/SIGINT/SIGHUP: drain with `stop()` and exit 0, or exit 1 past the bound; a second signal exits 130.
 * With `exitWithParent`, the same drain starts when the process that started this one is gone (this process
 * was re-parented): a killed supervisor leaves no daemon behind.
 */
export function exitOnSignals(
  logger: Logger,
  stop: () => Promise<void>,
  shutdownTimeoutMs: number,
  opts: { exitWithParent?: boolean } = {},
): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals | 'parent gone'): void => {
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
  process.on('SIGHUP', onSignal);
  if (opts.exitWithParent) {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      logger.warn({ parent }, 'the process that started this daemon is gone: draining');
      onSignal('parent gone');
    }, 500);
    watch.unref();
  }
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

export interface StartupRetry {
  logger: Logger;
  /** Give up (and let the process exit with the reason) after this long; a deployment's services may start in any order. */
  timeoutMs: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return `${err.name}${typeof code === 'string' ? ` ${code}` : ''}: ${err.message}`;
}

/**
 * Runs a start-up step until it succeeds: a broker that is still electing its leaders or a database that is
 * restarting is waited for, with capped exponential backoff, saying each time what is awaited and why. Past
 * the bound it throws with the last reason as the cause.
 */
export async function retryStartup<T>(what: string, step: () => Promise<T>, o: StartupRetry): Promise<T> {
  const started = Date.now();
  const base = o.baseDelayMs ?? 250;
  const max = o.maxDelayMs ?? 5000;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await step();
      if (attempt > 1) o.logger.info({ attempt, waitedMs: Date.now() - started }, `${what}: ready`);
      return value;
    } catch (err) {
      const waited = Date.now() - started;
      if (waited >= o.timeoutMs) {
        throw new Error(`${what}: still failing after ${Math.round(waited / 1000)} s (${describe(err)})`, {
          cause: err,
        });
      }
      const delay = Math.min(max, base * 2 ** Math.min(attempt - 1, 16), Math.max(0, o.timeoutMs - waited));
      o.logger.warn({ attempt, retryInMs: delay, reason: describe(err) }, `waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Where the dependencies are, as every daemon's configuration says. */
export interface ConnectionConfig {
  databaseUrl: string;
  natsUrl: string;
  dbPool: number;
  statementTimeoutMs?: number;
  /** Statements prepared once per connection (storage/db.ts); the pipeline's, whose statements repeat per batch. */
  preparedStatements?: boolean;
  /** Bound on waiting for NATS and PostgreSQL at start-up (STARTUP_TIMEOUT_MS). */
  startupTimeoutMs: number;
}

/** The process's query-time histogram (labels tag and ok). */
export interface QueryTimer {
  observe(labels: { tag: string; ok: string }, seconds: number): void;
}

export interface Dependencies {
  db: Db;
  nc: NatsConnection;
  /** JetStream management, answered by the server at least once. */
  jsm: JetStreamManager;
}

/**
 * The database pool (instrumented, idle errors logged, answering) and the NATS connection (reconnecting forever
 * once made) with JetStream available. Each is waited for at start-up within `startupTimeoutMs`.
 */
export async function connectDependencies(
  service: string,
  config: ConnectionConfig,
  logger: Logger,
  dbQuery: QueryTimer,
): Promise<Dependencies> {
  const o = { service, ...config, logger, dbQuery };
  const retry: StartupRetry = { logger: o.logger, timeoutMs: o.startupTimeoutMs };
  const db = createDb({
    connectionString: o.databaseUrl,
    service: o.service,
    max: o.dbPool,
    statementTimeoutMs: o.statementTimeoutMs,
    preparedStatements: o.preparedStatements,
    onError: (err) => o.logger.warn({ err }, 'idle PostgreSQL client error'),
    onQuery: (tag, seconds, ok) => o.dbQuery.observe({ tag, ok: String(ok) }, seconds),
  });
  try {
    await retryStartup('PostgreSQL', () => db.query('startup', 'select 1'), retry);
    const nc = await retryStartup(
      'NATS',
      () =>
        connect({
          servers: o.natsUrl.split(','),
          name: o.service,
          maxReconnectAttempts: -1,
          timeout: 5000,
          // Without it every request (a JetStream API call, the daemon publishing a webhook) builds an Error up
          // front, with its stack, in case it times out. A timeout still says what timed out; only the
          // caller's frames are missing from its stack. The ingest path publishes without requests at all
          // (query-api/src/adapters/event-publisher.ts).
          noAsyncTraces: true,
        }),
      retry,
    );
    try {
      const jsm = await retryStartup('JetStream', () => jetstreamManager(nc, { timeout: 5000 }), retry);
      return { db, nc, jsm };
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
