/**
 * Identity-event webhook delivery (docs/product.md, Identity events and destinations) against a real HTTP receiver on loopback, the real
 * WEBHOOKS stream and PostgreSQL: signatures checked by a from-scratch Standard Webhooks verifier, retries with a
 * shortened schedule (WEBHOOK_BACKOFF_MS), Retry-After, timeouts, redirects not followed, 410, dead letters and
 * redrive, a slow receiver, SIGKILL and SIGTERM of the worker process, and the `store webhook` CLI.
 *
 * Deliveries are published straight to the stream (what the pipeline does for real events). Every test uses its
 * own store and receiver path and waits until its deliveries have left the stream (workqueue: acked), so no test
 * leaks messages into another. The test consumer's ack_wait is 4 s (global-setup).
 */
import { execFile } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { WEBHOOKS_STREAM, webhookSubject, type WebhookDelivery } from '../../contracts/src/webhook-delivery';
import { IDENTITY_EVENTS, type IdentityEventName } from '../../contracts/src/identity-events';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import { loadWebhookWorkerConfig } from '../../webhook-worker/src/app/config';
import { startWebhookWorker, type RunningWebhookWorker } from '../../webhook-worker/src/app/worker';
import { createDestination } from '../../webhook-worker/src/destination-repo';
import { redrive } from '../../scripts/webhook-cli';
import { freePort } from '../support/free-port';
import { baseEnv, createTestStore, testDb, waitFor } from '../support/harness';
import { testEnv } from '../support/env';
import { spawnTs, type Child } from '../support/processes';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const FAST_BACKOFF = '200,200,200,200,200,200,200';

let db: Db;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let receiver: WebhookReceiver;

