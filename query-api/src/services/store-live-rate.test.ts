import { createStoreLiveRate, type StoreLiveRate } from './store-live-rate';

const overflows = (rate: StoreLiveRate, store: string, events: number): boolean =>
  rate.route(store, events).lane !== 'live';

describe('createStoreLiveRate', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('keeps a store under its rate live, however long it sends', () => {
    const c = clock();
    const rate = createStoreLiveRate({ eventsPerSecond: 1000, burst: 5000, now: c.now });
    for (let i = 0; i < 600; i++) {
      expect(overflows(rate, 'a', 250)).toBe(false);
      c.advance(250); // 1,000 events/s exactly
    }
    expect(rate.overflowing()).toBe(0);
  });

  it('lets a burst up to the bucket through, then overflows the store', () => {
    const c = clock();
    const rate = createStoreLiveRate({ eventsPerSecond: 1000, burst: 5000, now: c.now });
    const lanes = Array.from({ length: 30 }, () => overflows(rate, 'a', 250));
    expect(lanes.slice(0, 20).every((o) => !o)).toBe(true);
    expect(lanes.slice(20).every((o) => o)).toBe(true);
    expect(rate.overflowing()).toBe(1);
    // Another store is not concerned.
    expect(overflows(rate, 'b', 250)).toBe(false);
  });

  it('keeps a flooding store in overflow, and takes it back once its bucket has filled again', () => {
    const c = clock();
    const rate = createStoreLiveRate({ eventsPerSecond: 1000, burst: 5000, now: c.now });
    while (!overflows(rate, 'a', 500)) c.advance(100);
    // Flooding at 2,000 events/s: the refill never catches up, so the store stays in overflow.
    for (let i = 0; i < 100; i++) {
      c.advance(250);
      expect(overflows(rate, 'a', 500)).toBe(true);
    }
    // At half its rate, it stays in overflow until the bucket is full: 5,000 tokens at a net 500/s, about 10 s
    // (the last step's refill counts before its events are taken).
    let live = -1;
    for (let i = 1; i <= 60 && live < 0; i++) {
      c.advance(500);
      if (!overflows(rate, 'a', 250)) live = i * 500;
    }
    expect(live).toBeGreaterThanOrEqual(9_000);
    expect(live).toBeLessThanOrEqual(10_500);
    expect(rate.overflowing()).toBe(0);
  });

  it('reports a store that stopped sending as live once its bucket would be full', () => {
    const c = clock();
    const rate = createStoreLiveRate({ eventsPerSecond: 1000, burst: 2000, now: c.now });
    overflows(rate, 'a', 2000);
    expect(overflows(rate, 'a', 1)).toBe(true);
    c.advance(1999);
    expect(rate.overflowing()).toBe(1);
    c.advance(1);
    expect(rate.overflowing()).toBe(0);
  });

  it('never overflows with a rate of 0', () => {
    const rate = createStoreLiveRate({ eventsPerSecond: 0, burst: 10, now: () => 0 });
    for (let i = 0; i < 100; i++) expect(overflows(rate, 'a', 500)).toBe(false);
  });

  it('forgets stores whose bucket is full when it holds too many, and keeps the ones in overflow', () => {
    const c = clock();
    const rate = createStoreLiveRate({ eventsPerSecond: 100, burst: 100, now: c.now, maxStores: 3 });
    overflows(rate, 'flood', 1000);
    overflows(rate, 'b', 10);
    overflows(rate, 'c', 10);
    c.advance(200); // b and c full again; the flood's bucket is at 20
    overflows(rate, 'd', 10);
    overflows(rate, 'e', 10);
    expect(overflows(rate, 'flood', 1)).toBe(true);
    expect(rate.overflowing()).toBe(1);
  });

  describe('pacing a store while other stores send', () => {
    const paced = (c: { now: () => number }) =>
      createStoreLiveRate({
        eventsPerSecond: 100,
        burst: 100,
        pacedEventsPerSecond: 1000,
        maxDelayMs: 2000,
        othersRecentMs: 5000,
        now: c.now,
      });

    it('does not hold a store alone, however fast it sends', () => {
      const c = clock();
      const rate = paced(c);
      rate.route('flood', 100);
      for (let i = 0; i < 50; i++) expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 0 });
    });

    it('holds a store to its paced rate while another store sends live, and refuses past the longest hold', () => {
      const c = clock();
      const rate = paced(c);
      expect(rate.route('other', 10)).toEqual({ lane: 'live', delayMs: 0 });
      // Live, but paced already: 100 events at 1,000/s book 100 ms of the store's turn.
      expect(rate.route('flood', 100)).toEqual({ lane: 'live', delayMs: 0 });
      // Its burst spent, it overflows; each request of 500 books half a second.
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 100 });
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 600 });
      c.advance(100);
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 1000 });
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 1500 });
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 2000 });
      // The next would wait 2.5 s: refused, and it does not take a turn.
      expect(rate.route('flood', 500)).toEqual({ lane: 'refused', retryAfterMs: 2500 });
      c.advance(1000);
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 1500 });
    });

    it('does not hold requests that must not be paced, which still go to the overflow partitions', () => {
      const c = clock();
      const rate = paced(c);
      rate.route('other', 10);
      rate.route('flood', 100);
      for (let i = 0; i < 10; i++) expect(rate.route('flood', 500, false)).toEqual({ lane: 'overflow', delayMs: 0 });
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 100 });
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 600 });
    });

    it('keeps a store in overflow while it sends as fast as it is let through, under its live rate', () => {
      const c = clock();
      const rate = createStoreLiveRate({
        eventsPerSecond: 2000,
        burst: 2000,
        pacedEventsPerSecond: 1000,
        now: c.now,
      });
      rate.route('other', 1);
      rate.route('flood', 2000);
      // Each request waits for its hold, then the next comes: 1,000 events/s, half the live rate.
      for (let i = 0; i < 40; i++) {
        rate.route('other', 1);
        const r = rate.route('flood', 500);
        expect(r.lane).toBe('overflow');
        c.advance(r.lane === 'overflow' ? Math.max(r.delayMs, 1) : 1);
      }
      // Once it sends slower than it would be let through, its bucket fills and it is live again.
      c.advance(2000);
      rate.route('other', 1);
      expect(rate.route('flood', 500)).toEqual({ lane: 'live', delayMs: 0 });
    });

    it('counts only the other stores that sent lately', () => {
      const c = clock();
      const rate = paced(c);
      rate.route('early', 1);
      rate.route('steady', 1);
      c.advance(6000);
      rate.route('steady', 1);
      // 'early' went quiet 6 s ago and no longer counts; 'steady' still makes 'flood' wait.
      rate.route('flood', 100);
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 100 });
      c.advance(5000);
      rate.route('early', 1);
      expect(rate.route('steady', 1)).toEqual({ lane: 'live', delayMs: 0 });
    });

    it('stops holding it once the other stores have been quiet for a while', () => {
      const c = clock();
      const rate = paced(c);
      rate.route('other', 10);
      rate.route('flood', 100);
      rate.route('flood', 500);
      expect(rate.route('flood', 500).lane).toBe('overflow');
      c.advance(5000);
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 0 });
      expect(rate.route('flood', 500)).toEqual({ lane: 'overflow', delayMs: 0 });
    });
  });
});
