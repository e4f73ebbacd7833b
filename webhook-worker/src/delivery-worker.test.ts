import type { WebhookDelivery } from '../../contracts/src/webhook-delivery';
import type { BackoffPolicy } from './backoff';
import type { AttemptResult, PostWebhookOptions } from './deliver';
import {
  createDeliveryHandler,
  createDestinationCache,
  runDeliveryLoop,
  type AttemptRecord,
  type DeliveryMsg,
  type DeliveryPorts,
  type HandledRecord,
  type MessageStream,
} from './delivery-worker';
import type { DeliveryDestination, NewDeadLetter } from './destination-repo';
import { generateSecret, signatureEntry } from './sign';

const NOW = Date.parse('2025-03-01T12:00:00Z');
const SECRET = generateSecret();
const DELIVERY: WebhookDelivery = {
  webhookId: 'msg_abc',
  storeId: 'st_one',
  destinationId: 'wd_one',
  name: 'Checkout Started',
  eventId: 'ev-1',
  body: '{"type":"event","attributes":{}}',
  enqueuedAt: NOW - 1500,
};
const DESTINATION: DeliveryDestination = {
  storeId: 'st_one',
  destinationId: 'wd_one',
  url: 'https://hooks.example:8443/in?token=t',
  secrets: [SECRET],
  enabled: true,
  disabledReason: null,
};
const POLICY: BackoffPolicy = { scheduleMs: [100, 200, 300], jitter: 0, maxRetryAfterMs: 60_000 };

interface FakeMsg extends DeliveryMsg {
  acks: number;
  naks: Array<number | undefined>;
  workings: number;
}

function fakeMsg(deliveryCount = 1, data: unknown = DELIVERY, subject = 'wh.st_one.wd_one'): FakeMsg {
  const m: FakeMsg = {
    subject,
    seq: 42,
    data: Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)),
    deliveryCount,
    msgId: 'msg_abc',
    acks: 0,
    naks: [],
    workings: 0,
    ack: () => void m.acks++,
    nak: (d) => void m.naks.push(d),
    working: () => void m.workings++,
  };
  return m;
}

function setup(opts: {
  result?: AttemptResult;
  destination?: DeliveryDestination | null;
  post?: DeliveryPorts['post'];
}) {
  const posts: PostWebhookOptions[] = [];
  const deadLetters: NewDeadLetter[] = [];
  const disabled: Array<[string, string, string]> = [];
  const attempts: AttemptRecord[] = [];
  const handled: HandledRecord[] = [];
  let clock = NOW;
  const ports: DeliveryPorts = {
    loadDestination: jest.fn(() => Promise.resolve(opts.destination === undefined ? DESTINATION : opts.destination)),
    disableDestination: jest.fn((s: string, d: string, reason: string) => {
      disabled.push([s, d, reason]);
      return Promise.resolve();
    }),
    deadLetter: jest.fn((dl: NewDeadLetter) => {
      deadLetters.push(dl);
      return Promise.resolve(1);
    }),
    post:
      opts.post ??
      ((o) => {
        posts.push(o);
        clock += 120;
        return Promise.resolve(opts.result ?? { kind: 'delivered', status: 200 });
      }),
    now: () => clock,
    random: () => 0.5,
  };
  const handle = createDeliveryHandler(
    ports,
    { timeoutMs: 1000, backoff: POLICY, userAgent: 'test-agent', workingEveryMs: 20, requeueDelayMs: 777 },
    { attempt: (a) => attempts.push(a), handled: (h) => handled.push(h) },
  );
  return { handle, ports, posts, deadLetters, disabled, attempts, handled };
}

const failure = (status: number | null, retryAfterMs: number | null = null): AttemptResult => ({
  kind: 'failed',
  status,
  reason: status === null ? 'timeout' : 'status',
  error: status === null ? 'timed out after 1000 ms' : `HTTP ${status}`,
  retryAfterMs,
});

