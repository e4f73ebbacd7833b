/**
 * `npm run bench -- ingest`: pushes N page_viewed events through POST /v2-4-2/api/events (batches of
 * --batch, --concurrency requests in flight) and measures end to end, from the first request to the last
 * row committed by the pipeline.
 */
import { randomUUID } from 'node:crypto';
import { sampleEvent } from '../../test/support/samples';
import { cpuSeconds, cpuSecondsIn, percentile, startBenchEnv, waitForCommitted } from './bench-env';
import { serverCpuPerEvent } from './server-cpu';

export interface IngestBenchOptions {
  events: number;
  batch: number;
  concurrency: number;
}

export async function benchIngest(opts: IngestBenchOptions): Promise<void> {
  const env = await startBenchEnv();
  try {
    const base = Date.now() - 3600_000;
    const batches: string[] = [];
    for (let i = 0; i < opts.events; i += opts.batch) {
      const events = [];
      for (let j = i; j < Math.min(opts.events, i + opts.batch); j++) {
        events.push(
          sampleEvent('page_viewed', {
            id: `b-${randomUUID()}`,
            clientId: `client-${j % 5000}`,
            timestamp: new Date(base + j).toISOString(),
          }),
        );
      }
      batches.push(JSON.stringify(events));
    }
    const latencies: number[] = [];
    let next = 0;
    const cpu = () =>
      Promise.all([
        cpuSeconds(`${env.apiUrl}/metrics`),
        env.pipelineMetrics().then((text) => cpuSecondsIn(text, 'the pipeline')),
      ]);
    const [apiCpu0, pipelineCpu0] = await cpu();
    const serversBefore = env.serverCpu();
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const body = batches[next++]!;
        const t = performance.now();
        const res = await fetch(`${env.apiUrl}/v2-4-2/api/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': env.credentials.ingest_key },
          body,
        });
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
        latencies.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    const acceptedAt = performance.now();
    await waitForCommitted(env, opts.events);
    const done = performance.now();
    const serversAfter = env.serverCpu();
    const [apiCpu1, pipelineCpu1] = await cpu();
    const perEvent = (s: number) => Math.round((s * 1e6) / opts.events);
    latencies.sort((a, b) => a - b);
    const seconds = (done - started) / 1000;
    console.log(
      JSON.stringify(
        {
          bench: 'ingest',
          events: opts.events,
          batch: opts.batch,
          concurrency: opts.concurrency,
          http_accept_events_per_s: Math.round(opts.events / ((acceptedAt - started) / 1000)),
          end_to_end_events_per_s: Math.round(opts.events / seconds),
          end_to_end_seconds: Number(seconds.toFixed(2)),
          cpu_us_per_event: {
            api: perEvent(apiCpu1 - apiCpu0),
            pipeline: perEvent(pipelineCpu1 - pipelineCpu0),
            ...serverCpuPerEvent(serversBefore, serversAfter, opts.events),
          },
          request_ms: {
            p50: Number(percentile(latencies, 50).toFixed(1)),
            p99: Number(percentile(latencies, 99).toFixed(1)),
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
