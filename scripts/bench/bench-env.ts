/**
 * Benchmark environment: throwaway nats-server and PostgreSQL (infra/local scripts, temp dir, free ports)
 * unless NATS_URL and DATABASE_URL are given, the API and the pipeline as child processes (so they use
 * both cores like a real deployment), and a fresh store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { limitCpu, type CpuLimit } from './cpu-limit';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { migrate } from '../../infra/migrate';
import { setupNats } from '../../infra/nats-setup';
import { createDb, type Db } from '../../storage/db';
import { createStore, type StoreCredentials, type StoreRecord } from '../../storage/store-registry';
import { startLocalServices, removeLocalServices } from '../../test/support/local-services';
import { freePort } from '../../test/support/free-port';
import {
  type ServerCpu,
  serverCpuPerEvent,
  serverCpuSeconds,
  type ThreadCpu,
  threadCpuSeconds,
  usPerEvent,
} from './server-cpu';

const ROOT = path.join(__dirname, '..', '..');
/** Partitions of the EVENTS stream the bench sets up (EVENT_PARTITIONS, default 16). */
export const PARTITIONS = Number(process.env.EVENT_PARTITIONS ?? 16);

export interface BenchEnv {
  natsUrl: string;
  databaseUrl: string;
  apiUrl: string;
  db: Db;
  store: StoreRecord;
  credentials: StoreCredentials;
  /** One scrape of every pipeline worker's metrics, joined: the readers below sum a metric over them. */
  pipelineMetrics(): Promise<string>;
  /** CPU seconds so far of the local PostgreSQL and nats-server (null where the bench was given its servers). */
  serverCpu(): ServerCpu;
  /** CPU seconds so far of the pipeline workers' main threads and of their other threads, summed (null off Linux). */
  pipelineThreads(): ThreadCpu | null;
  stopPipeline(): Promise<void>;
  startPipeline(): Promise<void>;
  close(): Promise<void>;
}

