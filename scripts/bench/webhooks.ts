/**
 * `npm run bench -- webhooks`: the webhook worker as a process, against a receiver on loopback, deliveries
 * published to the WEBHOOKS stream as the pipeline publishes them. It prints
 * - `delivery_ms`: from the publication of a delivery to its request at the receiver (publications paced, the
 *   worker otherwise idle), and the worker's own mean attempt time from its metrics;
 * - `retry_gap_ms`: from a 500 to the retry, against the first step of the schedule (WEBHOOK_BACKOFF_MS);
 * - `beside_slow_receiver_ms`: six deliveries to one destination while another's receiver holds its answer;
 * - `drain_ms`: SIGTERM with an attempt in flight: until /readyz answers 503, and from the receiver's answer to
 *   the exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { webhookSubject, type WebhookDelivery } from '../../contracts/src/webhook-delivery';
import { IDENTITY_EVENTS } from '../../contracts/src/identity-events';
import { createDestination } from '../../webhook-worker/src/destination-repo';
import { startWebhookReceiver, type ProgrammedResponse } from '../../test/support/webhook-receiver';
import { freePort } from '../../test/support/free-port';
import { type BenchEnv, percentile, scrapeMetrics, startBenchEnv } from './bench-env';

export interface WebhooksBenchOptions {
  deliveries: number;
  retries: number;
}

const ROOT = path.join(__dirname, '..', '..');
const BACKOFF_STEP_MS = 200;

const until = async <T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(sorted, p));
  return { p50: at(50), p95: at(95), max: at(100) };
};

interface Worker {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
}

async function startWorker(env: BenchEnv, extra: Record<string, string> = {}): Promise<Worker> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'webhook-worker/src/app/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      LOG_LEVEL: 'error',
      WEBHOOK_HEALTH_PORT: String(port),
      WEBHOOK_BACKOFF_MS: Array.from({ length: 7 }, () => BACKOFF_STEP_MS).join(','),
      WEBHOOK_BACKOFF_JITTER: '0.1',
      ...extra,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const status = () =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
  await until(status, (s) => s === 200, 'the webhook worker to be ready');
  return { child, port, exited };
}

export async function benchWebhooks(opts: WebhooksBenchOptions): Promise<void> {
  const env = await startBenchEnv({ withPipeline: false });
  const receiver = await startWebhookReceiver();
  const nc = await connect({ servers: env.natsUrl });
  const js = jetstream(nc);
  let worker: Worker | null = null;
  try {
    const storeId = env.store.store_id;
    const destination = async (responses: ProgrammedResponse[] = []) => {
      const p = `/bench/${randomUUID()}`;
      receiver.program(p, responses);
      const { destination: d } = await createDestination(env.db, {
        storeId,
        url: receiver.urlFor(p),
        events: IDENTITY_EVENTS,
      });
      return { id: d.destination_id, path: p };
    };
    worker = await startWorker(env, { WEBHOOK_CONCURRENCY: '16', WEBHOOK_DESTINATION_CACHE_MS: '5000' });

    // Delivery time, paced (50/s), one destination.
    const fast = await destination();
    const published = new Map<string, number>();
    for (let i = 0; i < opts.deliveries; i++) {
      published.set(await publish(js, storeId, fast.id), Date.now());
      await new Promise((r) => setTimeout(r, 20));
    }
    await until(
      () => receiver.accepted(fast.path).length,
      (n) => n >= opts.deliveries,
      'the paced deliveries',
    );
    const delivery = receiver
      .requests(fast.path)
      .map((r) => r.receivedAt - (published.get(String(r.headers['webhook-id'])) ?? NaN));
    const metrics = await scrapeMetrics(`http://127.0.0.1:${worker.port}/metrics`);
    const sum = Number(/^webhook_delivery_duration_seconds_sum\{status="2xx"\} (\S+)$/m.exec(metrics)?.[1]);
    const count = Number(/^webhook_delivery_duration_seconds_count\{status="2xx"\} (\S+)$/m.exec(metrics)?.[1]);

    // The retry after a 500, one destination each.
    const failing = await Promise.all(Array.from({ length: opts.retries }, () => destination([{ status: 500 }])));
    for (const d of failing) await publish(js, storeId, d.id);
    await until(
      () => failing.every((d) => receiver.accepted(d.path).length === 1),
      (ok) => ok,
      'the retried deliveries',
    );
    const gaps = failing.map((d) => {
      const [first, second] = receiver.requests(d.path);
      return second!.receivedAt - first!.receivedAt;
    });

    // Six deliveries beside a receiver that holds its answer.
    let release: () => void = () => undefined;
    const slow = await destination([{ status: 200, hold: new Promise<void>((r) => (release = r)) }]);
    const beside = await destination();
    await publish(js, storeId, slow.id);
    await until(
      () => receiver.requests(slow.path).length,
      (n) => n === 1,
      'the slow request',
    );
    const besideStarted = Date.now();
    for (let i = 0; i < 6; i++) await publish(js, storeId, beside.id);
    await until(
      () => receiver.accepted(beside.path).length,
      (n) => n === 6,
      'the deliveries beside',
    );
    const besideMs = Date.now() - besideStarted;
    release();
    await until(
      () => receiver.accepted(slow.path).length,
      (n) => n === 1,
      'the slow delivery',
    );

    // Drain: SIGTERM with an attempt in flight.
    let answer: () => void = () => undefined;
    const held = await destination([{ status: 200, hold: new Promise<void>((r) => (answer = r)) }]);
    await publish(js, storeId, held.id);
    await until(
      () => receiver.requests(held.path).length,
      (n) => n === 1,
      'the held request',
    );
    const signalled = Date.now();
    worker.child.kill('SIGTERM');
    const readyz = () =>
      fetch(`http://127.0.0.1:${worker!.port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
    await until(readyz, (s) => s === 503, 'readiness to turn while draining');
    const notReadyMs = Date.now() - signalled;
    const answered = Date.now();
    answer();
    await worker.exited;
    const exitMs = Date.now() - answered;
    worker = null;

    console.log(
      JSON.stringify(
        {
          bench: 'webhooks',
          deliveries: opts.deliveries,
          delivery_ms: summary(delivery),
          worker_attempt_mean_ms: Math.round((sum / count) * 1000),
          retry_gap_ms: { ...summary(gaps), schedule: BACKOFF_STEP_MS },
          beside_slow_receiver_ms: besideMs,
          drain_ms: { not_ready: notReadyMs, exit_after_answer: exitMs },
        },
        null,
        2,
      ),
    );
  } finally {
    if (worker) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await nc.close();
    await receiver.close();
    await env.close();
  }
}

async function publish(js: JetStreamClient, storeId: string, destinationId: string): Promise<string> {
  const delivery: WebhookDelivery = {
    webhookId: `msg_${randomUUID().replaceAll('-', '')}`,
    storeId,
    destinationId,
    name: 'Checkout Started',
    eventId: `bench-${randomUUID()}`,
    body: JSON.stringify({ type: 'event', attributes: { unique_id: randomUUID() } }),
    enqueuedAt: Date.now(),
  };
  await js.publish(webhookSubject(storeId, destinationId), JSON.stringify(delivery), { msgID: delivery.webhookId });
  return delivery.webhookId;
}
