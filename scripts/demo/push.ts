/**
 * Pushes a demo stream through the ingestion routes:
 * 1. products (`POST /{version}/api/store/products`);
 * 2. events in batches (`POST /{version}/api/events`, at most `batchSize` events and `maxBodyBytes` per request,
 *    `concurrency` requests in flight), interleaved with order versions (`POST /{version}/api/store/orders`):
 *    an order batch is sent only once every event before it in the stream has been acknowledged, so an order
 *    never arrives before its checkout_completed; refund and cancellation versions come later in the stream;
 * 3. ad spend rows (`POST /{version}/api/store/ad-spend`).
 * Every request carries `X-Ingest-Key`. Any answer but 200, or a 200 that rejects an item, stops the push with a
 * `DemoPushError` holding the response body. 429 and 503 (the API's "retry" answers) are retried a few times.
 *
 * A stream is cut into requests as it is sent, so that a million events never sit in memory at once; a bench
 * renders every body beforehand instead (`preparePush`), because a real sender runs on another machine and its
 * work (expanding the stream, JSON, encoding) would otherwise take the CPU of the servers it measures.
 */
import type { AdSpendRow, ShopProduct } from '../../contracts/src/pushes';
import { postBytes, type PostReply } from '../post-bytes';
import type { DemoItem } from './generate';

/** What `pushDemo` needs of a stream; a `DemoPlan` is one. */
export interface DemoSource {
  readonly products: readonly ShopProduct[];
  readonly adSpend: readonly AdSpendRow[];
  /** Events and order versions in time order. */
  items(): Iterable<DemoItem>;
}

/** A stream whose request bodies are already rendered (`preparePush`); sent as it was cut. */
export interface PreparedPush {
  readonly products: readonly RequestBody[];
  /** Event requests and order versions in stream order. */
  readonly steps: readonly PushStep[];
  readonly adSpend: readonly RequestBody[];
}

/** A JSON array body, as bytes, and its number of items. */
export interface RequestBody {
  body: Uint8Array;
  n: number;
}

/**
 * One step of the event phase: a request of events, or an order version that may go once every event request up
 * to the `need`-th (counted from 1) has been acknowledged, so that it never arrives before its checkout_completed.
 */
export type PushStep = ({ kind: 'events' } & RequestBody) | { kind: 'order'; json: string; need: number };

/** How a stream is cut into requests. */
export interface PushShape {
  /** Events per request, default 500 (the API's maximum). */
  batchSize?: number;
  /** Bound on a request body, default 1,000,000 bytes (the API accepts 1 MiB). */
  maxBodyBytes?: number;
}

export interface PushProgress {
  products: number;
  events: number;
  orders: number;
  adSpend: number;
  requests: number;
}

export interface PushDemoOptions extends PushShape {
  /** Base URL of the query API, e.g. `http://127.0.0.1:8080`. */
  apiUrl: string;
  ingestKey: string;
  /** Cut into requests by this push's `PushShape`, or already cut by `preparePush`. */
  stream: DemoSource | PreparedPush;
  /** Requests in flight, default 4. */
  concurrency?: number;
  /** Order versions per request, default 100. */
  orderBatchSize?: number;
  /** API version path segment, default `v2-4-2`. */
  version?: string;
  /** Retries of a 429 or 503 answer, default 5 (waiting `Retry-After`, else 0.5 s doubling). */
  retries?: number;
  /** Called after every acknowledged request. */
  onProgress?: (progress: PushProgress) => void;
}

export interface PushDemoResult extends PushProgress {
  /** Items the stream had already seen (a re-run of the same seed): stored once. */
  duplicates: number;
  /** Items accepted with data-quality warnings. */
  warnings: number;
  seconds: number;
}

/** A push the API refused; `body` is the response text. */
export class DemoPushError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message);
    this.name = 'DemoPushError';
  }
}

interface IngestReply {
  data?: { accepted?: number; duplicates?: number; warnings?: number; rejected?: unknown[] } | null;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_MAX_BODY_BYTES = 1_000_000;

/** JSON array bodies of at most `max` items and `maxBodyBytes` bytes, cut as items already rendered as JSON come. */
class BodyCutter {
  private parts: string[] = [];
  private bytes = 2;

  constructor(
    private readonly max: number,
    private readonly maxBodyBytes: number,
  ) {}

  /** Whether a body is being filled. */
  get filling(): boolean {
    return this.parts.length > 0;
  }

