/**
 * Which stores' events go to the overflow partitions (docs/decisions.md, Ingestion, "A store over its live rate
 * overflows"). Each store has a token bucket of `burst` events refilled at `eventsPerSecond`. A request whose events
 * do not fit in its store's bucket puts the store in overflow: its requests are then published to the partitions'
 * overflow twins, which the daemon serves after the live partitions, until the store has sent under its rate long
 * enough for its bucket to fill again. The backlog of a store replaying its history thus does not queue ahead of
 * the other stores' events, and it goes back to the live partitions only once it has slowed down, so that its own
 * events do not keep changing lanes.
 *
 * While other stores send live events, a store is also paced: its requests are held so that it is accepted at no
 * more than `pacedEventsPerSecond`, and refused (to be retried) when that would hold one longer than `maxDelayMs`.
 * Accepting a replay as fast as it comes would take the machine's CPU from the daemon (the API and the broker at
 * full speed), and the other stores' events would wait for the push itself; alone, a store is accepted at full
 * speed.
 *
 * A request stays whole in one lane. In memory, per API instance: behind a load balancer each instance measures its
 * own share of a store's requests, so the rates are per instance.
 */
export interface StoreLiveRateOptions {
  /** Events per second a store may send to the live partitions; 0: every store always live. */
  eventsPerSecond: number;
  /** Events a store may send at once above its rate before it overflows. */
  burst: number;
  /** Events per second a store is accepted at while other stores send live; 0: not paced. */
  pacedEventsPerSecond?: number;
  /** Longest hold of a paced request; past it the request is refused. */
  maxDelayMs?: number;
  /** Another store counts as sending while its last live request is this recent. */
  othersRecentMs?: number;
  now: () => number;
  /** Stores kept in memory; past it, the stores whose bucket is full again are forgotten (they are live anyway). */
  maxStores?: number;
}

/** Where a request's events go, and how long it is held first. */
export type LaneDecision = { lane: 'live' | 'overflow'; delayMs: number } | { lane: 'refused'; retryAfterMs: number };

export interface StoreLiveRate {
  /**
   * Takes `events` from the store's bucket and says where they go; `paced: false` for requests that must not be
   * held or refused for pacing (a shopper's browser).
   */
  route(storeId: string, events: number, paced?: boolean): LaneDecision;
  /** Stores in overflow now (for a gauge). */
  overflowing(): number;
}

interface Bucket {
  tokens: number;
  at: number;
  overflow: boolean;
  /** While paced: when the store's next events may be accepted. */
  paceAt: number;
}

export function createStoreLiveRate(opts: StoreLiveRateOptions): StoreLiveRate {
  const buckets = new Map<string, Bucket>();
  const maxStores = opts.maxStores ?? 100_000;
  const capacity = Math.max(1, opts.burst);
  const pacedRate = opts.pacedEventsPerSecond ?? 0;
  const maxDelayMs = opts.maxDelayMs ?? 10_000;
  const othersRecentMs = opts.othersRecentMs ?? 5_000;
  /** The stores whose last live request is recent, and when it was, oldest first. */
  const recentLive = new Map<string, number>();

  const othersLive = (storeId: string, t: number): boolean => {
    for (const [store, at] of recentLive) {
      if (t - at >= othersRecentMs) recentLive.delete(store);
      else if (store !== storeId) return true;
    }
    return false;
  };

  /** The hold of a request while other stores send live events, or its refusal; null when it is not held. */
  const pace = (storeId: string, b: Bucket, events: number, t: number): { delayMs: number } | null => {
    if (pacedRate <= 0 || !othersLive(storeId, t)) {
      b.paceAt = t;
      return { delayMs: 0 };
    }
    const start = Math.max(t, b.paceAt);
    if (start - t > maxDelayMs) return null;
    b.paceAt = start + (events / pacedRate) * 1000;
    return { delayMs: start - t };
  };

  const refill = (b: Bucket, t: number): void => {
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * opts.eventsPerSecond);
    b.at = t;
    // Back to live once its bucket is full again, and not while its requests are being held: a store sent as fast as
    // it is let through, never faster, so its bucket would fill whenever its overflow rate is under its live rate.
    if (b.overflow && b.tokens >= capacity && b.paceAt <= t) b.overflow = false;
  };

  const forgetFullBuckets = (t: number): void => {
    for (const [store, b] of buckets) {
      refill(b, t);
      if (!b.overflow && b.tokens >= capacity) buckets.delete(store);
    }
  };

  return {
    route(storeId, events, paced = true) {
      if (opts.eventsPerSecond <= 0) return { lane: 'live', delayMs: 0 };
      const t = opts.now();
      let b = buckets.get(storeId);
      if (!b) {
        if (buckets.size >= maxStores) forgetFullBuckets(t);
        b = { tokens: capacity, at: t, overflow: false, paceAt: t };
        buckets.set(storeId, b);
      } else refill(b, t);
      if (!b.overflow && b.tokens < events) b.overflow = true;
      // In overflow the store's events still drain its bucket: it comes back only once it sends under its rate.
      b.tokens = Math.max(0, b.tokens - events);
      const lane = b.overflow ? 'overflow' : 'live';
      if (lane === 'live') {
        // Kept in the order of their last live request, so that the stale ones are met and dropped first.
        recentLive.delete(storeId);
        recentLive.set(storeId, t);
      }
      if (!paced) return { lane, delayMs: 0 };
      const held = pace(storeId, b, events, t);
      return held ? { lane, delayMs: held.delayMs } : { lane: 'refused', retryAfterMs: b.paceAt - t };
    },
    overflowing() {
      const t = opts.now();
      let n = 0;
      for (const b of buckets.values()) {
        refill(b, t);
        if (b.overflow) n++;
      }
      return n;
    },
  };
}
