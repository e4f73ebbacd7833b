/**
 * `npm run bench -- import`: a store's history imported as a new user would, into a fresh installation: a demo
 * store of 38,800 events over 70 days (several sessions and devices per person, identity joins, orders with
 * their refunds) pushed through `POST /events` and `/orders` 250 at a time from 4 connections while the pipeline
 * runs. Figures: the rate the API accepted the events at, and the rate end to end, from the first request to the
 * last message committed by the pipeline, as its own metrics say; the CPU each process spent per event (the API,
 * the pipeline, PostgreSQL, nats-server); and where the pipeline's time went (batch steps, statements, persons
 * recomputed). The rate end to end is compared with the stream-to-views rate of the
 * same workload (`npm run bench -- pipeline`) and of page views alone (`npm run bench -- ingest`).
 */
import { planDemo } from '../demo/generate';
import { preparePush, pushDemo } from '../demo/push';
import {
  committedMessages,
  cpuPerEvent,
  readCpu,
  rehearsalSecondsIn,
  startBenchEnv,
  waitForCommitted,
  waitForPushes,
  type WorkersOption,
} from './bench-env';
import { batchTimeBySteps, dbTimeByTag, personsRecomputed } from './pipeline';

export interface ImportBenchOptions extends WorkersOption {
  events: number;
  days: number;
  batch: number;
  concurrency: number;
}

/** The figures `benchImport` prints (the ones a caller compares). */
export interface ImportBenchResult {
  end_to_end_events_per_s: number;
}

export async function benchImport(opts: ImportBenchOptions): Promise<ImportBenchResult> {
  // A fresh installation: the pipeline running, no store before this one, tables the statistics have not seen.
  const env = await startBenchEnv({ pipeline: { workers: opts.workers } });
  try {
    const demo = planDemo({
      events: opts.events,
      seed: 53,
      start: new Date(Date.now() - opts.days * 86_400_000),
      days: opts.days,
    });
    // Every request made before the clock starts: a store's backend sends from its own machine (module comment of
    // scripts/demo/push.ts).
    const requests = preparePush(demo, { batchSize: opts.batch });
    const before = await env.pipelineMetrics();
    const cpuBefore = await readCpu(env, before);
    const atStart = await committedMessages(env);
    const started = Date.now();
    const pushed = await pushDemo({
      apiUrl: env.apiUrl,
      ingestKey: env.credentials.ingest_key,
      stream: requests,
      concurrency: opts.concurrency,
    });
    const accepted = (Date.now() - started) / 1000;
    // Every event committed, and every order version (the purchases the views must hold).
    await waitForCommitted(env, atStart + pushed.events);
    await waitForPushes(env, 'order', pushed.orders);
    const seconds = (Date.now() - started) / 1000;
    const after = await env.pipelineMetrics();
    const cpuAfter = await readCpu(env, after);
    const result = {
      bench: 'import',
      events: pushed.events,
      persons: demo.summary.persons,
      orders: demo.summary.orders,
      days: opts.days,
      batch: opts.batch,
      concurrency: opts.concurrency,
      workers: opts.workers,
      api_accepted_events_per_s: Math.round(pushed.events / accepted),
      api_seconds: Number(accepted.toFixed(2)),
      end_to_end_events_per_s: Math.round(pushed.events / seconds),
      end_to_end_seconds: Number(seconds.toFixed(2)),
      cpu_us_per_event: cpuPerEvent(cpuBefore, cpuAfter, pushed.events),
      rehearsal_seconds: rehearsalSecondsIn(before),
      batch_time_by_step: batchTimeBySteps(before, after),
      db_seconds_by_statement: dbTimeByTag(before, after, 12),
      persons_recomputed: personsRecomputed(before, after),
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await env.close();
  }
}
