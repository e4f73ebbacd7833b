/**
 * `npm run bench -- fairness`: ten stores on one deployment, one of them bursting. Each store's demo events are
 * pushed through the API at a steady rate; the daemon reports the visibility of each store's events
 * (`pipeline_store_visibility_seconds{store}`, turned on with PIPELINE_VISIBILITY_BY_STORE), read from its metrics.
 * A warm-up of `--warmup-seconds` at the steady rate first (a fresh daemon's first batches run cold: unoptimized
 * JavaScript, new database connections; docs/benchmark-history.md), reported apart. Then three phases of
 * `--seconds` each:
 * 1. steady: every store at `--rate` events/s;
 * 2. burst: one store at 20 times that, the nine others unchanged;
 * 3. flood: that store pushes as fast as the API takes it (a replay of its history), the nine others unchanged.
 * Printed per phase: the nine other stores' visibility p95 (the worst of them and their median), the bursting
 * store's, and the events/s each group got in. The target: every other store under 1 s p95 during the burst.
 */
import { planDemo } from '../demo/generate';
import { preparePush, pushDemo } from '../demo/push';
import { createStore } from '../../storage/store-registry';
import { type BenchEnv, committedMessages, cpuSecondsIn, startBenchEnv, waitForCommitted } from './bench-env';
import { serverCpuPerEvent, usPerEvent } from './server-cpu';
import {
  batchTimeBySteps,
  batchesBetween,
  dbTimeByTag,
  growthByLabel,
  histogramQuantileSince,
  pushPaced,
} from './pipeline';

export interface FairnessBenchOptions {
  rate: number;
  seconds: number;
  stores: number;
  warmupSeconds: number;
  steadyOnly?: boolean;
}

const METRIC = 'pipeline_store_visibility_seconds';

interface Store {
  storeId: string;
  ingestKey: string;
}

/** The histogram lines of one store, with the store label dropped (so the unlabelled readers take them). */
function ofStore(text: string, storeId: string): string {
  const label = `store="${storeId}"`;
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${METRIC}_bucket{`) && l.includes(label))
    .map((l) => l.replace(/\{[^}]*\}/, (labels) => `{le="${/le="([^"]+)"/.exec(labels)?.[1] ?? ''}"}`))
    .join('\n');
}

function p95Of(before: string, after: string, storeId: string): number | null {
  const q = histogramQuantileSince(ofStore(before, storeId), ofStore(after, storeId), 0.95, METRIC);
  return q === null ? null : Number(q.toFixed(3));
}

/** The statements the daemon ran between two scrapes, by tag, most first: a batch's cost grows with them. */
function statementCounts(before: string, after: string): Record<string, number> {
  const grown = growthByLabel(
    before,
    after,
    /^pipeline_db_query_duration_seconds_count\{tag="([^"]+)",ok="true"\} (\S+)$/gm,
  );
  const sorted = [...grown].filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]);
  return Object.fromEntries([['(all)', sorted.reduce((a, [, n]) => a + n, 0)], ...sorted]);
}

/** Recent storefront events of a demo store of its own (a seed per store and phase). */
function eventsOf(count: number, seed: number): unknown[] {
  const demo = planDemo({ events: count, seed, start: new Date(Date.now() - 86_400_000), days: 1 });
  return [...demo.events()].slice(0, count);
}