  /** Adds an item (`what` names it in the error); returns the body closed to make room for it, if any. */
  add(json: string, what: string): RequestBody | null {
    const size = Buffer.byteLength(json) + 1;
    if (size + 2 > this.maxBodyBytes) throw new RangeError(`${what} of ${size} bytes exceeds maxBodyBytes`);
    const closed = this.parts.length >= this.max || this.bytes + size > this.maxBodyBytes ? this.close() : null;
    this.parts.push(json);
    this.bytes += size;
    return closed;
  }

  /** The body being filled, closed; null when there is none. */
  close(): RequestBody | null {
    if (this.parts.length === 0) return null;
    const closed = { body: Buffer.from(`[${this.parts.join(',')}]`), n: this.parts.length };
    this.parts = [];
    this.bytes = 2;
    return closed;
  }
}

function* joinBodies(path: string, jsons: Iterable<string>, max: number, maxBodyBytes: number): Generator<RequestBody> {
  const cutter = new BodyCutter(max, maxBodyBytes);
  for (const json of jsons) {
    const full = cutter.add(json, `a ${path} item`);
    if (full) yield full;
  }
  const last = cutter.close();
  if (last) yield last;
}

function* jsonOf(items: Iterable<unknown>): Generator<string> {
  for (const item of items) yield JSON.stringify(item);
}

/** The event requests of `items` and their order versions, in stream order (see `PushStep`). */
function* pushSteps(items: Iterable<DemoItem>, shape: PushShape): Generator<PushStep> {
  const batchSize = shape.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!(batchSize >= 1)) throw new RangeError('batchSize must be at least 1');
  const cutter = new BodyCutter(batchSize, shape.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  let requests = 0;
  for (const item of items) {
    if (item.kind === 'order') {
      // Every request holding an event before it, the one being filled included.
      yield { kind: 'order', json: JSON.stringify(item.order), need: requests + (cutter.filling ? 1 : 0) };
      continue;
    }
    const full = cutter.add(JSON.stringify(item.event), `event ${item.event.id}`);
    if (full) {
      requests++;
      yield { kind: 'events', ...full };
    }
  }
  const last = cutter.close();
  if (last) yield { kind: 'events', ...last };
}

/** Every request body of `stream`, rendered now (see the module comment); `pushDemo` sends them as they are. */
export function preparePush(stream: DemoSource, shape: PushShape = {}): PreparedPush {
  const maxBodyBytes = shape.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    products: [...joinBodies('store/products', jsonOf(stream.products), 100, maxBodyBytes)],
    steps: [...pushSteps(stream.items(), shape)],
    adSpend: [...joinBodies('store/ad-spend', jsonOf(stream.adSpend), 500, maxBodyBytes)],
  };
}

const isPrepared = (stream: DemoSource | PreparedPush): stream is PreparedPush => 'steps' in stream;

