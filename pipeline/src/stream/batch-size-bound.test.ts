import fc from 'fast-check';
import { createBatchSizeBound } from './batch-size-bound';

describe('createBatchSizeBound', () => {
  it('allows the maximum until a batch was timed, and always when disabled', () => {
    expect(createBatchSizeBound({ min: 200, max: 5000, targetMs: 1000 }).current()).toBe(5000);
    const off = createBatchSizeBound({ min: 200, max: 5000, targetMs: 0 });
    off.observe(5000, 60_000);
    expect(off.current()).toBe(5000);
  });

  it('gives a slow machine smaller batches: the size that commits within the target', () => {
    const bound = createBatchSizeBound({ min: 200, max: 5000, targetMs: 1000 });
    // 5,000 messages in 2.5 s: 0.5 ms each, so 2,000 fit in a second.
    bound.observe(5000, 2500);
    expect(bound.current()).toBe(2000);
    // Sustained, the batches of that size keep it there.
    for (let i = 0; i < 10; i++) bound.observe(2000, 1000);
    expect(bound.current()).toBe(2000);
  });

  it('keeps the maximum on a fast machine, and stays within min and max', () => {
    const fast = createBatchSizeBound({ min: 200, max: 5000, targetMs: 1000 });
    fast.observe(5000, 400);
    expect(fast.current()).toBe(5000);
    const slow = createBatchSizeBound({ min: 200, max: 5000, targetMs: 1000 });
    slow.observe(100, 5000);
    expect(slow.current()).toBe(200);
  });

  it('grows past the size of a cold start to where the fixed part and the messages fill the target', () => {
    const target = 3000;
    const bound = createBatchSizeBound({ min: 200, max: 5000, targetMs: target });
    // An import's first batches: a few messages, paying the compilation and the first statements' plans.
    bound.observe(23, 309);
    bound.observe(17, 587);
    // 13 ms a message on average: 222 fit.
    expect(bound.current()).toBe(222);
    // Then each batch costs 500 ms plus 2 ms a message: 1,250 messages fit in the target.
    const sizes: number[] = [];
    for (let i = 0; i < 8; i++) {
      const size = bound.current();
      sizes.push(size);
      bound.observe(size, 500 + 2 * size);
    }
    // The average alone would have grown some 3 % a batch; scaled, the largest batch doubles, then closes in.
    expect(sizes.slice(0, 4)).toEqual([222, 444, 888, 1170]);
    expect(bound.current()).toBeGreaterThanOrEqual(1245);
    expect(bound.current()).toBeLessThanOrEqual(1250);
  });

  it('scales the last batch by what the target leaves of its time, at most twice', () => {
    const bound = createBatchSizeBound({ min: 10, max: 100_000, targetMs: 3000 });
    bound.observe(100, 1000); // 10 ms a message on average: 300 fit
    bound.observe(300, 2000); // the average barely moves (304); the last batch scaled: 450
    expect(bound.current()).toBe(450);
    bound.observe(100, 200); // doubled, 200, is below the average's 307
    expect(bound.current()).toBe(307);
    const fast = createBatchSizeBound({ min: 10, max: 100_000, targetMs: 3000 });
    fast.observe(100, 1000);
    fast.observe(200, 1000);
    expect(fast.current()).toBe(400);
  });

  it('keeps every batch after a cold start within 30 % over the target (timings 10 % off either way), and settles near the best size', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1500, noNaN: true }),
        fc.double({ min: 0.05, max: 20, noNaN: true }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0, max: 5000, noNaN: true }),
        fc.array(fc.double({ min: 0.9, max: 1.1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        (fixedMs, msPerMessage, coldSize, coldExtraMs, noise) => {
          const target = 3000;
          const [min, max] = [200, 5000];
          const bound = createBatchSizeBound({ min, max, targetMs: target });
          bound.observe(coldSize, coldExtraMs + fixedMs + msPerMessage * coldSize);
          const times: number[] = [];
          for (const factor of noise) {
            const size = bound.current();
            const ms = (fixedMs + msPerMessage * size) * factor;
            times.push(ms);
            bound.observe(size, ms);
          }
          const best = Math.max(min, Math.min(max, Math.floor((target - fixedMs) / msPerMessage)));
          const slowest = Math.max(...times);
          // Or the smallest batch's own time, where even that is over the target.
          expect(slowest).toBeLessThanOrEqual(Math.max(1.3 * target, 1.1 * (fixedMs + msPerMessage * min)));
          // Settled: within the noise of the best size.
          const settled = bound.current();
          expect(settled).toBeGreaterThanOrEqual(Math.floor(0.75 * best));
          expect(settled).toBeLessThanOrEqual(Math.ceil(1.25 * best));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('recovers once batches are fast again', () => {
    const bound = createBatchSizeBound({ min: 200, max: 5000, targetMs: 1000 });
    bound.observe(5000, 10_000);
    expect(bound.current()).toBe(500);
    for (let i = 0; i < 20; i++) bound.observe(bound.current(), bound.current() * 0.1);
    expect(bound.current()).toBe(5000);
  });

  it('gives the size for another target at the same cost, even with its own target disabled', () => {
    const bound = createBatchSizeBound({ min: 200, max: 5000, targetMs: 3000 });
    expect(bound.within(500)).toBe(5000);
    bound.observe(5000, 2500); // 0.5 ms per message
    expect(bound.current()).toBe(5000);
    expect(bound.within(500)).toBe(1000);
    expect(bound.within(50)).toBe(200);
    const off = createBatchSizeBound({ min: 200, max: 5000, targetMs: 0 });
    off.observe(5000, 2500);
    expect(off.current()).toBe(5000);
    expect(off.within(500)).toBe(1000);
  });

  it('gives another target a floor of its own, below the bound’s', () => {
    const bound = createBatchSizeBound({ min: 200, max: 5000, targetMs: 3000 });
    bound.observe(500, 2000); // 4 ms per message: 100 fit in 400 ms
    expect(bound.within(400)).toBe(200); // the bound's own floor
    expect(bound.within(400, 50)).toBe(100);
    // Slower still, and for long: 10 ms per message, 40 would fit.
    for (let i = 0; i < 200; i++) bound.observe(100, 1000);
    expect(bound.within(400, 50)).toBe(50);
    expect(bound.within(400, 0)).toBe(41); // what fits, with no floor
    expect(bound.within(1, 0)).toBe(1); // but never an empty batch
    expect(bound.within(400)).toBe(200); // asked without a floor, the bound's own
  });

  it('holds a floor above `max` to `max`, as it does its own', () => {
    const bound = createBatchSizeBound({ min: 2, max: 4, targetMs: 3000 });
    bound.observe(4, 4000); // 1 s per message: 1 fits in 1 s
    expect(bound.within(1000, 50)).toBe(4);
    const own = createBatchSizeBound({ min: 50, max: 4, targetMs: 1000 });
    own.observe(4, 4000);
    expect(own.current()).toBe(4);
  });
});
