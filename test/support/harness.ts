/**
 * Integration-test harness: stores, the API and the pipeline started in-process against the real
 * nats-server and PostgreSQL of globalSetup, and polling helpers.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import { createStore, type StoreCredentials, type StoreRecord } from '../../storage/store-registry';
import { loadApiConfig } from '../../query-api/src/app/config';
import { startApi, type RunningApi } from '../../query-api/src/app/api';
import { loadPipelineConfig } from '../../pipeline/src/app/config';
import { startPipeline, type PipelineDeps, type RunningPipeline } from '../../pipeline/src/app/daemon';
import { standardMaintainer } from '../../pipeline/src/app/standard-maintainer';
import { TEST_PARTITIONS, testEnv } from './env';

export function testDb(service = 'test'): Db {
  return createDb({ connectionString: testEnv.databaseUrl, service, max: 4 });
}

export interface TestStore {
  store: StoreRecord;
  credentials: StoreCredentials;
}

let storeCounter = 0;
export async function createTestStore(
  db: Db,
  opts: { timezone?: string; currency?: string; lookbackDays?: number; halfLifeDays?: number; name?: string } = {},
): Promise<TestStore> {
  storeCounter++;
  return createStore(db, {
    name: opts.name ?? `test-store-${storeCounter}`,
    timezone: opts.timezone ?? 'UTC',
    currency: opts.currency ?? 'USD',
    lookbackDays: opts.lookbackDays ?? 30,
    halfLifeDays: opts.halfLifeDays,
  });
}

export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NATS_URL: testEnv.natsUrl,
    DATABASE_URL: testEnv.databaseUrl,
    EVENT_PARTITIONS: String(TEST_PARTITIONS),
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

export async function startTestApi(extra: Record<string, string> = {}): Promise<RunningApi> {
  const config = loadApiConfig(baseEnv({ PORT: '0', HOST: '127.0.0.1', SHORT_LINK_HOST: 'go.test', ...extra }));
  return startApi(config, silentLogger());
}

/**
 * Test daemons rehearse a short history (one batch, a fraction of a second) instead of the default's thousands:
 * every test daemon still runs it before its messages, and `rehearsal.int.test.ts` runs the default.
 */
export const TEST_REHEARSAL = { PIPELINE_REHEARSAL_MESSAGES: '300' } as const;

export async function startTestPipeline(
  extra: Record<string, string> = {},
  deps: Partial<PipelineDeps> = {},
): Promise<RunningPipeline> {
  const config = loadPipelineConfig(baseEnv({ PIPELINE_FLUSH_MS: '20', ...TEST_REHEARSAL, ...extra }));
  return startPipeline(config, silentLogger(), {
    withoutHealthServer: true,
    withoutJobs: true,
    maintainViews: standardMaintainer(silentLogger()),
    ...deps,
  });
}

/** Runs `fn` with the URL of a new, empty database of the test server (`prefix_<random>`), dropped afterwards. */
export async function withFreshDatabase<T>(prefix: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testEnv.databaseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(testEnv.databaseUrl);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Polls until `fn` returns a value accepted by `until`, or throws after the timeout with the last value. */
export async function waitFor<T>(
  fn: () => Promise<T>,
  until: (v: T) => boolean,
  timeoutMs = 10_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!until(last)) {
    if (Date.now() > deadline) throw new Error(`waitFor timed out; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
    last = await fn();
  }
  return last;
}

/**
 * Waits until some connection waits on the locks of connection `backend` (a PostgreSQL backend pid), or
 * `settled()` says that the work which would have waited ended first.
 */
export async function waitBlockedBy(db: Db, backend: number, settled: () => boolean = () => false): Promise<void> {
  await waitFor(
    async () =>
      settled() ||
      (
        await db.query<{ n: number }>(
          'test.blocked',
          'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
          [backend],
        )
      )[0]!.n > 0,
    (blocked) => blocked,
    30_000,
  );
}

/**
 * Report routes allow 5 requests per second per key and operation. A pacer runs each call at least 210 ms after
 * the previous one it ran under the same name (a route, or a key and a route).
 */
export function pacer(): <T>(name: string, call: () => Promise<T>) => Promise<T> {
  const lastCall = new Map<string, number>();
  return async (name, call) => {
    const wait = (lastCall.get(name) ?? 0) + 210 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastCall.set(name, Date.now());
    return call();
  };
}

/** A counter or gauge of the API's own metrics, as a number. */
async function apiMetricValue(api: RunningApi, name: string): Promise<number> {
  const metric = api.ctx.metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values[0]?.value ?? 0;
}

/** 1 while the API hears the database announce credential changes, else 0 (its own gauge). */
export function credentialChangesListening(api: RunningApi): Promise<number> {
  return apiMetricValue(api, 'api_credential_changes_listening');
}

/**
 * Runs `change` (a revocation, a rotation, a settings change) and waits until the API has heard the database
 * announce it: from then on the API no longer serves what it had verified before (docs/decisions.md,
 * Credentials and tenancy). Waits first for the API to listen, since a change it is not listening for is
 * never announced to it.
 */
export async function changeHeardByApi<T>(api: RunningApi, change: () => Promise<T>): Promise<T> {
  await waitFor(
    () => credentialChangesListening(api),
    (v) => v === 1,
  );
  const before = await apiMetricValue(api, 'api_credential_changes_heard_total');
  const result = await change();
  await waitFor(
    () => apiMetricValue(api, 'api_credential_changes_heard_total'),
    (n) => n > before,
  );
  return result;
}