describe('delivery handler', () => {
  it('POSTs the body signed with the Standard Webhooks headers and acks a 2xx', async () => {
    const t = setup({});
    const msg = fakeMsg();
    await expect(t.handle(msg)).resolves.toBe('delivered');
    expect(msg.acks).toBe(1);
    expect(msg.naks).toEqual([]);
    const post = t.posts[0]!;
    expect(post.url).toBe(DESTINATION.url);
    expect(post.body).toBe(DELIVERY.body);
    expect(post.timeoutMs).toBe(1000);
    const ts = Math.floor(NOW / 1000);
    expect(post.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'test-agent',
      'webhook-id': 'msg_abc',
      'webhook-timestamp': String(ts),
      'webhook-signature': signatureEntry(SECRET, 'msg_abc', ts, DELIVERY.body),
    });
    expect(t.attempts).toEqual([
      {
        storeId: 'st_one',
        destinationId: 'wd_one',
        webhookId: 'msg_abc',
        eventName: 'Checkout Started',
        attempt: 1,
        host: 'hooks.example:8443',
        status: 200,
        statusClass: '2xx',
        latencyMs: 120,
        outcome: 'delivered',
      },
    ]);
    expect(t.handled).toEqual([expect.objectContaining({ outcome: 'delivered', lagMs: 1620 })]);
    // Never the secret in what is logged.
    expect(JSON.stringify([t.attempts, t.handled])).not.toContain(SECRET.slice(6));
  });

  it.each([
    [1, failure(500), 100],
    [2, failure(null), 200],
    [3, failure(429), 300],
    [1, failure(429, 5000), 5000],
    [3, failure(503, 10), 300],
  ])('attempt %d failing with %j is nak-ed for %d ms', async (count, result, delay) => {
    const t = setup({ result });
    const msg = fakeMsg(count);
    await expect(t.handle(msg)).resolves.toBe('retry');
    expect(msg.naks).toEqual([delay]);
    expect(msg.acks).toBe(0);
    expect(t.deadLetters).toEqual([]);
    expect(t.attempts[0]).toMatchObject({
      attempt: count,
      outcome: 'retry',
      retryInMs: delay,
      error: result.kind === 'failed' ? result.error : '',
    });
  });

  it('dead-letters and acks when the schedule is exhausted', async () => {
    const t = setup({ result: failure(502) });
    const msg = fakeMsg(4);
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(msg.acks).toBe(1);
    expect(msg.naks).toEqual([]);
    expect(t.deadLetters).toEqual([
      {
        storeId: 'st_one',
        destinationId: 'wd_one',
        webhookId: 'msg_abc',
        eventName: 'Checkout Started',
        body: DELIVERY.body,
        attempts: 4,
        lastStatus: 502,
        lastError: 'HTTP 502',
      },
    ]);
  });

  it('disables the destination on 410 and dead-letters the delivery', async () => {
    const t = setup({ result: { kind: 'gone', status: 410, error: 'HTTP 410' } });
    const msg = fakeMsg(2);
    await expect(t.handle(msg)).resolves.toBe('disabled');
    expect(msg.acks).toBe(1);
    expect(t.disabled).toEqual([['st_one', 'wd_one', expect.stringMatching(/^receiver answered 410 Gone at 2025-/)]]);
    expect(t.deadLetters[0]).toMatchObject({
      attempts: 2,
      lastStatus: 410,
      lastError: 'HTTP 410; destination disabled',
    });
  });

  it.each([
    ['removed', null, 'destination removed'],
    ['disabled', { ...DESTINATION, enabled: false, disabledReason: 'by hand' }, 'destination disabled: by hand'],
  ])('dead-letters without a POST when the destination is %s', async (_case, destination, reason) => {
    const t = setup({ destination });
    const msg = fakeMsg(3);
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(t.posts).toEqual([]);
    expect(msg.acks).toBe(1);
    expect(t.deadLetters[0]).toMatchObject({ attempts: 2, lastStatus: null, lastError: reason });
  });

  it('dead-letters without a POST when the stored secret cannot sign', async () => {
    const t = setup({ destination: { ...DESTINATION, secrets: ['not-a-secret'] } });
    const msg = fakeMsg();
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(t.posts).toEqual([]);
    expect(msg.acks).toBe(1);
    expect(t.deadLetters[0]).toMatchObject({ lastError: 'cannot sign: secret does not start with whsec_' });
  });

  it('dead-letters a message that does not decode, with what the subject and headers tell', async () => {
    const t = setup({});
    const msg = fakeMsg(1, '{"nope":', 'wh.st_x.wd_y');
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(msg.acks).toBe(1);
    expect(t.deadLetters[0]).toMatchObject({
      storeId: 'st_x',
      destinationId: 'wd_y',
      webhookId: 'msg_abc',
      body: '{"nope":',
      lastError: expect.stringMatching(/^undecodable delivery message: not JSON/),
    });
  });

  it('hands the message back for later when PostgreSQL fails', async () => {
    const t = setup({});
    (t.ports.loadDestination as jest.Mock).mockRejectedValueOnce(new Error('connection terminated'));
    const msg = fakeMsg();
    await expect(t.handle(msg)).resolves.toBe('requeued');
    expect(msg.naks).toEqual([777]);
    expect(msg.acks).toBe(0);
    expect(t.handled[0]).toMatchObject({ outcome: 'requeued', reason: 'internal error' });
  });

  it('does not ack when the dead letter cannot be written', async () => {
    const t = setup({ result: failure(500) });
    (t.ports.deadLetter as jest.Mock).mockRejectedValueOnce(new Error('db down'));
    const msg = fakeMsg(9);
    await expect(t.handle(msg)).resolves.toBe('requeued');
    expect(msg.acks).toBe(0);
    expect(msg.naks).toEqual([777]);
  });

  it('hands an attempt cut short by shutdown back at once', async () => {
    const t = setup({
      result: { kind: 'failed', status: null, reason: 'aborted', error: 'aborted', retryAfterMs: null },
    });
    const msg = fakeMsg(7);
    await expect(t.handle(msg)).resolves.toBe('requeued');
    expect(msg.naks).toEqual([undefined]);
    expect(t.deadLetters).toEqual([]);
  });

  it('keeps a long attempt alive with working()', async () => {
    const msg = fakeMsg();
    // The attempt lasts until the message has been kept alive three times (20 ms apart), or 5 s at most: waiting
    // on the count, not on a fixed time, holds on a busy machine.
    const t = setup({
      post: () =>
        new Promise((resolve) => {
          const deadline = Date.now() + 5000;
          const poll = setInterval(() => {
            if (msg.workings < 3 && Date.now() < deadline) return;
            clearInterval(poll);
            resolve({ kind: 'delivered', status: 200 });
          }, 5);
        }),
    });
    await expect(t.handle(msg)).resolves.toBe('delivered');
    expect(msg.workings).toBeGreaterThanOrEqual(3);
    const after = msg.workings;
    // Once the attempt is over the keep-alive stops: several of its intervals (20 ms) pass without a call.
    await new Promise((r) => setTimeout(r, 100));
    expect(msg.workings).toBe(after);
  });

  it('signs with every secret', async () => {
    const other = generateSecret();
    const t = setup({ destination: { ...DESTINATION, secrets: [SECRET, other] } });
    await t.handle(fakeMsg());
    const ts = Math.floor(NOW / 1000);
    expect(t.posts[0]!.headers['webhook-signature']).toBe(
      `${signatureEntry(SECRET, 'msg_abc', ts, DELIVERY.body)} ${signatureEntry(other, 'msg_abc', ts, DELIVERY.body)}`,
    );
  });
});

