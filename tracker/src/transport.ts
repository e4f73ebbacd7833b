/**
 * Delivery of events to `/collect/<ingest key>`: batches of at most 20 events or 2 s, sent as `text/plain`
 * JSON (a CORS "simple" request, so no preflight), one request at a time. Unsent events are kept in a
 * store (localStorage in the page) so that a reload or the next visit sends them; failures are retried
 * with jittered exponential backoff on network errors, 408, 429 and 5xx, never on other 4xx, and a
 * Retry-After header is honoured. Event ids make every retry idempotent on the server.
 *
 * No DOM here: the Shopify pixel runs this in a web worker.
 */

/** Where unsent events survive the page. */
export interface QueueStore {
  load(): unknown[];
  save(events: readonly unknown[]): void;
}

export interface SenderOptions {
  url: string;
  /** Events per request (default 20). */
  maxBatch?: number;
  /** Longest wait before a partial batch is sent (default 2000 ms). */
  flushMs?: number;
  /** Unsent events kept at most; the oldest are dropped beyond (default 200). */
  maxQueued?: number;
  store?: QueueStore;
  /** Let a request outlive the page (the pixel's thank-you page may close at once). */
  keepalive?: boolean;
}

/** A beacon body stays under the browsers' 64 KiB in-flight limit. */
export const BEACON_MAX_BYTES = 60_000;
const MAX_BACKOFF_MS = 60_000;

/** Delay asked by a Retry-After header (seconds or an HTTP date), in ms from `now`. */
export function retryAfterMs(header: string | null, now: number): number {
  if (!header) return 0;
  const seconds = Number(header);
  if (header.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now) : 0;
}

/** Exponential backoff from 1 s, capped at 60 s, jittered between half and all of the step. */
export function backoffMs(failures: number, random: number): number {
  const step = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
  return step / 2 + (step / 2) * random;
}

/** Worth retrying: the server may take it later. Other 4xx would fail the same way again. */
export const isRetryable = (status: number): boolean =>
  status === 0 || status === 408 || status === 429 || status >= 500;

const utf8Length = (s: string): number =>
  typeof TextEncoder === 'undefined' ? s.length * 3 : new TextEncoder().encode(s).length;

function isEvent(v: unknown): v is { id: string } {
  return typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';
}

export class Sender<E extends { id: string }> {
  private queue: E[] = [];
  private inFlight: E[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDue = 0;
  private failures = 0;
  /** No request before this time (backoff, Retry-After). */
  private notBefore = 0;
  private readonly maxBatch: number;
  private readonly flushMs: number;
  private readonly maxQueued: number;

  constructor(private readonly o: SenderOptions) {
    this.maxBatch = o.maxBatch ?? 20;
    this.flushMs = o.flushMs ?? 2000;
    this.maxQueued = o.maxQueued ?? 200;
    const saved = o.store ? o.store.load() : [];
    this.queue = (Array.isArray(saved) ? saved.filter(isEvent) : []).slice(-this.maxQueued) as E[];
    if (this.queue.length) this.schedule(this.flushMs);
  }

  /** Events not yet acknowledged by the server (waiting or in flight). */
  pending(): number {
    return this.queue.length + this.inFlight.length;
  }

  add(event: E): void {
    this.queue.push(event);
    const excess = this.pending() - this.maxQueued;
    if (excess > 0) this.queue.splice(0, Math.min(excess, this.queue.length));
    this.persist();
    this.schedule(this.queue.length >= this.maxBatch ? 0 : this.flushMs);
  }

  /** Forgets every unsent event (consent withdrawn). */
  clear(): void {
    this.queue = [];
    this.inFlight = [];
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.persist();
  }

  /**
   * The page is going away: hand what is waiting to `sendBeacon` (or a keepalive fetch), in bodies under
   * 60 KB. What the browser accepted is done; what it refused stays stored for the next page. A request
   * in flight keeps its events stored until it answers, and the server drops the copy if both arrive.
   */
  flushBeacon(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (Date.now() < this.notBefore) return;
    while (this.queue.length) {
      let bytes = 2;
      let n = 0;
      while (n < this.queue.length) {
        const size = utf8Length(JSON.stringify(this.queue[n])) + 1;
        if (bytes + size > BEACON_MAX_BYTES) break;
        bytes += size;
        n++;
      }
      if (n === 0 || !this.beacon(JSON.stringify(this.queue.slice(0, n)))) break;
      this.queue.splice(0, n);
    }
    this.persist();
  }

  private beacon(body: string): boolean {
    try {
      if (typeof navigator !== 'undefined' && typeof navigator.sendBeacon === 'function') {
        return navigator.sendBeacon(this.o.url, body);
      }
      void this.post(body, true).catch(() => undefined);
      return true;
    } catch {
      return false;
    }
  }

  private post(body: string, keepalive: boolean): Promise<Response> {
    return fetch(this.o.url, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
      credentials: 'omit',
      mode: 'cors',
      keepalive,
    });
  }

  private persist(): void {
    if (this.o.store) this.o.store.save(this.inFlight.concat(this.queue));
  }

  private schedule(delayMs: number): void {
    const due = Math.max(Date.now() + delayMs, this.notBefore);
    if (this.timer !== undefined) {
      if (this.timerDue <= due) return;
      clearTimeout(this.timer);
    }
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch {
        // Never into the page; the events stay stored for the next attempt.
      }
    }, due - Date.now());
  }

  private flush(): void {
    if (this.inFlight.length || !this.queue.length) return;
    if (Date.now() < this.notBefore) return this.schedule(0);
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight = batch;
    let sent: Promise<Response>;
    try {
      sent = this.post(JSON.stringify(batch), this.o.keepalive === true);
    } catch (err) {
      sent = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    sent
      .then(
        (res) => this.settle(batch, res.status, res.headers.get('Retry-After')),
        () => this.settle(batch, 0, null),
      )
      .catch(() => undefined);
  }

  private settle(batch: E[], status: number, retryAfter: string | null): void {
    if (this.inFlight !== batch) return; // cleared meanwhile
    this.inFlight = [];
    if (isRetryable(status)) {
      this.failures++;
      this.queue = batch.concat(this.queue).slice(-this.maxQueued);
      const now = Date.now();
      this.notBefore = now + Math.max(backoffMs(this.failures, Math.random()), retryAfterMs(retryAfter, now));
    } else {
      // Accepted, or refused for good (a bad event is reported by the server and never gets better).
      this.failures = 0;
      this.notBefore = 0;
    }
    this.persist();
    if (this.queue.length) this.schedule(0);
  }
}
