/**
 * `npm run bench -- pipeline`: the whole pipeline on the demo stream.
 * 1. Throughput: the demo stream is accepted into JetStream first (through the API), then the daemon is
 *    started and timed until every event is committed to the views: events/s from stream to views.
 * 2. Visibility: with the daemon running, demo events are pushed at a steady rate and the time from API
 *    acceptance to commit in the views is read from the daemon's pipeline_visibility_seconds histogram.
 * 3. Rebuild: replay --rebuild of the store's stream. The reconciliation then checks the views, live and
 *    rebuilt, against a recomputation from the stored facts (the drift must be zero).
 */
import { connect } from '@nats-io/transport-node';
import { silentLogger } from '../../runtime/logger';
import { replayStore } from '../../pipeline/src/operations/replay';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { planDemo } from '../demo/generate';
import { type DemoSource, pushDemo } from '../demo/push';
import { postBytes } from '../post-bytes';
import { createStore } from '../../storage/store-registry';
import {
  type BenchEnv,
  committedIn,
  cpuSecondsIn,
  pipelineThreadsPerEvent,
  rawPayloadsIn,
  readPipelineThreads,
  startBenchEnv,
  waitForCommitted,
  waitUntil,
  type WorkersOption,
} from './bench-env';
import { type ServerCpu, serverCpuPerEvent, usPerEvent } from './server-cpu';

export interface PipelineBenchOptions extends WorkersOption {
  events: number;
  rate: number;
  liveSeconds: number;
  /** Demo events of another store loaded first, as a database and stream of several stores hold. */
  besideEvents?: number;
  /** Each daemon limited to this fraction of one core (a slower machine; cpu-limit.ts). */
  daemonCpu?: number;
  /** The measured store's raw payloads: kept (the default) or none stored (`retention --days none`). */
  rawPayloads?: 'kept' | 'none';
}