describe('destination cache', () => {
  it('caches hits and misses for the TTL, per (store, destination), and can be invalidated', async () => {
    let now = 0;
    const load = jest.fn((s: string, d: string) =>
      Promise.resolve(d === 'gone' ? null : { ...DESTINATION, storeId: s, destinationId: d }),
    );
    const cache = createDestinationCache(load, 5000, () => now);
    await cache.get('s', 'a');
    await cache.get('s', 'a');
    await cache.get('s', 'gone');
    await cache.get('s', 'gone');
    await cache.get('t', 'a');
    expect(load).toHaveBeenCalledTimes(3);
    now = 5000;
    await cache.get('s', 'a');
    expect(load).toHaveBeenCalledTimes(4);
    cache.invalidate('s', 'a');
    await cache.get('s', 'a');
    expect(load).toHaveBeenCalledTimes(5);
  });

  it('shares one lookup between concurrent callers and does not keep failures', async () => {
    const load = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(DESTINATION);
    const cache = createDestinationCache(load, 5000, () => 0);
    const [a, b] = await Promise.allSettled([cache.get('s', 'a'), cache.get('s', 'a')]);
    expect(a.status).toBe('rejected');
    expect(b.status).toBe('rejected');
    await expect(cache.get('s', 'a')).resolves.toBe(DESTINATION);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

/** An async queue standing in for a consumer's messages; close() ends it after what is queued. */
function fakeStream<M>(): MessageStream<M> & { push(m: M): void; pulled: () => number } {
  const queue: M[] = [];
  let closed = false;
  let wake: (() => void) | null = null;
  let pulled = 0;
  return {
    push(m) {
      queue.push(m);
      wake?.();
    },
    pulled: () => pulled,
    close() {
      closed = true;
      wake?.();
      return Promise.resolve();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) {
          pulled++;
          yield queue.shift()!;
        }
        if (closed) return;
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    },
  };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('runDeliveryLoop', () => {
  it('runs up to `concurrency` handlers at once and stops reading at the limit', async () => {
    const stream = fakeStream<number>();
    const release: number[] = [];
    const gates = new Map<number, () => void>();
    let running = 0;
    let maxRunning = 0;
    const loop = runDeliveryLoop(
      stream,
      (m) =>
        new Promise<void>((resolve) => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          gates.set(m, () => {
            running--;
            resolve();
          });
        }),
      { concurrency: 3, release: (m) => release.push(m) },
    );
    for (let i = 0; i < 10; i++) stream.push(i);
    await tick();
    expect(loop.inFlight()).toBe(3);
    expect(stream.pulled()).toBe(3);
    gates.get(1)!();
    await tick();
    expect(loop.inFlight()).toBe(3);
    expect(stream.pulled()).toBe(4);
    expect([...gates.keys()]).toEqual([0, 1, 2, 3]);
    for (let i = 0; i < 10; i++) {
      await tick();
      for (const [k, open] of gates) {
        if (k !== 0) open();
      }
    }
    await tick();
    // One slow message (0) never held the others back.
    expect([...gates.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(maxRunning).toBe(3);
    gates.get(0)!();
    await loop.stop(1000);
    await loop.done;
    expect(release).toEqual([]);
  });

  it('drains: hands back messages not started, waits for those in flight', async () => {
    const stream = fakeStream<number>();
    const released: number[] = [];
    const finished: number[] = [];
    const loop = runDeliveryLoop(
      stream,
      (m) => new Promise<void>((resolve) => setTimeout(() => (finished.push(m), resolve()), 60)),
      { concurrency: 2, release: (m) => released.push(m) },
    );
    for (let i = 0; i < 5; i++) stream.push(i);
    await tick();
    const started = Date.now();
    // Well under the shutdown timeout: the stop waited for the two attempts (60 ms), not for the timeout.
    await loop.stop(20_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(finished).toEqual([0, 1]);
    expect(released).toEqual([2, 3, 4]);
    expect(loop.isRunning()).toBe(false);
  });

  it('aborts attempts that outlive the shutdown timeout', async () => {
    const stream = fakeStream<number>();
    const aborted: number[] = [];
    const loop = runDeliveryLoop(
      stream,
      (m, signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            aborted.push(m);
            resolve();
          }),
        ),
      { concurrency: 4, release: () => undefined },
    );
    stream.push(1);
    stream.push(2);
    await tick();
    const started = Date.now();
    await loop.stop(100);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(aborted).toEqual([1, 2]);
  });

  it('reports handler failures and keeps going', async () => {
    const stream = fakeStream<number>();
    const errors: unknown[] = [];
    const done: number[] = [];
    const loop = runDeliveryLoop(
      stream,
      (m) => (m === 1 ? Promise.reject(new Error('bad')) : Promise.resolve(void done.push(m))),
      { concurrency: 2, release: () => undefined, onError: (e) => errors.push(e) },
    );
    [0, 1, 2].forEach((m) => stream.push(m));
    await tick();
    await loop.stop(100);
    expect(done).toEqual([0, 2]);
    expect(errors).toHaveLength(1);
  });
});
