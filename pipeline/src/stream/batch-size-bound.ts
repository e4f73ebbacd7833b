/**
 * A bound on the batch size from the time batches take (docs/decisions.md, Operations, "Batches bounded by
 * time"): `current()` is the size a batch can have to commit within `targetMs` at the recent cost per message,
 * between `min` and `max`. A slower machine (or a slower moment: a store's burst of expensive messages, the
 * database busy) thus gets smaller batches instead of longer waits, and a fast one keeps `max`.
 *
 * The cost per message is a moving average over committed batches, weighted by their size so that the many small
 * batches of a quiet stream (where the fixed cost of a batch dominates) do not shrink the bound for the next burst.
 */
export interface BatchSizeBound {
  /** A batch of `size` messages committed in `ms`. */
  observe(size: number, ms: number): void;
  current(): number;
  /** The size for another target, at the same cost per message (`max` before any batch, or with 0). */
  within(targetMs: number): number;
}

export interface BatchSizeBoundOptions {
  min: number;
  max: number;
  /** 0 disables the bound (`current()` is always `max`). */
  targetMs: number;
}

/** The moving average forgets half its weight every this many messages observed. */
const HALF_LIFE_MESSAGES = 5000;

export function createBatchSizeBound(opts: BatchSizeBoundOptions): BatchSizeBound {
  const min = Math.max(1, Math.min(opts.min, opts.max));
  let msPerMessage: number | null = null;
  const within = (targetMs: number): number => {
    if (targetMs <= 0 || msPerMessage === null || msPerMessage <= 0) return opts.max;
    return Math.max(min, Math.min(opts.max, Math.floor(targetMs / msPerMessage)));
  };
  return {
    observe(size, ms) {
      if (size <= 0 || !(ms >= 0)) return;
      const sample = ms / size;
      // A batch of `size` messages counts as `size` samples: the past keeps 2^(-size/halfLife) of its weight.
      const keep = msPerMessage === null ? 0 : 2 ** (-size / HALF_LIFE_MESSAGES);
      msPerMessage = keep * (msPerMessage ?? 0) + (1 - keep) * sample;
    },
    current: () => within(opts.targetMs),
    within,
  };
}