/** Quantile from a Prometheus histogram's cumulative buckets (linear within a bucket). */
export function histogramQuantile(text: string, name: string, q: number): number | null {
  const buckets: Array<{ le: number; count: number }> = [];
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`).exec(line);
    if (m) buckets.push({ le: m[1] === '+Inf' ? Infinity : Number(m[1]), count: Number(m[2]) });
  }
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return null;
  const rank = q * total;
  let prev = { le: 0, count: 0 };
  for (const b of buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return prev.le;
      return prev.le + ((b.le - prev.le) * (rank - prev.count)) / Math.max(1, b.count - prev.count);
    }
    prev = b;
  }
  return prev.le;
}

/** What the throughput phase measured, from the daemon's metrics. */
export interface ThroughputPhase {
  events: number;
  events_per_s: number;
  seconds: number;
  pipeline_cpu_us_per_event: number;
  /** The pipeline's CPU per event by thread (bench-env.ts, pipelineThreadsPerEvent). */
  pipeline_threads_us_per_event: ReturnType<typeof pipelineThreadsPerEvent>;
  /** The local servers' CPU per event over the phase (null for servers the bench was given). */
  server_cpu_us_per_event: ServerCpu;
  batch_time_by_step: ReturnType<typeof batchTimeBySteps>;
  db_seconds_by_statement: Record<string, number>;
  persons_recomputed: Record<string, number>;
  batches: ReturnType<typeof batchesBetween>;
  /**
   * The batches after the first fifth of the phase's events: a cold daemon's first batches (compilation, the
   * statements' first plans) take seconds on a slow machine, and over a few dozen batches they are the p95.
   */
  batches_warm: ReturnType<typeof batchesBetween>;
  /** When the raw payloads' writer, which follows the views, had committed the phase's events too. */
  raw_payloads_seconds: number;
  raw_payloads_events_per_s: number;
}

/**
 * Pushes `source` into the stream with the daemon stopped, then starts it and times it until it has committed
 * `events` messages: from the daemon's readiness (process start-up excluded), counting what it committed
 * since, as its own metrics say.
 */
export async function throughputPhase(env: BenchEnv, source: DemoSource, events: number): Promise<ThroughputPhase> {
  const t0 = Date.now();
  await pushDemo({ apiUrl: env.apiUrl, ingestKey: env.credentials.ingest_key, stream: source, concurrency: 4 });
  console.error(
    `bench: ${events} events accepted into the stream in ${((Date.now() - t0) / 1000).toFixed(1)} s; starting the pipeline`,
  );
  await env.startPipeline();
  // One scrape at each end of the phase and one after its first fifth (a scrape costs the daemon CPU too).
  const started = Date.now();
  const before = await env.pipelineMetrics();
  const serversBefore = env.serverCpu();
  const threadsBefore = readPipelineThreads(env, before);
  const atStart = committedIn(before);
  const rawAtStart = rawPayloadsIn(before);
  await waitForCommitted(env, atStart + Math.ceil((events - atStart) / 5));
  const warm = await env.pipelineMetrics();
  await waitForCommitted(env, events);
  const seconds = (Date.now() - started) / 1000;
  const serversAfter = env.serverCpu();
  const after = await env.pipelineMetrics();
  const threadsAfter = readPipelineThreads(env, after);
  await waitUntil(async () => rawPayloadsIn(await env.pipelineMetrics()), events, 250);
  const rawSeconds = (Date.now() - started) / 1000;
  const cpu = cpuSecondsIn(after, 'the pipeline') - cpuSecondsIn(before, 'the pipeline');
  const phase = {
    events: events - atStart,
    events_per_s: Math.round((events - atStart) / seconds),
    seconds: Number(seconds.toFixed(2)),
    pipeline_cpu_us_per_event: usPerEvent(cpu, events - atStart),
    pipeline_threads_us_per_event: pipelineThreadsPerEvent(threadsBefore, threadsAfter, events - atStart),
    server_cpu_us_per_event: serverCpuPerEvent(serversBefore, serversAfter, events - atStart),
    batch_time_by_step: batchTimeBySteps(before, after),
    db_seconds_by_statement: dbTimeByTag(before, after, 12),
    persons_recomputed: personsRecomputed(before, after),
    batches: batchesBetween(before, after),
    batches_warm: batchesBetween(warm, after),
    raw_payloads_seconds: Number(rawSeconds.toFixed(2)),
    raw_payloads_events_per_s: Math.round((events - rawAtStart) / rawSeconds),
  };
  console.error(
    `bench: pipeline committed them in ${phase.seconds} s (${phase.events_per_s} events/s); ` +
      `their raw payloads in ${phase.raw_payloads_seconds} s`,
  );
  return phase;
}

/**
 * Another store's demo events, through the API and the pipeline, before the measured store's: its stream and
 * tables then hold what a deployment of several stores holds. The statistics are taken once it is in, as
 * autovacuum would have long since in such a deployment, so they know that store and not the measured one (what
 * a new or rebuilt store meets; docs/decisions.md, Operations, "A store the statistics do not cover yet").
 */
async function loadStoreBeside(env: BenchEnv, events: number): Promise<void> {
  const t0 = Date.now();
  const { credentials } = await createStore(env.db, {
    name: `beside-${Date.now()}`,
    timezone: 'UTC',
    currency: 'USD',
    lookbackDays: 30,
  });
  const demo = planDemo({ events, seed: 41, start: new Date(Date.now() - 60 * 86_400_000), days: 30 });
  await env.startPipeline();
  await pushDemo({ apiUrl: env.apiUrl, ingestKey: credentials.ingest_key, stream: demo, concurrency: 4 });
  await waitForCommitted(env, demo.summary.events);
  await env.stopPipeline();
  await env.db.query('bench.analyze', 'analyze');
  console.error(
    `bench: another store of ${demo.summary.events} events loaded in ${Math.round((Date.now() - t0) / 1000)} s`,
  );
}

export async function benchPipeline(opts: PipelineBenchOptions): Promise<void> {
  const env = await startBenchEnv({
    withPipeline: false,
    pipeline: { workers: opts.workers, cpuLimit: opts.daemonCpu },
  });
  try {
    if (opts.besideEvents) await loadStoreBeside(env, opts.besideEvents);
    if (opts.rawPayloads === 'none')
      await env.db.query('bench.raw_none', 'update stores set raw_payloads_stored = false where store_id = $1', [
        env.store.store_id,
      ]);
    const start = new Date(Date.now() - 30 * 86_400_000);
    const demo = planDemo({ events: opts.events, seed: 42, start, days: 30 });
    const phase = await throughputPhase(env, demo, demo.summary.events);
    console.error(`bench: measuring visibility at ${opts.rate} events/s`);

    // Steady-rate phase: a fresh stream (another seed, recent days) pushed at the given rate.
    const live = planDemo({
      events: opts.rate * opts.liveSeconds,
      seed: 43,
      start: new Date(Date.now() - 86_400_000),
      days: 1,
    });
    const before = await env.pipelineMetrics();
    const visibleBefore = histogramCount(before);
    const pushed = await pushPaced(env.apiUrl, env.credentials.ingest_key, [...live.events()], opts.rate);
    await waitForCommitted(env, demo.summary.events + pushed);
    const metrics = await env.pipelineMetrics();
    const p50 = histogramQuantileSince(before, metrics, 0.5);
    // The views must be exact: the reconciliation recomputes the store from its facts (after the timed phases).
    const liveDrift = await reconcileStore(env.db, env.store.store_id);
    if (liveDrift.driftCount) console.error('bench: live views drifted, first rows:', liveDrift.drift.slice(0, 10));
    // Replay with --rebuild of the whole stream of the store (the live daemon stopped first).
    await env.stopPipeline();
    const nc = await connect({ servers: env.natsUrl });
    const rebuild = await replayStore(nc, env.db, { storeId: env.store.store_id, rebuild: true }, silentLogger());
    await nc.close();
    const rebuilt = await reconcileStore(env.db, env.store.store_id);
    const p95 = histogramQuantileSince(before, metrics, 0.95);
    console.log(
      JSON.stringify(
        {
          bench: 'pipeline',
          workers: opts.workers,
          daemon_cpu: opts.daemonCpu ?? null,
          beside_events: opts.besideEvents ?? 0,
          raw_payloads: opts.rawPayloads ?? 'kept',
          demo_events: demo.summary.events,
          demo_orders: demo.orders.length,
          throughput_events_per_s: phase.events_per_s,
          throughput_seconds: phase.seconds,
          raw_payloads_seconds: phase.raw_payloads_seconds,
          pipeline_cpu_us_per_event: phase.pipeline_cpu_us_per_event,
          pipeline_threads_us_per_event: phase.pipeline_threads_us_per_event,
          server_cpu_us_per_event: phase.server_cpu_us_per_event,
          batch_time_by_step: phase.batch_time_by_step,
          db_seconds_by_statement: phase.db_seconds_by_statement,
          persons_recomputed: phase.persons_recomputed,
          batches: phase.batches,
          batches_warm: phase.batches_warm,
          replay_rebuild: {
            messages: rebuild.processed,
            seconds: Number(rebuild.seconds.toFixed(2)),
            empty_seconds: Number((rebuild.emptySeconds ?? 0).toFixed(2)),
            load_seconds: Number((rebuild.loadSeconds ?? 0).toFixed(2)),
            recompute_seconds: Number((rebuild.recomputeSeconds ?? 0).toFixed(2)),
            events_per_s: Math.round(rebuild.processed / Math.max(rebuild.seconds, 0.001)),
          },
          reconciliation_drift: { live: liveDrift.driftCount, after_rebuild: rebuilt.driftCount },
          visibility: {
            rate_events_per_s: opts.rate,
            events: histogramCount(metrics) - visibleBefore,
            p50_s: p50 === null ? null : Number(p50.toFixed(3)),
            p95_s: p95 === null ? null : Number(p95.toFixed(3)),
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await env.close();
  }
}

const VIS = 'pipeline_visibility_seconds';

// A scrape of several workers names each series once per worker: the readers sum them.

/** Sums of metric lines' values (second group) by their label (first group). */
function sumByLabel(matches: Iterable<RegExpMatchArray>): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of matches) out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]));
  return out;
}

/** The sum of unlabelled metric lines' values (first group). */
function sumOf(matches: Iterable<RegExpMatchArray>): number {
  let total = 0;
  for (const m of matches) total += Number(m[1]);
  return total;
}

/** How much each series of `pattern` (label in the first group, value in the second) grew between two scrapes. */
export function growthByLabel(before: string, after: string, pattern: RegExp): Map<string, number> {
  const b = sumByLabel(before.matchAll(pattern));
  return new Map([...sumByLabel(after.matchAll(pattern))].map(([label, n]) => [label, n - (b.get(label) ?? 0)]));
}

/** The `top` statement tags by PostgreSQL time between two scrapes (lock waits count as statement time). */
export function dbTimeByTag(before: string, after: string, top: number): Record<string, number> {
  const grown = growthByLabel(
    before,
    after,
    /^pipeline_db_query_duration_seconds_sum\{tag="([^"]+)",ok="true"\} (\S+)$/gm,
  );
  return Object.fromEntries(
    [...grown]
      .sort((x, y) => y[1] - x[1])
      .slice(0, top)
      .map(([tag, seconds]) => [tag, Number(seconds.toFixed(2))]),
  );
}

/** Persons the batches recomputed between two scrapes, by path: extended, or in full from all their facts. */
export function personsRecomputed(before: string, after: string): Record<string, number> {
  return Object.fromEntries(
    growthByLabel(before, after, /^pipeline_persons_recomputed_total\{path="([a-z]+)"\} (\S+)$/gm),
  );
}

/**
 * Where the batch transactions' time went between two scrapes: each maintenance step's seconds and share of
 * the flush time (`other` is the rest: raw payloads, pushes, link clicks, the commit). With two lanes the
 * batches overlap, so the seconds add up to more than the phase's wall time; the shares are what compare.
 */
export function batchTimeBySteps(
  before: string,
  after: string,
): { flush_seconds: number; steps: Record<string, { seconds: number; share: number }> } {
  const flushOf = (text: string): number => sumOf(text.matchAll(/^pipeline_flush_duration_seconds_sum (\S+)$/gm));
  const flush = flushOf(after) - flushOf(before);
  const grown = growthByLabel(before, after, /^pipeline_batch_step_seconds_total\{step="([a-z_]+)"\} (\S+)$/gm);
  const steps: Record<string, { seconds: number; share: number }> = {};
  let named = 0;
  const entry = (seconds: number) => ({
    seconds: Number(seconds.toFixed(2)),
    share: flush > 0 ? Number((seconds / flush).toFixed(3)) : 0,
  });
  for (const [k, seconds] of grown) {
    named += seconds;
    steps[k] = entry(seconds);
  }
  steps.other = entry(Math.max(0, flush - named));
  return { flush_seconds: Number(flush.toFixed(2)), steps };
}

/** Observations of the visibility histogram in one scrape. */
export function histogramCount(text: string): number {
  return sumOf(text.matchAll(new RegExp(`^${VIS}_count (\\d+)`, 'gm')));
}

/** Quantile of the observations made between two scrapes of the histogram (`name`: the visibility by default). */
export function histogramQuantileSince(before: string, after: string, q: number, name = VIS): number | null {
  const grown = growthByLabel(before, after, new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`, 'gm'));
  const diff = [...grown].map(([le, n]) => `${name}_bucket{le="${le}"} ${n}`).join('\n');
  return histogramQuantile(diff, name, q);
}