/** `BENCH_CPU_PROFILE=<dir>` writes a V8 CPU profile of each daemon there when it stops (docs/operations.md). */
const PROFILE_ARGS = process.env.BENCH_CPU_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROFILE)}`]
  : [];

/**
 * `BENCH_ALLOC_PROFILE=<dir>`: the services' allocations sampled into that directory (allocation-sampler.ts), named
 * as the caller's directory names it, like the CPU profile's (the services run in the repository's root).
 */
const ALLOC_PROFILE = process.env.BENCH_ALLOC_PROFILE
  ? {
      args: ['--import', path.join(ROOT, 'scripts/bench/allocation-sampler.ts')],
      env: { BENCH_ALLOC_PROFILE: path.resolve(process.env.BENCH_ALLOC_PROFILE) },
    }
  : { args: [], env: {} };

/**
 * `BENCH_DAEMON_FLAGS` / `BENCH_API_FLAGS`: node or V8 flags added to the daemons' and the API's command line (separated
 * by spaces), to measure a runtime setting without changing the code (docs/operations.md, Performance).
 */
const extraFlags = (name: string): string[] => (process.env[name] ?? '').split(/\s+/).filter((f) => f !== '');

/**
 * The pipeline daemon's heap flags, as `npm run pipeline` and `make run` start it (docs/operations.md, Processes), then
 * any of `BENCH_DAEMON_FLAGS`.
 */
const PIPELINE_NODE_FLAGS = [
  '--max-semi-space-size=64',
  '--min-semi-space-size=64',
  ...extraFlags('BENCH_DAEMON_FLAGS'),
];
const API_NODE_FLAGS = extraFlags('BENCH_API_FLAGS');

export function spawnService(entry: string, env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  const args = [...nodeFlags, ...PROFILE_ARGS, '--import', 'tsx', ...ALLOC_PROFILE.args, path.join(ROOT, entry)];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...ALLOC_PROFILE.env, ...env },
    stdio: ['ignore', process.env.BENCH_DAEMON_STDOUT ? 'inherit' : 'ignore', 'inherit'],
  });
  return child;
}

export async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

export const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** The `--workers` of the benches that start the pipeline: workers, each owning an equal share of the partitions. */
export interface WorkersOption {
  workers: number;
}

export interface BenchEnvOptions {
  withPipeline?: boolean;
  timezone?: string;
  /**
   * The pipeline daemon's entry point (default: the real daemon), extra environment, and how many workers run
   * it, each owning an equal share of the partitions (default 1).
   */
  pipeline?: {
    entry?: string;
    env?: Record<string, string>;
    workers?: number;
    /** A CPU quota of each daemon, as a fraction of one core (cpu-limit.ts): a slower machine than this one. */
    cpuLimit?: number;
  };
  /** Extra environment of the API. */
  apiEnv?: Record<string, string>;
}

/** `PIPELINE_PARTITIONS` of each of `workers` workers: consecutive, nearly equal ranges of the partitions. */
export function partitionShares(partitions: number, workers: number): string[] {
  if (!Number.isInteger(workers) || workers < 1 || workers > partitions)
    throw new Error(`workers must be a whole number from 1 to the ${partitions} partitions, got ${workers}`);
  return Array.from({ length: workers }, (_, i) => {
    const from = Math.floor((i * partitions) / workers);
    const to = Math.floor(((i + 1) * partitions) / workers) - 1;
    return `${from}-${to}`;
  });
}

export async function startBenchEnv(opts: BenchEnvOptions = {}): Promise<BenchEnv> {
  let dataDir: string | null = null;
  let natsUrl = process.env.NATS_URL;
  let databaseUrl = process.env.DATABASE_URL;
  if (!natsUrl || !databaseUrl) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attrib-bench-'));
    fs.chmodSync(dataDir, 0o755);
    // fsync stays on: the figures should hold for a durable setup.
    const services = await startLocalServices(dataDir, { dbName: 'attribution_bench', fsync: true });
    natsUrl = services.natsUrl;
    databaseUrl = services.databaseUrl;
  }
  await migrate(databaseUrl);
  const nc = await connect({ servers: natsUrl });
  await setupNats(nc, { partitions: PARTITIONS });
  await nc.close();

  const db = createDb({ connectionString: databaseUrl, service: 'bench', max: 4 });
  const { store, credentials } = await createStore(db, {
    name: `bench-${Date.now()}`,
    timezone: opts.timezone ?? 'UTC',
    currency: 'USD',
    lookbackDays: 30,
  });
  const common = {
    NATS_URL: natsUrl,
    DATABASE_URL: databaseUrl,
    EVENT_PARTITIONS: String(PARTITIONS),
    LOG_LEVEL: 'warn',
  };
  const port = await freePort();
  const shares = partitionShares(PARTITIONS, opts.pipeline?.workers ?? 1);
  const healthPorts: number[] = [];
  for (let i = 0; i < shares.length; i++) healthPorts.push(await freePort());
  const healthUrls = healthPorts.map((p) => `http://127.0.0.1:${p}`);
  const api = spawnService(
    'query-api/src/app/server.ts',
    {
      ...common,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...opts.apiEnv,
    },
    API_NODE_FLAGS,
  );
  let pipeline: ChildProcess[] = [];
  let cpuLimits: CpuLimit[] = [];
  const releaseCpuLimits = (): void => {
    for (const l of cpuLimits) l.release();
    cpuLimits = [];
  };
  const startPipeline = async (): Promise<void> => {
    pipeline = shares.map((share, i) =>
      spawnService(
        opts.pipeline?.entry ?? 'pipeline/src/app/main.ts',
        {
          ...common,
          ...opts.pipeline?.env,
          PIPELINE_HEALTH_PORT: String(healthPorts[i]),
          ...(shares.length > 1 ? { PIPELINE_PARTITIONS: share } : {}),
        },
        PIPELINE_NODE_FLAGS,
      ),
    );
    const cpuLimit = opts.pipeline?.cpuLimit;
    if (cpuLimit)
      cpuLimits = pipeline.map((child, i) => limitCpu([child.pid!], cpuLimit, `attrib-bench-${process.pid}-${i}`));
    await Promise.all(healthUrls.map((u) => waitReady(`${u}/readyz`)));
  };
  if (opts.withPipeline !== false) await startPipeline();
  const apiUrl = `http://127.0.0.1:${port}`;
  await waitReady(`${apiUrl}/readyz`);

  const close = async (): Promise<void> => {
    await Promise.all([stopChild(api), ...pipeline.map(stopChild)]);
    releaseCpuLimits();
    await db.close();
    if (dataDir) removeLocalServices(dataDir);
  };
  // An interrupted benchmark still stops what it started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void close().finally(() => process.exit(130)));
  }

  return {
    natsUrl,
    databaseUrl,
    apiUrl,
    db,
    store,
    credentials,
    pipelineMetrics: () => Promise.all(healthUrls.map((u) => scrapeMetrics(`${u}/metrics`))).then((t) => t.join('\n')),
    serverCpu: () => serverCpuSeconds(dataDir),
    pipelineThreads: () => {
      const readings = pipeline.map((child) => (child.pid === undefined ? null : threadCpuSeconds(child.pid)));
      if (readings.length === 0 || readings.some((r) => r === null)) return null;
      return readings.reduce<ThreadCpu>((sum, r) => ({ main: sum.main + r!.main, others: sum.others + r!.others }), {
        main: 0,
        others: 0,
      });
    },
    startPipeline,
    stopPipeline: async () => {
      await Promise.all(pipeline.map(stopChild));
      releaseCpuLimits();
      pipeline = [];
    },
    close,
  };
}