beforeAll(async () => {
  db = testDb();
  nc = await connect({ servers: testEnv.natsUrl });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver.close();
  await nc.close();
  await db.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Standard Webhooks verification, from scratch (the Standard Webhooks specification): no code shared with the sender.
// ---------------------------------------------------------------------------------------------------------------

const TOLERANCE_S = 5 * 60;

function verifyStandardWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: string,
  nowS = Math.floor(Date.now() / 1000),
): { ok: true } | { ok: false; reason: string } {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const signatures = one('webhook-signature');
  if (!id || !ts || !signatures) return { ok: false, reason: 'missing header' };
  if (!/^\d+$/.test(ts)) return { ok: false, reason: 'bad timestamp' };
  if (Math.abs(nowS - Number(ts)) > TOLERANCE_S) return { ok: false, reason: 'timestamp outside tolerance' };
  if (!secret.startsWith('whsec_')) return { ok: false, reason: 'bad secret' };
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${rawBody}`).digest();
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'no matching signature' };
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

interface Dest {
  storeId: string;
  destinationId: string;
  secret: string;
  path: string;
}

async function newDestination(events: readonly IdentityEventName[] = IDENTITY_EVENTS): Promise<Dest> {
  const { store } = await createTestStore(db);
  const p = `/hooks/${randomUUID()}`;
  const { destination, secret } = await createDestination(db, {
    storeId: store.store_id,
    url: receiver.urlFor(p),
    events,
  });
  return { storeId: store.store_id, destinationId: destination.destination_id, secret, path: p };
}

/** A small Checkout Started-like body (the real one is the pipeline's; the worker posts bodies as they are). */
function checkoutStartedBody(email: string): string {
  return JSON.stringify({
    type: 'event',
    attributes: {
      time: new Date().toISOString(),
      value: 129.9,
      value_currency: 'EUR',
      unique_id: randomUUID(),
      properties: { Items: ['Wool socks'], 'Item Count': 2, $value: 129.9, Collections: ['Socks'] },
      metric: { data: { type: 'metric', attributes: { name: 'Checkout Started', service: 'open-attribution' } } },
      profile: { data: { type: 'profile', attributes: { email, first_name: 'Zoë' } } },
    },
  });
}

async function publishDelivery(d: Dest, name: IdentityEventName = 'Checkout Started'): Promise<WebhookDelivery> {
  const delivery: WebhookDelivery = {
    webhookId: `msg_${randomUUID().replaceAll('-', '')}`,
    storeId: d.storeId,
    destinationId: d.destinationId,
    name,
    eventId: `ev-${randomUUID()}`,
    body: checkoutStartedBody('zoe@example.com'),
    enqueuedAt: Date.now(),
  };
  await js.publish(webhookSubject(d.storeId, d.destinationId), JSON.stringify(delivery), {
    msgID: delivery.webhookId,
  });
  return delivery;
}

/** Messages of a store still in the stream (workqueue: acked ones are gone). */
async function leftInStream(storeId: string): Promise<number> {
  const info = await jsm.streams.info(WEBHOOKS_STREAM, { subjects_filter: `wh.${storeId}.>` });
  return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
}

const drained = (storeId: string, timeoutMs = 15_000) =>
  waitFor(
    () => leftInStream(storeId),
    (n) => n === 0,
    timeoutMs,
    50,
  );

function workerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return baseEnv({
    WEBHOOK_BACKOFF_MS: FAST_BACKOFF,
    WEBHOOK_BACKOFF_JITTER: '0.1',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_DESTINATION_CACHE_MS: '1000',
    WEBHOOK_SHUTDOWN_TIMEOUT_MS: '3000',
    ...extra,
  });
}

async function withWorker<T>(extra: Record<string, string>, fn: (w: RunningWebhookWorker) => Promise<T>): Promise<T> {
  const worker = await startWebhookWorker(loadWebhookWorkerConfig(workerEnv(extra)), silentLogger(), {
    withoutHealthServer: true,
  });
  try {
    return await fn(worker);
  } finally {
    await worker.stop();
  }
}

async function counter(w: RunningWebhookWorker, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await w.metrics.registry.getSingleMetric(name)?.get();
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}

const requestsOf = (p: string) => () => Promise.resolve(receiver.requests(p));
const acceptedOf = (p: string) => () => Promise.resolve(receiver.accepted(p));
const header = (r: ReceivedRequest, name: string): string => String(r.headers[name]);

async function deadLetterRows(d: Dest) {
  return db.query<{
    id: string;
    webhook_id: string;
    attempts: number;
    last_status: number | null;
    last_error: string;
    body: string;
    event_name: string;
    redriven_at: Date | null;
  }>(
    'test.dead_letters',
    `select id, webhook_id, attempts, last_status, last_error, body, event_name, redriven_at
     from webhook_dead_letters where store_id = $1 and destination_id = $2 order by id`,
    [d.storeId, d.destinationId],
  );
}

async function cli(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ['--import', 'tsx', 'scripts/webhook-cli.ts', 'webhook', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...baseEnv(), ...env },
  });
}

async function cliFails(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await cli(args);
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error(`webhook ${args.join(' ')} succeeded`);
}

// ---------------------------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------------------------

describe('delivery worker', () => {
  it('POSTs the body with Standard Webhooks headers that a from-scratch verifier accepts', async () => {
    const d = await newDestination();
    await withWorker({}, async (w) => {
      const before = await counter(w, 'webhook_deliveries_total', { outcome: 'delivered' });
      const publishedAt = Date.now();
      const sent = await publishDelivery(d);
      const [req] = await waitFor(acceptedOf(d.path), (r) => r.length === 1);
      expect(req!.method).toBe('POST');
      expect(req!.body).toBe(sent.body);
      expect(header(req!, 'content-type')).toBe('application/json');
      expect(header(req!, 'user-agent')).toMatch(/^open-attribution-webhooks\//);
      expect(header(req!, 'webhook-id')).toBe(sent.webhookId);
      // The time of sending, in whole seconds: between the publication and the receipt.
      const timestamp = Number(header(req!, 'webhook-timestamp'));
      expect(timestamp).toBeGreaterThanOrEqual(Math.floor(publishedAt / 1000));
      expect(timestamp).toBeLessThanOrEqual(Math.ceil(req!.receivedAt / 1000));
      expect(header(req!, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verifyStandardWebhook(d.secret, req!.headers, req!.body)).toEqual({ ok: true });
      // The verifier is a real check: it refuses a changed body, another secret, and an old timestamp.
      expect(verifyStandardWebhook(d.secret, req!.headers, req!.body.replace('129.9', '1.0')).ok).toBe(false);
      expect(verifyStandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, req!.headers, req!.body).ok).toBe(
        false,
      );
      expect(
        verifyStandardWebhook(d.secret, req!.headers, req!.body, Number(header(req!, 'webhook-timestamp')) + 301),
      ).toEqual({ ok: false, reason: 'timestamp outside tolerance' });
      await drained(d.storeId);
      expect(await counter(w, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(before + 1);
      expect(await counter(w, 'webhook_attempts_total', { status: '2xx' })).toBeGreaterThanOrEqual(1);
    });
    expect(receiver.requests(d.path)).toHaveLength(1);
  });

  it('retries 500, a timeout and 429 with Retry-After, then gets exactly one accepted delivery', async () => {
    const d = await newDestination();
    receiver.program(d.path, [
      { status: 500, body: 'internal error' },
      { status: 200, delayMs: 2500 }, // longer than WEBHOOK_TIMEOUT_MS=1000: the worker gives up on it
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 204 },
    ]);
    // One delivery at a time, so that the marker below proves that nothing more came of the first.
    await withWorker({ WEBHOOK_CONCURRENCY: '1' }, async (w) => {
      const retriesBefore = await counter(w, 'webhook_deliveries_total', { outcome: 'retry' });
      const sent = await publishDelivery(d);
      await waitFor(acceptedOf(d.path), (r) => r.length === 1, 20_000);
      await drained(d.storeId);
      // Nothing more comes after the accepted delivery. Acked, the message has left the stream (workqueue), so the
      // server cannot hand it out again, and the worker retries only through the server (nak), never by itself.
      // What it may still hold of it (a copy handed out before the ack) it handles before a message published
      // afterwards, one at a time: once a marker published now has been accepted, every request the first
      // delivery will ever cause has been received.
      const marker = await publishDelivery(d);
      await waitFor(acceptedOf(d.path), (r) => r.length === 2, 20_000);
      const all = receiver.requests(d.path);
      expect(header(all[all.length - 1]!, 'webhook-id')).toBe(marker.webhookId);
      const reqs = all.slice(0, -1);
      expect(reqs.map((r) => r.response.status)).toEqual([500, 200, 429, 204]);
      expect(reqs.map((r) => r.clientGone)).toEqual([false, true, false, false]);
      expect(receiver.accepted(d.path).map((r) => header(r, 'webhook-id'))).toEqual([sent.webhookId, marker.webhookId]);
      for (const r of reqs) {
        expect(header(r, 'webhook-id')).toBe(sent.webhookId);
        expect(r.body).toBe(sent.body);
        expect(verifyStandardWebhook(d.secret, r.headers, r.body)).toEqual({ ok: true });
      }
      const gaps = reqs.slice(1).map((r, i) => r.receivedAt - reqs[i]!.receivedAt);
      // 200 ms ±10 % after the 500; the 1 s timeout + 200 ms; Retry-After: 1 s beats the 200 ms step. How soon the
      // retries come is a figure of `npm run bench -- webhooks`, not a bound here.
      expect(gaps[0]).toBeGreaterThanOrEqual(170);
      expect(gaps[1]).toBeGreaterThanOrEqual(1150);
      expect(gaps[2]).toBeGreaterThanOrEqual(980);
      expect(await counter(w, 'webhook_deliveries_total', { outcome: 'retry' })).toBe(retriesBefore + 3);
      expect(await counter(w, 'webhook_attempts_total', { status: 'timeout' })).toBeGreaterThanOrEqual(1);
      // The worker recorded both a failure and the later delivery (for get/connection/destination).
      const [status] = await waitFor(
        () =>
          db.query<{ delivered: Date | null; failed: Date | null }>(
            'test.delivery_status',
            `select last_delivery_at as delivered, last_failure_at as failed from webhook_destinations
             where store_id = $1 and destination_id = $2`,
            [d.storeId, d.destinationId],
          ),
        (rows) => rows[0]?.delivered != null && rows[0]?.failed != null,
      );
      expect(status!.delivered!.getTime()).toBeGreaterThan(status!.failed!.getTime());
    });
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const d = await newDestination();
    const elsewhere = `/elsewhere/${randomUUID()}`;
    receiver.program(d.path, [{ status: 302, headers: { location: receiver.urlFor(elsewhere) } }, { status: 200 }]);
    await withWorker({}, async () => {
      await publishDelivery(d);
      await waitFor(acceptedOf(d.path), (r) => r.length === 1);
      await drained(d.storeId);
    });
    expect(receiver.requests(d.path).map((r) => r.response.status)).toEqual([302, 200]);
    expect(receiver.requests(elsewhere)).toHaveLength(0);
  });

  it('dead-letters a delivery that always fails, and redrive delivers it once the receiver is back', async () => {
    const d = await newDestination();
    receiver.program(d.path, [], { status: 503, body: 'down for maintenance' });
    let sent: WebhookDelivery | undefined;
    await withWorker({}, async (w) => {
      const before = await counter(w, 'webhook_deliveries_total', { outcome: 'dead_letter' });
      sent = await publishDelivery(d);
      await waitFor(
        () => deadLetterRows(d),
        (rows) => rows.length === 1,
        20_000,
      );
      await drained(d.storeId);
      expect(await counter(w, 'webhook_deliveries_total', { outcome: 'dead_letter' })).toBe(before + 1);
    });
    // Eight attempts: the first and the seven retries of the schedule.
    expect(receiver.requests(d.path)).toHaveLength(8);
    expect(receiver.accepted(d.path)).toHaveLength(0);
    const [row] = await deadLetterRows(d);
    expect(row).toMatchObject({
      webhook_id: sent!.webhookId,
      event_name: 'Checkout Started',
      attempts: 8,
      last_status: 503,
      last_error: 'HTTP 503: down for maintenance',
      body: sent!.body,
      redriven_at: null,
    });

    // The CLI shows it, one JSON object per line.
    const listed = (await cli(['dead-letters', '--store', d.storeId])).stdout.trim().split('\n');
    expect(listed).toHaveLength(1);
    expect(JSON.parse(listed[0]!)).toEqual({
      id: Number(row!.id),
      destination: d.destinationId,
      webhook_id: sent!.webhookId,
      event_name: 'Checkout Started',
      attempts: 8,
      last_status: 503,
      last_error: 'HTTP 503: down for maintenance',
      created_at: expect.any(String),
    });

    receiver.setFallback(d.path, { status: 200 });
    await withWorker({}, async () => {
      const out = JSON.parse((await cli(['redrive', '--store', d.storeId])).stdout) as Record<string, unknown>;
      expect(out).toEqual({
        redriven: [{ id: Number(row!.id), destination: d.destinationId, webhook_id: sent!.webhookId }],
        skipped: [],
      });
      const [accepted] = await waitFor(acceptedOf(d.path), (r) => r.length === 1);
      // The receiver sees the same webhook-id (it dedupes on it) and a valid signature.
      expect(header(accepted!, 'webhook-id')).toBe(sent!.webhookId);
      expect(verifyStandardWebhook(d.secret, accepted!.headers, accepted!.body)).toEqual({ ok: true });
      await drained(d.storeId);
    });
    expect((await deadLetterRows(d))[0]!.redriven_at).toBeInstanceOf(Date);
    expect((await cli(['dead-letters', '--store', d.storeId])).stdout.trim()).toBe('');
    // A second redrive finds nothing to send.
    expect(await redrive(db, { storeId: d.storeId }, testEnv.natsUrl)).toEqual({ redriven: [], skipped: [] });
    expect(receiver.requests(d.path)).toHaveLength(9);
  });

  it('disables the destination on 410; later deliveries are dead-lettered unsent until it is enabled', async () => {
    const d = await newDestination();
    receiver.program(d.path, [{ status: 410, body: 'gone' }]);
    // Without the destination cache, the worker reads the destination for each delivery: the CLI's enable below
    // is in effect for the redrive at once, with no cache expiry to wait out (the cache has its unit test).
    await withWorker({ WEBHOOK_DESTINATION_CACHE_MS: '0' }, async (w) => {
      const sent = await publishDelivery(d);
      const [dest] = await waitFor(
        () =>
          db.query<{ enabled: boolean; disabled_reason: string | null }>(
            'test.dest',
            'select enabled, disabled_reason from webhook_destinations where store_id = $1 and destination_id = $2',
            [d.storeId, d.destinationId],
          ),
        (rows) => rows[0]?.enabled === false,
      );
      expect(dest!.disabled_reason).toMatch(/^receiver answered 410 Gone at /);
      await drained(d.storeId);
      expect(await deadLetterRows(d)).toEqual([
        expect.objectContaining({ webhook_id: sent.webhookId, attempts: 1, last_status: 410 }),
      ]);
      expect(await counter(w, 'webhook_deliveries_total', { outcome: 'disabled' })).toBe(1);

      const later = await publishDelivery(d, 'Added to Cart');
      await waitFor(
        () => deadLetterRows(d),
        (rows) => rows.length === 2,
      );
      await drained(d.storeId);
      expect((await deadLetterRows(d))[1]).toMatchObject({
        webhook_id: later.webhookId,
        event_name: 'Added to Cart',
        attempts: 0,
        last_status: null,
        last_error: expect.stringMatching(/^destination disabled: receiver answered 410/),
      });
      expect(receiver.requests(d.path)).toHaveLength(1);

      // Redrive skips a disabled destination; enabled again, both go out.
      expect((await redrive(db, { storeId: d.storeId }, testEnv.natsUrl)).skipped).toHaveLength(2);
      await cli(['enable', '--store', d.storeId, '--destination', d.destinationId]);
      const report = await redrive(db, { storeId: d.storeId, destinationId: d.destinationId }, testEnv.natsUrl);
      expect(report.redriven.map((r) => r.webhook_id)).toEqual([sent.webhookId, later.webhookId]);
      await waitFor(acceptedOf(d.path), (r) => r.length === 2, 10_000);
      await drained(d.storeId);
    });
  });

  it('keeps other destinations moving past a slow receiver, which gets one request even beyond ack_wait', async () => {
    const slow = await newDestination();
    const fast = await newDestination();
    receiver.program(slow.path, [{ status: 200, delayMs: 5500 }]);
    await withWorker({ WEBHOOK_TIMEOUT_MS: '9000', WEBHOOK_CONCURRENCY: '4' }, async () => {
      await publishDelivery(slow);
      await waitFor(requestsOf(slow.path), (r) => r.length === 1);
      for (let i = 0; i < 6; i++) await publishDelivery(fast);
      await waitFor(acceptedOf(fast.path), (r) => r.length === 6);
      // All six went through while the slow attempt was still waiting for its answer (how long they took beside it
      // is a figure of `npm run bench -- webhooks`).
      expect(receiver.requests(slow.path).map((r) => r.answered || r.clientGone)).toEqual([false]);
      expect(receiver.accepted(slow.path)).toHaveLength(0);
      await waitFor(acceptedOf(slow.path), (r) => r.length === 1);
      await drained(slow.storeId);
      await drained(fast.storeId);
    });
    // working() kept the 5.5 s attempt from being redelivered after the 4 s ack_wait.
    expect(receiver.requests(slow.path)).toHaveLength(1);
    expect(receiver.requests(fast.path)).toHaveLength(6);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The worker as a process
// ---------------------------------------------------------------------------------------------------------------

describe('worker process', () => {
  const spawnWorker = async (extra: Record<string, string> = {}): Promise<{ child: Child; port: number }> => {
    const port = await freePort();
    const child = spawnTs(
      'webhook-worker/src/app/main.ts',
      workerEnv({ LOG_LEVEL: 'info', WEBHOOK_HEALTH_PORT: String(port), ...extra }),
    );
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/readyz`)
          .then((r) => r.status)
          .catch(() => 0),
      (s) => s === 200,
      30_000,
      100,
    );
    return { child, port };
  };

  it('loses no delivery when killed with SIGKILL while retrying and mid-attempt', async () => {
    const d = await newDestination();
    receiver.program(d.path, [
      { status: 500 },
      { status: 200, delayMs: 60_000 }, // the worker dies while waiting for this answer
      { status: 200 },
    ]);
    const backoff = { WEBHOOK_BACKOFF_MS: '1500,1500,1500,1500,1500,1500,1500', WEBHOOK_TIMEOUT_MS: '30000' };

    // 1: the first attempt fails; killed while the retry is scheduled.
    const first = await spawnWorker(backoff);
    const sent = await publishDelivery(d);
    await waitFor(requestsOf(d.path), (r) => r[0]?.answered === true);
    // The worker counts the retry once it has nak-ed the message with its 1.5 s delay.
    await waitFor(
      () => fetch(`http://127.0.0.1:${first.port}/metrics`).then((r) => r.text()),
      (text) => /^webhook_deliveries_total\{outcome="retry"\} 1$/m.test(text),
    );
    first.child.proc.kill('SIGKILL');
    expect((await first.child.exited).signal).toBe('SIGKILL');

    // 2: the retry is delivered to the next worker; killed during that attempt.
    const second = await spawnWorker(backoff);
    await waitFor(requestsOf(d.path), (r) => r.length === 2, 10_000);
    second.child.proc.kill('SIGKILL');
    expect((await second.child.exited).signal).toBe('SIGKILL');

    // 3: the unacknowledged attempt comes back after ack_wait and is delivered.
    const third = await spawnWorker(backoff);
    try {
      // Redelivered ack_wait (4 s) after the kill; room for a slow start-up on a busy machine. On a timeout the
      // workers' logs say where the delivery stood.
      await waitFor(acceptedOf(d.path), (r) => r.length === 1, 60_000).catch((err: Error) => {
        const logs = [first, second, third].map((c, i) => `--- worker ${i + 1}\n${c.child.output().slice(-3000)}`);
        throw new Error(`${err.message}\n${logs.join('\n')}`);
      });
      await drained(d.storeId);
      const metrics = await (await fetch(`http://127.0.0.1:${third.port}/metrics`)).text();
      expect(metrics).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} 1$/m);
      expect(metrics).toMatch(/^webhook_delivery_duration_seconds_bucket/m);
    } finally {
      third.child.proc.kill('SIGTERM');
      expect((await third.child.exited).code).toBe(0);
    }
    const reqs = receiver.requests(d.path);
    expect(reqs).toHaveLength(3);
    expect(reqs[1]!.clientGone).toBe(true);
    expect(receiver.accepted(d.path)).toHaveLength(1);
    for (const r of reqs) expect(header(r, 'webhook-id')).toBe(sent.webhookId);
    // Attempts are logged with destination, status and attempt number, never the secret.
    expect(third.child.output()).toContain(`"destination":"${d.destinationId}"`);
    expect(third.child.output()).toMatch(/"attempt":3,.*"status":200/);
    for (const c of [first, second, third]) expect(c.child.output()).not.toContain(d.secret.slice(6));
  });

  it('drains on SIGTERM: the attempt in flight finishes and is acknowledged', async () => {
    const d = await newDestination();
    // The receiver answers when the test lets it: the attempt is in flight for as long as the test needs, within
    // timeouts far beyond it. How long a drain takes is a figure of `npm run bench -- webhooks`.
    let answer: () => void = () => undefined;
    receiver.program(d.path, [{ status: 200, hold: new Promise<void>((r) => (answer = r)) }]);
    const { child, port } = await spawnWorker({ WEBHOOK_TIMEOUT_MS: '120000', WEBHOOK_SHUTDOWN_TIMEOUT_MS: '120000' });
    await publishDelivery(d);
    await waitFor(requestsOf(d.path), (r) => r.length === 1);
    child.proc.kill('SIGTERM');
    // Not ready while draining: it says so (503), it has not merely gone away.
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/readyz`)
          .then((r) => r.status)
          .catch(() => 0),
      (s) => s === 503,
      30_000,
      20,
    );
    expect(child.proc.exitCode).toBeNull();
    answer();
    expect((await child.exited).code).toBe(0);
    expect(receiver.accepted(d.path)).toHaveLength(1);
    // The attempt was in flight when the drain began, and was delivered after. By the lines' times: the final
    // "stopped" line may reach the output before the attempt's.
    const lines = child
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { time: string; msg: string; inFlight?: number; outcome?: string });
    const draining = lines.find((l) => l.msg.startsWith('draining'));
    const delivered = lines.find((l) => l.outcome === 'delivered');
    expect(draining?.inFlight).toBe(1);
    expect(Date.parse(delivered!.time)).toBeGreaterThanOrEqual(Date.parse(draining!.time));
    expect(await leftInStream(d.storeId)).toBe(0);
  });

  it('exits 1 listing every configuration problem', async () => {
    const child = spawnTs('webhook-worker/src/app/main.ts', {
      NATS_URL: '',
      DATABASE_URL: '',
      WEBHOOK_BACKOFF_MS: '5s,1m',
      WEBHOOK_CONCURRENCY: '0',
    });
    expect((await child.exited).code).toBe(1);
    const out = child.output();
    for (const v of ['NATS_URL', 'DATABASE_URL', 'WEBHOOK_BACKOFF_MS', 'WEBHOOK_CONCURRENCY']) expect(out).toContain(v);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------------------------

describe('store webhook CLI', () => {
  it('adds, lists, rotates, disables, enables and removes destinations; the secret is shown only when made', async () => {
    const { store } = await createTestStore(db);
    const url = receiver.urlFor('/cli');

    const added = JSON.parse(
      (await cli(['add', '--store', store.store_id, '--url', url, '--events', 'Checkout Started, Subscribe'])).stdout,
    ) as { destination_id: string; url: string; events: string[]; secret: string };
    expect(added).toEqual({
      destination_id: expect.stringMatching(/^wd_[a-z0-9]+$/),
      url,
      events: ['Checkout Started', 'Subscribe'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(added.secret.slice(6), 'base64')).toHaveLength(32);
    const all = JSON.parse((await cli(['add', '--store', store.store_id, '--url', `${url}/2`])).stdout) as {
      destination_id: string;
      events: string[];
    };
    expect(all.events).toEqual([...IDENTITY_EVENTS]);

    const listOut = (await cli(['list', '--store', store.store_id])).stdout;
    expect(listOut).not.toContain(added.secret);
    expect(listOut).not.toContain('secret');
    const list = JSON.parse(listOut) as Array<Record<string, unknown>>;
    expect(list.map((x) => x.destination_id)).toEqual([added.destination_id, all.destination_id]);
    expect(list[0]).toMatchObject({
      url,
      events: ['Checkout Started', 'Subscribe'],
      enabled: true,
      disabled_reason: null,
    });

    const target = ['--store', store.store_id, '--destination', added.destination_id];
    const rotated = JSON.parse((await cli(['rotate-secret', ...target])).stdout) as { secret: string };
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(added.secret);
    const [row] = await db.query<{ secret: string }>(
      'test.secret',
      'select secret from webhook_destinations where store_id = $1 and destination_id = $2',
      [store.store_id, added.destination_id],
    );
    expect(row!.secret).toBe(rotated.secret);

    expect(JSON.parse((await cli(['disable', ...target, '--reason', 'receiver migrating'])).stdout)).toEqual({
      destination_id: added.destination_id,
      enabled: false,
      disabled_reason: 'receiver migrating',
    });
    expect((JSON.parse((await cli(['list', '--store', store.store_id])).stdout) as unknown[])[0]).toMatchObject({
      enabled: false,
      disabled_reason: 'receiver migrating',
    });
    expect(JSON.parse((await cli(['enable', ...target])).stdout)).toEqual({
      destination_id: added.destination_id,
      enabled: true,
      disabled_reason: null,
    });
    expect(JSON.parse((await cli(['remove', ...target])).stdout)).toEqual({
      destination_id: added.destination_id,
      removed: true,
    });
    const left = JSON.parse((await cli(['list', '--store', store.store_id])).stdout) as Array<{
      destination_id: string;
    }>;
    expect(left.map((x) => x.destination_id)).toEqual([all.destination_id]);
  });

  it('validates its input and explains itself', async () => {
    const { store } = await createTestStore(db);
    const [badUrl, badEvent, noStore, noDest, help] = await Promise.all([
      cliFails(['add', '--store', store.store_id, '--url', 'ftp://example.com/x']),
      cliFails(['add', '--store', store.store_id, '--url', 'https://example.com/x', '--events', 'checkout started']),
      cliFails(['list', '--store', 'st_nosuchstore']),
      cliFails(['disable', '--store', store.store_id, '--destination', 'wd_nosuch']),
      cli(['--help']),
    ]);
    expect(badUrl.stderr).toMatch(/only http and https URLs are allowed/);
    expect(badEvent.stderr).toMatch(/unknown event "checkout started"; use the exact names: Active On site/);
    expect(noStore).toEqual({ code: 3, stderr: expect.stringMatching(/no store with id st_nosuchstore/) });
    expect(noDest).toEqual({ code: 3, stderr: expect.stringMatching(/has no webhook destination wd_nosuch/) });
    for (const sub of ['add', 'list', 'disable', 'enable', 'remove', 'rotate-secret', 'dead-letters', 'redrive']) {
      expect(help.stdout).toContain(sub);
    }
    const addHelp = (await cli(['add', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(addHelp).toContain('--events <list>');
    expect(addHelp).toContain('Checkout Started');
    expect(
      await db.query('test.none', 'select 1 from webhook_destinations where store_id = $1', [store.store_id]),
    ).toEqual([]);
  });
});
