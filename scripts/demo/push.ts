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
 */
import type { AdSpendRow, ShopOrder, ShopProduct } from '../../contracts/src/pushes';
import type { DemoItem } from './generate';

/** What `pushDemo` needs of a stream; a `DemoPlan` is one. */
export interface DemoSource {
  readonly products: readonly ShopProduct[];
  readonly adSpend: readonly AdSpendRow[];
  /** Events and order versions in time order. */
  items(): Iterable<DemoItem>;
}

export interface PushProgress {
  products: number;
  events: number;
  orders: number;
  adSpend: number;
  requests: number;
}

export interface PushDemoOptions {
  /** Base URL of the query API, e.g. `http://127.0.0.1:8080`. */
  apiUrl: string;
  ingestKey: string;
  stream: DemoSource;
  /** Events per request, default 500 (the API's maximum). */
  batchSize?: number;
  /** Requests in flight, default 4. */
  concurrency?: number;
  /** Bound on a request body, default 1,000,000 bytes (the API accepts 1 MiB). */
  maxBodyBytes?: number;
  /** Order versions per request, default 100. */
  orderBatchSize?: number;
  /** API version path segment, default `v2-4-2`. */
  version?: string;
  /** Retries of a 429 or 503 answer, default 5 (waiting `Retry-After`, else 0.5 s doubling). */
  retries?: number;
  /** Called after every acknowledged request. */
  onProgress?: (progress: PushProgress) => void;
  /** For tests; default the global `fetch`. */
  fetch?: typeof fetch;
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

/** Pushes `opts.stream`; resolves with the counts once everything is acknowledged. */
export async function pushDemo(opts: PushDemoOptions): Promise<PushDemoResult> {
  const batchSize = opts.batchSize ?? 500;
  const concurrency = opts.concurrency ?? 4;
  const maxBodyBytes = opts.maxBodyBytes ?? 1_000_000;
  const orderBatchSize = opts.orderBatchSize ?? 100;
  const version = opts.version ?? 'v2-4-2';
  const retries = opts.retries ?? 5;
  const doFetch = opts.fetch ?? fetch;
  const base = opts.apiUrl.replace(/\/+$/, '');
  if (!(batchSize >= 1) || !(concurrency >= 1)) throw new RangeError('batchSize and concurrency must be at least 1');

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

  async function post(path: string, body: string, items: number): Promise<void> {
    const url = `${base}/${version}/api/${path}`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': opts.ingestKey },
          body,
        });
      } catch (err) {
        // fetch hides the reason (ECONNREFUSED, ...) in `cause`.
        const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
        throw new Error(`POST ${url} failed: ${cause}`, { cause: err });
      }
      const text = await res.text();
      if ((res.status === 429 || res.status === 503) && attempt < retries) {
        const after = Number(res.headers.get('retry-after'));
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

  /** JSON array bodies of at most `max` items and `maxBodyBytes` bytes. */
  function* bodies(path: string, items: Iterable<unknown>, max: number): Generator<{ body: string; n: number }> {
    let parts: string[] = [];
    let bytes = 2;
    for (const item of items) {
      const json = JSON.stringify(item);
      const size = Buffer.byteLength(json) + 1;
      if (size + 2 > maxBodyBytes) throw new RangeError(`a ${path} item of ${size} bytes exceeds maxBodyBytes`);
      if (parts.length >= max || bytes + size > maxBodyBytes) {
        yield { body: `[${parts.join(',')}]`, n: parts.length };
        parts = [];
        bytes = 2;
      }
      parts.push(json);
      bytes += size;
    }
    if (parts.length > 0) yield { body: `[${parts.join(',')}]`, n: parts.length };
  }

  async function pushAll(
    path: string,
    items: Iterable<unknown>,
    max: number,
    done: (n: number) => void,
  ): Promise<void> {
    for (const { body, n } of bodies(path, items, max)) {
      await submit(async () => {
        await post(path, body, n);
        done(n);
        progress();
      });
    }
    await drain();
  }

  await pushAll('store/products', opts.stream.products, 100, (n) => (counts.products += n));

  // Events go out in numbered batches. An order version waits until every batch holding an event before it has been
  // acknowledged (`need` <= `ackedUpTo`), then goes out with the other ready versions, one order request at a time
  // (so a refund version never overtakes its order), without holding back the events.
  let batch: string[] = [];
  let batchBytes = 2;
  let nextBatch = 0;
  const acked: boolean[] = [];
  let ackedUpTo = 0;
  const pending: { order: ShopOrder; need: number }[] = [];
  let head = 0;
  let ordersBusy = false;

  const flushEvents = async (): Promise<void> => {
    if (batch.length === 0) return;
    const body = `[${batch.join(',')}]`;
    const n = batch.length;
    const number = nextBatch++;
    batch = [];
    batchBytes = 2;
    await submit(async () => {
      await post('events', body, n);
      counts.events += n;
      acked[number] = true;
      while (acked[ackedUpTo] === true) ackedUpTo++;
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
    // Wait for a full request unless the oldest ready version has waited ten batches.
    if (!final && ready - head < orderBatchSize && nextBatch - pending[head]!.need < 10) return;
    const requests = [
      ...bodies(
        'store/orders',
        pending.slice(head, ready).map((p) => p.order),
        orderBatchSize,
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

  for (const item of opts.stream.items()) {
    if (item.kind === 'order') {
      pending.push({ order: item.order, need: nextBatch + (batch.length > 0 ? 1 : 0) });
      continue;
    }
    const json = JSON.stringify(item.event);
    const size = Buffer.byteLength(json) + 1;
    if (size + 2 > maxBodyBytes) throw new RangeError(`event ${item.event.id} of ${size} bytes exceeds maxBodyBytes`);
    if (batch.length >= batchSize || batchBytes + size > maxBodyBytes) {
      await flushEvents();
      await sendOrders(false);
    }
    batch.push(json);
    batchBytes += size;
  }
  await flushEvents();
  await drain();
  await sendOrders(true);
  await drain();

  await pushAll('store/ad-spend', opts.stream.adSpend, 500, (n) => (counts.adSpend += n));

  counts.seconds = (performance.now() - started) / 1000;
  return counts;
}