/** The committed batches between two scrapes: how many, their mean size, and the p95 of their duration. */
export function batchesBetween(
  before: string,
  after: string,
): { count: number; mean_size: number; seconds_p95: number | null } {
  const total = (text: string, series: string): number => sumOf(text.matchAll(new RegExp(`^${series} (\\S+)$`, 'gm')));
  const count = total(after, 'pipeline_batch_size_count') - total(before, 'pipeline_batch_size_count');
  const size = total(after, 'pipeline_batch_size_sum') - total(before, 'pipeline_batch_size_sum');
  const p95 = histogramQuantileSince(before, after, 0.95, 'pipeline_flush_duration_seconds');
  return {
    count,
    mean_size: count ? Math.round(size / count) : 0,
    seconds_p95: p95 === null ? null : Number(p95.toFixed(2)),
  };
}

/** Posts a request of events, retrying a 429 or 503 after its `Retry-After` as a store's backend would. */
async function postRetrying(apiUrl: string, ingestKey: string, body: Buffer): Promise<void> {
  const headers = { 'Content-Type': 'application/json', 'X-Ingest-Key': ingestKey };
  for (let attempt = 1; ; attempt++) {
    const res = await postBytes(`${apiUrl}/v2-4-2/api/events`, headers, body);
    if (res.status === 200) return;
    if ((res.status !== 429 && res.status !== 503) || attempt === 20)
      throw new Error(`ingest answered ${res.status}: ${res.text}`);
    const seconds = Number(res.retryAfter ?? '1');
    await new Promise((r) => setTimeout(r, (Number.isFinite(seconds) ? seconds : 1) * 1000));
  }
}

/**
 * Posts events in batches every 100 ms so that they arrive at about `rate` per second; returns the count. The
 * bodies are made before the first is sent (a real sender runs elsewhere: scripts/post-bytes.ts).
 */
export async function pushPaced(apiUrl: string, ingestKey: string, events: unknown[], rate: number): Promise<number> {
  const perTick = Math.max(1, Math.round(rate / 10));
  const bodies: Buffer[] = [];
  for (let i = 0; i < events.length; i += perTick)
    bodies.push(Buffer.from(JSON.stringify(events.slice(i, i + perTick))));
  const inFlight: Array<Promise<void>> = [];
  const t0 = Date.now();
  for (const [tick, body] of bodies.entries()) {
    const wait = t0 + tick * 100 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(postRetrying(apiUrl, ingestKey, body));
  }
  await Promise.all(inFlight);
  return events.length;
}
