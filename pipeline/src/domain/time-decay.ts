/**
 * The time-decay model's shares (docs/product.md, Attribution): touchpoint k weighs 2^(-Δt_k / H), Δt_k the
 * time from its session start to the conversion and H the store's half-life, normalised to 1.
 *
 * The weights are irrational, but credits must be exact integers that a recomputation reproduces to the unit
 * (see docs/decisions.md, Attribution). So the weights are computed once as floating-point numbers, relative to
 * the latest touchpoint (the conversion time cancels out when normalising: 2^(-Δt_k/H) / 2^(-Δt_last/H) =
 * 2^((t_k - t_last)/H)), quantised to integers over 2^32, and those integers become exact fractions for the
 * same largest-remainder apportionment as the other models. The floating-point step is deterministic (the
 * same inputs give the same bits on every run), so incremental maintenance and reconciliation agree.
 */
import type { Fraction } from './apportion';

/** What the time-decay model needs besides the number of touchpoints. */
export interface DecayTiming {
  /** Session start of each touchpoint (epoch ms), in the order of the touchpoints. */
  starts: readonly number[];
  /** The store's half-life in ms (> 0). */
  halfLifeMs: number;
}

/** Weights are quantised to this many units for the latest touchpoint. */
export const DECAY_SCALE = 2 ** 32;

/**
 * Exact fractions, one per start, summing to 1: `round(2^32 * 2^((start_k - latest)/H))` over their sum. A
 * touchpoint more than about 32 half-lives older than the latest weighs under one unit and gets 0.
 *
 * @throws RangeError when `starts` is empty, a start is not finite or `halfLifeMs` is not a positive number
 */
export function timeDecayFractions(starts: readonly number[], halfLifeMs: number): Fraction[] {
  if (starts.length === 0) throw new RangeError('timeDecayFractions: no touchpoint');
  if (!Number.isFinite(halfLifeMs) || halfLifeMs <= 0) {
    throw new RangeError(`timeDecayFractions: the half-life must be a positive number of ms, got ${halfLifeMs}`);
  }
  let latest = -Infinity;
  for (const s of starts) {
    if (!Number.isFinite(s)) throw new RangeError(`timeDecayFractions: a start must be finite, got ${s}`);
    if (s > latest) latest = s;
  }
  // At most 2^32 per touchpoint: the sum stays a safe integer for up to 2^21 touchpoints.
  const nums = starts.map((s) => Math.round(DECAY_SCALE * 2 ** ((s - latest) / halfLifeMs)));
  const den = nums.reduce((a, b) => a + b, 0);
  return nums.map((num) => ({ num, den }));
}
