/**
 * A bound on the batch size from the time batches take (docs/decisions.md, Operations, "Batches bounded by
 * time"): `current()` is the size a batch can have to commit within `targetMs`, between `min` and `max`. A slower
 * machine (or a slower moment: a store's burst of expensive messages, the database busy) thus gets smaller batches
 * instead of longer waits, and a fast one keeps `max`.
 *
 * A batch costs a fixed part (its statements and round trips, whatever its size) and a part per message. The bound
 * is the larger of two sizes that fit:
 * - the target over the average time per message, weighted by messages so that the many small batches of a quiet
 *   stream do not shrink the bound for the next burst. It counts the fixed part in every message, so it is low
 *   while batches are small: alone, a bound first taken from small batches (a cold start, an import's first
 *   requests) kept every later batch nearly that small, paying the fixed part again and again;
 * - the last batch scaled by the target over its time, at most `GROWTH` times: where the time of a batch grows
 *   with its size no faster than in proportion, the scaled size fits too. Batch after batch this grows to where
 *   the fixed part and the messages fill the target.
 */
export interface BatchSizeBound {
  /** A batch of `size` messages committed in `ms`. */
  observe(size: number, ms: number): void;
  current(): number;
  /**
   * The size for another target, at the same costs (`max` before any batch, or with 0), never below `floor` (by
   * default the bound's own `min`; like it, held between 1 and `max`).
   */
  within(targetMs: number, floor?: number): number;
}

export interface BatchSizeBoundOptions {
  min: number;
  max: number;
  /** 0 disables the bound (`current()` is always `max`). */
  targetMs: number;
}

/** The average forgets half its weight every this many messages observed. */
const HALF_LIFE_MESSAGES = 5000;
/** The last batch is scaled at most this many times: each step up is from a size actually timed. */
const GROWTH = 2;

export function createBatchSizeBound(opts: BatchSizeBoundOptions): BatchSizeBound {
  const min = Math.max(1, Math.min(opts.min, opts.max));
  let msPerMessage: number | null = null;
  const last = { size: 0, ms: 0 };
  const within = (targetMs: number, floor = min): number => {
    if (targetMs <= 0 || msPerMessage === null || msPerMessage <= 0) return opts.max;
    const averaged = targetMs / msPerMessage;
    const scaled = last.size * (last.ms > 0 ? Math.min(GROWTH, targetMs / last.ms) : GROWTH);
    const lowest = Math.max(1, Math.min(floor, opts.max));
    return Math.max(lowest, Math.min(opts.max, Math.floor(Math.max(averaged, scaled))));
  };
  return {
    observe(size, ms) {
      if (size <= 0 || !(ms >= 0)) return;
      const sample = ms / size;
      // A batch of `size` messages counts as `size` samples: the past keeps 2^(-size/halfLife) of its weight.
      const keep = msPerMessage === null ? 0 : 2 ** (-size / HALF_LIFE_MESSAGES);
      msPerMessage = keep * (msPerMessage ?? 0) + (1 - keep) * sample;
      last.size = size;
      last.ms = ms;
    },
    current: () => within(opts.targetMs),
    within,
  };
}