/** Pushes `opts.stream`; resolves with the counts once everything is acknowledged. */
export async function pushDemo(opts: PushDemoOptions): Promise<PushDemoResult> {
  const concurrency = opts.concurrency ?? 4;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const orderBatchSize = opts.orderBatchSize ?? 100;
  const version = opts.version ?? 'v2-4-2';
  const retries = opts.retries ?? 5;
  const base = opts.apiUrl.replace(/\/+$/, '');
  if (!(concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  const stream = opts.stream;
  const [products, steps, adSpend] = isPrepared(stream)
    ? [stream.products, stream.steps, stream.adSpend]
    : [
        joinBodies('store/products', jsonOf(stream.products), 100, maxBodyBytes),
        pushSteps(stream.items(), opts),
        joinBodies('store/ad-spend', jsonOf(stream.adSpend), 500, maxBodyBytes),
      ];

  const started = performance.now();
  const counts: PushDemoResult = {
    products: 0,
    events: 0,
    orders: 0,
    adSpend: 0,
    requests: 0,
    duplicates: 0,
    warnings: 0,
    seconds: 0,
  };
  const progress = (): void => {
    opts.onProgress?.({
      products: counts.products,
      events: counts.events,
      orders: counts.orders,
      adSpend: counts.adSpend,
      requests: counts.requests,
    });
  };

  const headers = { 'Content-Type': 'application/json', 'X-Ingest-Key': opts.ingestKey };
  async function post(path: string, body: Uint8Array, items: number): Promise<void> {
    const url = `${base}/${version}/api/${path}`;
    for (let attempt = 0; ; attempt++) {
      let res: PostReply;
      try {
        res = await postBytes(url, headers, body);
      } catch (err) {
        throw new Error(`POST ${url} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      const text = res.text;
      if ((res.status === 429 || res.status === 503) && attempt < retries) {
        const after = Number(res.retryAfter);
        await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : 500 * 2 ** attempt);
        continue;
      }
      if (res.status !== 200) {
        throw new DemoPushError(`POST /${version}/api/${path} answered ${res.status}: ${text}`, path, res.status, text);
      }
      let reply: IngestReply;
      try {
        reply = JSON.parse(text) as IngestReply;
      } catch {
        throw new DemoPushError(
          `POST /${version}/api/${path} answered 200 with a body that is not JSON: ${text}`,
          path,
          200,
          text,
        );
      }
      const rejected = reply.data?.rejected ?? [];
      if (rejected.length > 0) {
        throw new DemoPushError(
          `POST /${version}/api/${path} rejected ${rejected.length} of ${items} items: ${JSON.stringify(rejected.slice(0, 3))}`,
          path,
          200,
          text,
        );
      }
      counts.requests++;
      counts.duplicates += reply.data?.duplicates ?? 0;
      counts.warnings += reply.data?.warnings ?? 0;
      return;
    }
  }

  // A small pool: at most `concurrency` requests in flight; the first failure stops everything.
  const inflight = new Set<Promise<void>>();
  let failure: Error | null = null;
  const submit = async (task: () => Promise<void>): Promise<void> => {
    while (inflight.size >= concurrency) await Promise.race(inflight);
    if (failure !== null) throw failure;
    const p: Promise<void> = task()
      .catch((err: unknown) => {
        failure ??= err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };
  const drain = async (): Promise<void> => {
    await Promise.all(inflight);
    if (failure !== null) throw failure;
  };

  async function pushAll(path: string, requests: Iterable<RequestBody>, done: (n: number) => void): Promise<void> {
    for (const { body, n } of requests) {
      await submit(async () => {
        await post(path, body, n);
        done(n);
        progress();
      });
    }
    await drain();
  }

  await pushAll('store/products', products, (n) => (counts.products += n));

  // Event requests are numbered from 1 in stream order. An order version waits until every request holding an event
  // before it has been acknowledged (`need` <= `ackedUpTo`), then goes out with the other ready versions, one order
  // request at a time (so a refund version never overtakes its order), without holding back the events.
  let sent = 0;
  const acked: boolean[] = [];
  let ackedUpTo = 0;
  const pending: { json: string; need: number }[] = [];
  let head = 0;
  let ordersBusy = false;

  const sendEvents = async (body: Uint8Array, n: number): Promise<void> => {
    const number = ++sent;
    await submit(async () => {
      await post('events', body, n);
      counts.events += n;
      acked[number] = true;
      while (acked[ackedUpTo + 1] === true) ackedUpTo++;
      progress();
    });
  };

  const sendOrders = async (final: boolean): Promise<void> => {
    if (ordersBusy) {
      if (!final) return;
      await drain();
    }
    let ready = head;
    while (ready < pending.length && pending[ready]!.need <= ackedUpTo) ready++;
    if (ready === head) return;
    // Wait for a full request unless the oldest ready version has waited ten requests.
    if (!final && ready - head < orderBatchSize && sent - pending[head]!.need < 10) return;
    const requests = [
      ...joinBodies(
        'store/orders',
        pending.slice(head, ready).map((p) => p.json),
        orderBatchSize,
        maxBodyBytes,
      ),
    ];
    head = ready;
    if (head > 10_000) {
      pending.splice(0, head);
      head = 0;
    }
    ordersBusy = true;
    await submit(async () => {
      try {
        for (const { body, n } of requests) {
          await post('store/orders', body, n);
          counts.orders += n;
          progress();
        }
      } finally {
        ordersBusy = false;
      }
    });
  };

  for (const step of steps) {
    if (step.kind === 'order') {
      pending.push({ json: step.json, need: step.need });
      continue;
    }
    await sendEvents(step.body, step.n);
    await sendOrders(false);
  }
  await drain();
  await sendOrders(true);
  await drain();

  await pushAll('store/ad-spend', adSpend, (n) => (counts.adSpend += n));

  counts.seconds = (performance.now() - started) / 1000;
  return counts;
}