/** Runs `run` in an environment of its own (the daemon not started), closed afterwards. */
export async function inFreshEnv<T>(opts: BenchEnvOptions, run: (env: BenchEnv) => Promise<T>): Promise<T> {
  const env = await startBenchEnv({ ...opts, withPipeline: false });
  try {
    return await run(env);
  } finally {
    await env.close();
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * Messages the running pipeline daemon has committed (stored, duplicate or dead-lettered), read from its
 * `pipeline_events_consumed_total` counter: benchmarks measure through the daemon's metrics, never by
 * querying the database they measure.
 */
export async function committedMessages(env: Pick<BenchEnv, 'pipelineMetrics'>): Promise<number> {
  return committedIn(await env.pipelineMetrics());
}

/** The sum of a counter's series in one scrape, over those whose labels (`kind="order"`, ...) pass `keep`. */
function counterSum(text: string, name: string, keep: (labels: string) => boolean = () => true): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\d+(?:\\.\\d+)?)$`, 'gm')))
    if (keep(m[1]!)) total += Number(m[2]);
  return total;
}

/** The committed messages of one scrape of the daemon's metrics. */
export function committedIn(text: string): number {
  return counterSum(text, 'pipeline_events_consumed_total');
}

/** Storefront events the raw payloads' writer has committed (stored, duplicate, erased or not kept), from one scrape. */
export function rawPayloadsIn(text: string): number {
  return counterSum(text, 'pipeline_raw_payloads_total');
}

/** Resolves once `read()` reaches `count`, asking every `everyMs`. */
export async function waitUntil(read: () => Promise<number>, count: number, everyMs: number): Promise<void> {
  while ((await read()) < count) await new Promise((r) => setTimeout(r, everyMs));
}

/**
 * Resolves once the daemon has committed `count` messages, scraping its metrics every `everyMs`. A scrape costs
 * the daemon about a millisecond of CPU (a profile put 20 ms polling at 5 % of it), so not more often than 4/s.
 */
export async function waitForCommitted(
  env: Pick<BenchEnv, 'pipelineMetrics'>,
  count: number,
  everyMs = 250,
): Promise<void> {
  await waitUntil(() => committedMessages(env), count, everyMs);
}

/** Push messages of `kind` (`ad_spend`, `order`, ...) the daemon has committed, from `pipeline_push_messages_total`. */
export async function committedPushes(env: Pick<BenchEnv, 'pipelineMetrics'>, kind: string): Promise<number> {
  return counterSum(await env.pipelineMetrics(), 'pipeline_push_messages_total', (l) => l === `kind="${kind}"`);
}

/** Resolves once the daemon has committed `count` push messages of `kind` (see waitForCommitted on scraping). */
export async function waitForPushes(
  env: Pick<BenchEnv, 'pipelineMetrics'>,
  kind: string,
  count: number,
): Promise<void> {
  await waitUntil(() => committedPushes(env, kind), count, 250);
}

/** One scrape of a service's metrics (the text at its `/metrics`). */
export const scrapeMetrics = (metricsUrl: string): Promise<string> => fetch(metricsUrl).then((r) => r.text());

/** CPU seconds (user + system) a daemon has used, from the `process_cpu_seconds_total` of its metrics. */
export async function cpuSeconds(metricsUrl: string): Promise<number> {
  return cpuSecondsIn(await scrapeMetrics(metricsUrl), metricsUrl);
}

/** The CPU seconds every process on the path has used so far: the API, the pipeline and the local servers. */
export interface CpuReading {
  api: number;
  pipeline: number;
  pipelineThreads: PipelineThreadsReading;
  servers: ServerCpu;
}

/** The pipeline's main threads and other threads (null off Linux), and the seconds its collector paused the former. */
export interface PipelineThreadsReading {
  threads: ThreadCpu | null;
  gcPauses: number;
}

/** Reads the pipeline's threads; `pipelineMetrics` is a scrape the caller took just now. */
export function readPipelineThreads(env: BenchEnv, pipelineMetrics: string): PipelineThreadsReading {
  return { threads: env.pipelineThreads(), gcPauses: gcPauseSecondsIn(pipelineMetrics) };
}

/**
 * Where the pipeline's CPU went between two readings, in microseconds per event: its main threads (of which its
 * collection pauses) and its other threads: V8's collector working beside the main thread and, in a daemon's first
 * seconds, its compiler (docs/operations.md, Performance). Null where the threads were not read.
 */
export function pipelineThreadsPerEvent(before: PipelineThreadsReading, after: PipelineThreadsReading, events: number) {
  const threads = (pick: (t: ThreadCpu) => number): number | null =>
    before.threads && after.threads ? usPerEvent(pick(after.threads) - pick(before.threads), events) : null;
  return {
    pipeline_main_thread: threads((t) => t.main),
    pipeline_gc_pauses: usPerEvent(after.gcPauses - before.gcPauses, events),
    pipeline_other_threads: threads((t) => t.others),
  };
}

/** Reads every process's CPU; `pipelineMetrics`, a scrape the caller took just now, saves scraping it again. */
export async function readCpu(env: BenchEnv, pipelineMetrics?: string): Promise<CpuReading> {
  const [api, pipeline] = await Promise.all([
    cpuSeconds(`${env.apiUrl}/metrics`),
    pipelineMetrics ?? env.pipelineMetrics(),
  ]);
  return {
    api,
    pipeline: cpuSecondsIn(pipeline, 'the pipeline'),
    pipelineThreads: readPipelineThreads(env, pipeline),
    servers: env.serverCpu(),
  };
}

/** The CPU microseconds per event each process spent between two readings (null where a server is not read). */
export function cpuPerEvent(before: CpuReading, after: CpuReading, events: number) {
  return {
    api: usPerEvent(after.api - before.api, events),
    pipeline: usPerEvent(after.pipeline - before.pipeline, events),
    ...pipelineThreadsPerEvent(before.pipelineThreads, after.pipelineThreads, events),
    ...serverCpuPerEvent(before.servers, after.servers, events),
  };
}

/** The longest of the daemons' rehearsals at start (docs/decisions.md, Operations), from one scrape of their metrics. */
export function rehearsalSecondsIn(text: string): number {
  const seconds = [...text.matchAll(/^pipeline_rehearsal_seconds (\S+)$/gm)].map((m) => Number(m[1]));
  return Number(Math.max(0, ...seconds).toFixed(2));
}

/**
 * Seconds the daemons' main threads spent paused by the garbage collector, from `nodejs_gc_duration_seconds`
 * (every kind), summed over workers.
 */
export const gcPauseSecondsIn = (text: string): number => counterSum(text, 'nodejs_gc_duration_seconds_sum');

/** The CPU seconds of one scrape of a daemon's metrics, summed over workers (`from` names it in the error). */
export function cpuSecondsIn(text: string, from: string): number {
  const all = [...text.matchAll(/^process_cpu_seconds_total (\S+)$/gm)];
  if (all.length === 0) throw new Error(`${from} has no process_cpu_seconds_total`);
  return all.reduce((sum, m) => sum + Number(m[1]), 0);
}
