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

  it('weighs batches by their size: many small slow batches move it less than one large one', () => {
    const bound = createBatchSizeBound({ min: 1, max: 100_000, targetMs: 1000 });
    bound.observe(5000, 1000); // 0.2 ms per message
    // Ten batches of 10 messages at 5 ms each (the fixed cost of a batch, not the cost of a message).
    for (let i = 0; i < 10; i++) bound.observe(10, 50);
    // 100 messages against a half-life of 5,000: the average moved a little, not to 5 ms per message.
    expect(bound.current()).toBeGreaterThan(3000);
    expect(bound.current()).toBeLessThan(5000);
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
});