async function phase(
  env: BenchEnv,
  name: string,
  others: readonly Store[],
  burst: Store,
  opts: FairnessBenchOptions,
  burstPush: () => Promise<number>,
  seed: number,
) {
  // Every store's events are made before the phase starts: a real sender runs on its own machine, and making
  // 20,000 demo events here took most of a core from the daemons in the flood's first seconds.
  const otherEvents = others.map((_, i) => eventsOf(opts.rate * opts.seconds, seed + i));
  const before = await env.pipelineMetrics();
  const serversBefore = env.serverCpu();
  const committedBefore = await committedMessages(env);
  const started = Date.now();
  const pushes = others.map((s, i) => pushPaced(env.apiUrl, s.ingestKey, otherEvents[i]!, opts.rate));
  const [burstPushed, ...otherPushed] = await Promise.all([burstPush(), ...pushes]);
  const pushSeconds = (Date.now() - started) / 1000;
  const pushed = burstPushed + otherPushed.reduce((a, b) => a + b, 0);
  await waitForCommitted(env, committedBefore + pushed);
  const serversAfter = env.serverCpu();
  const after = await env.pipelineMetrics();
  const pipelineCpu = cpuSecondsIn(after, 'the pipeline') - cpuSecondsIn(before, 'the pipeline');
  const p95s = others.map((s) => p95Of(before, after, s.storeId) ?? Infinity).sort((a, b) => a - b);
  const result = {
    phase: name,
    others_p95_s: { worst: p95s.at(-1), median: p95s[Math.floor(p95s.length / 2)] },
    burst_store_p95_s: p95Of(before, after, burst.storeId),
    others_events_per_s: Math.round(otherPushed.reduce((a, b) => a + b, 0) / pushSeconds),
    burst_events_per_s: Math.round(burstPushed / pushSeconds),
    seconds_to_committed: Number(((Date.now() - started) / 1000).toFixed(1)),
    // The CPU the phase's events cost: what decides how much a saturated machine keeps up with.
    pipeline_cpu_us_per_event: usPerEvent(pipelineCpu, pushed),
    server_cpu_us_per_event: serverCpuPerEvent(serversBefore, serversAfter, pushed),
    batches: batchesBetween(before, after),
    batch_steps: batchTimeBySteps(before, after),
    db_seconds_by_tag: dbTimeByTag(before, after, 12),
    statements_by_tag: statementCounts(before, after),
  };
  console.error(`bench: ${name}: ${JSON.stringify(result)}`);
  return result;
}

export async function benchFairness(opts: FairnessBenchOptions): Promise<void> {
  const env = await startBenchEnv({ pipeline: { env: { PIPELINE_VISIBILITY_BY_STORE: 'on' } } });
  try {
    const stores: Store[] = [];
    for (let i = 0; i < opts.stores; i++) {
      const { store, credentials } = await createStore(env.db, {
        name: `fair-${i}-${Date.now()}`,
        timezone: 'UTC',
        currency: 'USD',
        lookbackDays: 30,
      });
      stores.push({ storeId: store.store_id, ingestKey: credentials.ingest_key });
    }
    const [burst, ...others] = stores as [Store, ...Store[]];
    /** The bursting store's push of `events` at `rate` events/s, its events made now. */
    const paced = (events: unknown[], rate: number) => () => pushPaced(env.apiUrl, burst.ingestKey, events, rate);
    const steady = (seconds: number, seed: number) => paced(eventsOf(opts.rate * seconds, seed), opts.rate);
    const warmup =
      opts.warmupSeconds > 0
        ? await phase(
            env,
            'warmup',
            others,
            burst,
            { ...opts, seconds: opts.warmupSeconds },
            steady(opts.warmupSeconds, 600),
            500,
          )
        : null;
    const phases = [await phase(env, 'steady', others, burst, opts, steady(opts.seconds, 1100), 1000)];
    if (!opts.steadyOnly) {
      const burstEvents = eventsOf(opts.rate * 20 * opts.seconds, 2100);
      phases.push(await phase(env, 'burst_20x', others, burst, opts, paced(burstEvents, opts.rate * 20), 2000));
      // A replay of the store's history: a demo store's whole stream, pushed as fast as the API takes it.
      const plan = planDemo({
        events: opts.rate * 20 * opts.seconds,
        seed: 3100,
        start: new Date(Date.now() - 86_400_000),
        days: 1,
      });
      const history = preparePush(plan);
      const flood = async () =>
        (await pushDemo({ apiUrl: env.apiUrl, ingestKey: burst.ingestKey, stream: history, concurrency: 4 })).events;
      phases.push(await phase(env, 'flood', others, burst, opts, flood, 3000));
    }
    console.log(
      JSON.stringify(
        { bench: 'fairness', stores: opts.stores, rate: opts.rate, seconds: opts.seconds, warmup, phases },
        null,
        2,
      ),
    );
  } finally {
    await env.close();
  }
}
