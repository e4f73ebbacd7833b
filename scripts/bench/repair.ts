/**
 * `npm run bench -- repair`: the recomputation that ends a rebuild, alone and again and again. The demo store is
 * loaded once through the API and the pipeline; then `reconcile --repair` (every view of the store recomputed from
 * its facts) runs `--runs` times in this process, or, with `--rebuild`, `replay --rebuild` (the load from the
 * stream too). Each run is timed with the CPU it cost this process (every thread) and PostgreSQL, the time the
 * main thread spent collecting garbage, and its statements' time by tag (the instrumentation the daemons' metrics
 * use); the tables are vacuumed between runs, so that no run meets the dead rows of the one before. A pipeline
 * bench measures one rebuild per run of a few minutes; this one compares changes to the recomputation in minutes.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';
import { silentLogger } from '../../runtime/logger';
import { createDb } from '../../storage/db';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { replayStore } from '../../pipeline/src/operations/replay';
import { planDemo } from '../demo/generate';
import { pushDemo } from '../demo/push';
import { startBenchEnv, waitForCommitted } from './bench-env';

export interface RepairBenchOptions {
  events: number;
  runs: number;
  rebuild?: boolean;
}

/** Milliseconds the main thread spent in garbage collection since it started observing. */
function gcClock(): { ms: () => number; stop: () => void } {
  let ms = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) ms += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  return { ms: () => ms, stop: () => observer.disconnect() };
}

const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

export async function benchRepair(opts: RepairBenchOptions): Promise<void> {
  const env = await startBenchEnv({ withPipeline: false });
  const statements = new Map<string, number>();
  const db = createDb({
    connectionString: env.databaseUrl,
    service: 'bench-repair',
    max: 4,
    onQuery: (tag, seconds) => statements.set(tag, (statements.get(tag) ?? 0) + seconds),
  });
  const nc = await connect({ servers: env.natsUrl });
  const gc = gcClock();
  try {
    const storeId = env.store.store_id;
    const demo = planDemo({ events: opts.events, seed: 42, start: new Date(Date.now() - 30 * 86_400_000), days: 30 });
    await pushDemo({ apiUrl: env.apiUrl, ingestKey: env.credentials.ingest_key, stream: demo, concurrency: 4 });
    await env.startPipeline();
    await waitForCommitted(env, demo.summary.events);
    await env.stopPipeline();
    console.error(`bench: ${demo.summary.events} demo events in the views; ${opts.runs} runs follow`);

    const runs = [];
    for (let i = 0; i < opts.runs; i++) {
      await env.db.query('bench.vacuum', 'vacuum (analyze)');
      statements.clear();
      const servers = env.serverCpu();
      const cpu = process.cpuUsage();
      const gcBefore = gc.ms();
      const started = Date.now();
      let phases: Record<string, number> = {};
      let persons: number | null = null;
      if (opts.rebuild) {
        const r = await replayStore(nc, db, { storeId, rebuild: true }, silentLogger());
        phases = {
          empty_seconds: round(r.emptySeconds ?? 0),
          load_seconds: round(r.loadSeconds ?? 0),
          recompute_seconds: round(r.recomputeSeconds ?? 0),
          messages_per_s: Math.round(r.processed / Math.max(r.seconds, 0.001)),
        };
      } else persons = (await reconcileStore(db, storeId, { repair: true })).persons;
      const seconds = (Date.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const postgres = env.serverCpu().postgres;
      runs.push({
        run: i + 1,
        seconds: round(seconds),
        ...(persons === null ? {} : { persons, us_per_person: Math.round((seconds * 1e6) / Math.max(persons, 1)) }),
        ...phases,
        node_cpu_seconds: round((used.user + used.system) / 1e6),
        main_thread_gc_seconds: round((gc.ms() - gcBefore) / 1000),
        postgres_cpu_seconds:
          postgres === null || servers.postgres === null ? null : round(postgres - servers.postgres),
        statement_seconds: Object.fromEntries(
          [...statements]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 10)
            .map(([tag, s]) => [tag, round(s)]),
        ),
      });
      console.error(`bench: run ${i + 1}: ${round(seconds)} s`);
    }
    const check = await reconcileStore(env.db, storeId);
    console.log(
      JSON.stringify(
        {
          bench: 'repair',
          mode: opts.rebuild ? 'rebuild' : 'repair',
          demo_events: demo.summary.events,
          runs,
          reconciliation_drift: check.driftCount,
        },
        null,
        2,
      ),
    );
  } finally {
    gc.stop();
    await nc.close();
    await db.close();
    await env.close();
  }
}
