/**
 * `npm run bench -- stop`: how long the pipeline daemon takes to stop on SIGTERM in the middle of a backlog (it
 * stops pulling, commits and acknowledges the batch in hand, closes its connections), from the signal to the
 * process's exit. Page views are pushed through the API first; the signal comes once the daemon has committed a
 * tenth of them, read from its own metrics. Restarted, it then works through the rest, so that the bench also
 * ends with everything committed.
 */
import { randomUUID } from 'node:crypto';
import { sampleEvent } from '../../test/support/samples';
import { connect } from '@nats-io/transport-node';
import { eventsNotApplied } from '../../test/support/stream';
import { type BenchEnv, committedMessages, PARTITIONS, percentile, startBenchEnv, waitForCommitted } from './bench-env';

export interface StopBenchOptions {
  events: number;
  rounds: number;
}

export async function benchStop(opts: StopBenchOptions): Promise<void> {
  const env = await startBenchEnv({ withPipeline: false });
  try {
    const stops: number[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      const base = Date.now() - 3600_000;
      for (let i = 0; i < opts.events; i += 500) {
        const events = Array.from({ length: Math.min(500, opts.events - i) }, (_, j) =>
          sampleEvent('page_viewed', {
            id: `stop-${randomUUID()}`,
            clientId: `client-${(i + j) % 5000}`,
            timestamp: new Date(base + i + j).toISOString(),
          }),
        );
        const res = await fetch(`${env.apiUrl}/v2-4-2/api/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': env.credentials.ingest_key },
          body: JSON.stringify(events),
        });
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
      }
      await env.startPipeline();
      await waitForCommitted(env, Math.ceil(opts.events / 10), 50);
      if ((await committedMessages(env)) >= opts.events) throw new Error('bench: the backlog was gone before the stop');
      const t = performance.now();
      await env.stopPipeline();
      stops.push(performance.now() - t);
      // The rest, so that the next round starts with an empty backlog (the new process counts from zero).
      await env.startPipeline();
      await waitForBacklogApplied(env);
      await env.stopPipeline();
    }
    const sorted = [...stops].sort((a, b) => a - b);
    console.log(
      JSON.stringify(
        {
          bench: 'stop',
          events: opts.events,
          rounds: opts.rounds,
          sigterm_to_exit_ms: {
            each: stops.map(Math.round),
            p50: Math.round(percentile(sorted, 50)),
            max: Math.round(sorted[sorted.length - 1] ?? NaN),
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

/** Resolves once the pipeline's consumers have nothing pending or unacknowledged (the stream's own count). */
async function waitForBacklogApplied(env: BenchEnv): Promise<void> {
  const nc = await connect({ servers: env.natsUrl });
  try {
    const partitions = Array.from({ length: PARTITIONS }, (_, p) => p);
    while ((await eventsNotApplied(nc, partitions)) > 0) await new Promise((r) => setTimeout(r, 250));
  } finally {
    await nc.close();
  }
}
