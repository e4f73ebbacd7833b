/**
 * `npm run bench -- ingest`: pushes N page_viewed events through POST /v2-4-2/api/events (batches of
 * --batch, --concurrency requests in flight) and measures end to end, from the first request to the last
 * row committed by the pipeline. With `--via segment` the same page views go as Segment `page` calls through
 * the Segment-compatible source's POST /v1/batch (Basic auth), to compare the two routes on one machine.
 */
import { randomUUID } from 'node:crypto';
import { sampleEvent } from '../../test/support/samples';
import { postBytes } from '../post-bytes';
import {
  cpuPerEvent,
  percentile,
  readCpu,
  rehearsalSecondsIn,
  startBenchEnv,
  waitForCommitted,
  type WorkersOption,
} from './bench-env';

export interface IngestBenchOptions extends WorkersOption {
  events: number;
  batch: number;
  concurrency: number;
  /** The route: our own events route, or the Segment-compatible source. */
  via: 'events' | 'segment';
}

/** The page view of `sampleEvent('page_viewed')` as a Segment `page` call. */
function segmentPage(messageId: string, anonymousId: string, timestamp: string): Record<string, unknown> {
  const e = sampleEvent('page_viewed');
  return {
    type: 'page',
    messageId,
    anonymousId,
    timestamp,
    context: {
      ip: e.clientIp,
      userAgent: e.context.navigator?.userAgent,
      page: {
        url: e.context.document.location.href,
        referrer: e.context.document.referrer,
        title: e.context.document.title,
      },
    },
  };
}

/** The figures `benchIngest` prints (the ones a caller compares). */
export interface IngestBenchResult {
  end_to_end_events_per_s: number;
}

export async function benchIngest(opts: IngestBenchOptions): Promise<IngestBenchResult> {
  const env = await startBenchEnv({ pipeline: { workers: opts.workers } });
  try {
    const base = Date.now() - 3600_000;
    const batches: Buffer[] = [];
    for (let i = 0; i < opts.events; i += opts.batch) {
      const events = [];
      for (let j = i; j < Math.min(opts.events, i + opts.batch); j++) {
        const [id, clientId, timestamp] = [`b-${randomUUID()}`, `client-${j % 5000}`, new Date(base + j).toISOString()];
        events.push(
          opts.via === 'segment'
            ? segmentPage(id, clientId, timestamp)
            : sampleEvent('page_viewed', { id, clientId, timestamp }),
        );
      }
      // As bytes, made before the clock starts: a real sender runs elsewhere (scripts/post-bytes.ts).
      batches.push(Buffer.from(JSON.stringify(opts.via === 'segment' ? { batch: events } : events)));
    }
    const key = env.credentials.ingest_key;
    const [route, headers] =
      opts.via === 'segment'
        ? [
            `${env.apiUrl}/v1/batch`,
            { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
          ]
        : [`${env.apiUrl}/v2-4-2/api/events`, { 'Content-Type': 'application/json', 'X-Ingest-Key': key }];
    const latencies: number[] = [];
    let next = 0;
    const before = await env.pipelineMetrics();
    const cpuBefore = await readCpu(env, before);
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const body = batches[next++]!;
        const t = performance.now();
        const res = await postBytes(route, headers, body);
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${res.text}`);
        latencies.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    const acceptedAt = performance.now();
    await waitForCommitted(env, opts.events);
    const done = performance.now();
    const cpuAfter = await readCpu(env);
    latencies.sort((a, b) => a - b);
    const seconds = (done - started) / 1000;
    const result = {
      bench: 'ingest',
      via: opts.via,
      events: opts.events,
      batch: opts.batch,
      concurrency: opts.concurrency,
      workers: opts.workers,
      http_accept_events_per_s: Math.round(opts.events / ((acceptedAt - started) / 1000)),
      end_to_end_events_per_s: Math.round(opts.events / seconds),
      end_to_end_seconds: Number(seconds.toFixed(2)),
      cpu_us_per_event: cpuPerEvent(cpuBefore, cpuAfter, opts.events),
      rehearsal_seconds: rehearsalSecondsIn(before),
      request_ms: {
        p50: Number(percentile(latencies, 50).toFixed(1)),
        p99: Number(percentile(latencies, 99).toFixed(1)),
      },
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await env.close();
  }
}
