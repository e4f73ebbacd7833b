/**
 * Attribution models (docs/product.md, Attribution; first, last, linear and position with the same credit math
 * as the Snowplow attribution package; time decay as Google Ads defines it), as exact fractions turned into
 * integer credits by largest-remainder apportionment.
 */
import type { Model } from '../../../contracts/src/attribution';
import { apportion, assertTotal, type Fraction } from './apportion';
import { dataDrivenFractions } from './markov-chain';
import { type DecayTiming, timeDecayFractions } from './time-decay';

export type { DecayTiming } from './time-decay';

/** What the models beyond position need of a conversion's touchpoints: their times, and their channels. */
export interface ModelTiming extends DecayTiming {
  /** Channel of each touchpoint, in order (data-driven). */
  channels?: readonly string[];
  /** The stored fit's integer weights by channel (data-driven); without them the model gives no credit. */
  dataDrivenWeights?: Readonly<Record<string, number>>;
}

/** What one conversion distributes over its touchpoints: weight units (normally WEIGHT_SCALE) and money micro-units. */
export interface CreditAmounts {
  weight: number;
  value: number;
  cogs: number;
}

/** The integer credit of the touchpoint at `index` (0-based, in time order). */
export interface TouchCredit {
  index: number;
  weight: number;
  value: number;
  cogs: number;
}

const ZERO: Fraction = { num: 0, den: 1 };
const ONE: Fraction = { num: 1, den: 1 };

/** `n` fractions, the i-th `f(i)` (a module function rather than a closure per call: see facts.ts, setValue). */
const fill = (n: number, f: (i: number) => Fraction): Fraction[] => Array.from({ length: n }, (_, i) => f(i));

function assertTouchCount(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`modelFractions: n must be a positive integer, got ${n}`);
  }
}

/**
 * The exact share of each of `n` time-ordered touchpoints under `model`; always `n` fractions summing to 1.
 * - `first`: 1 to index 0; `last`: 1 to index n-1; `linear`: 1/n each;
 * - `position`: 1 for n = 1, 1/2 + 1/2 for n = 2, else 2/5 first, 2/5 last and 1/(5(n-2)) to each middle
 *   touchpoint, all over the common denominator 5(n-2) so that they sum to exactly 1;
 * - `time_decay`: 2^(-Δt/H) normalised, from the touchpoints' times in `timing` (see time-decay.ts);
 * - `data_driven`: the fit's weights over the distinct channels in `timing`, each channel's share split equally
 *   between its touchpoints (see markov-chain.ts, dataDrivenFractions).
 *
 * @throws RangeError when `n` is not a positive safe integer, `time_decay` has no timing of `n` touchpoints, or
 *   `data_driven` no channels of `n` touchpoints and weights
 */
export function modelFractions(model: Model, n: number, timing?: ModelTiming): Fraction[] {
  assertTouchCount(n);
  switch (model) {
    case 'first':
      return fill(n, (i) => (i === 0 ? ONE : ZERO));
    case 'last':
      return fill(n, (i) => (i === n - 1 ? ONE : ZERO));
    case 'linear':
      return fill(n, () => ({ num: 1, den: n }));
    case 'position': {
      if (n === 1) return [ONE];
      if (n === 2) return fill(n, () => ({ num: 1, den: 2 }));
      const den = 5 * (n - 2);
      return fill(n, (i) => (i === 0 || i === n - 1 ? { num: 2 * (n - 2), den } : { num: 1, den }));
    }
    case 'time_decay': {
      if (timing?.starts.length !== n) {
        throw new RangeError(`modelFractions: time_decay needs the times of its ${n} touchpoints`);
      }
      return timeDecayFractions(timing.starts, timing.halfLifeMs);
    }
    case 'data_driven': {
      if (timing?.channels?.length !== n || !timing.dataDrivenWeights) {
        throw new RangeError(`modelFractions: data_driven needs the channels of its ${n} touchpoints and weights`);
      }
      return dataDrivenFractions(timing.channels, timing.dataDrivenWeights);
    }
  }
}

/** `magnitude` divided by `d` exactly (both non-negative, `magnitude + d` a safe integer). */
function divide(magnitude: number, d: number): { quotient: number; remainder: number } {
  // The division is rounded, so its floor may be one off; the exact remainder says which way.
  let quotient = Math.floor(magnitude / d);
  let remainder = magnitude - quotient * d;
  if (remainder < 0) {
    quotient--;
    remainder += d;
  } else if (remainder >= d) {
    quotient++;
    remainder -= d;
  }
  return { quotient, remainder };
}

/**
 * Gives one more to the first `leftover` indices of `order` and applies the sign of `total`: the last step of
 * largest-remainder apportionment once the floors are known.
 */
function distribute(shares: number[], leftover: number, order: Iterable<number>, total: number): number[] {
  for (const index of order) {
    if (leftover-- <= 0) break;
    shares[index]!++;
  }
  if (total < 0) for (let i = 0; i < shares.length; i++) if (shares[i] !== 0) shares[i] = -shares[i]!;
  return shares;
}

function* range(from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield i;
}

/**
 * `total` split into n equal shares as `apportion` does it: every share the quotient, the first `remainder` one
 * more (equal remainders go to the lower index). Null when `|total| + n` is beyond exact doubles.
 */
function linearSplit(total: number, n: number): number[] | null {
  assertTotal(total);
  const magnitude = Math.abs(total);
  if (magnitude + n > Number.MAX_SAFE_INTEGER) return null;
  const { quotient, remainder } = divide(magnitude, n);
  return distribute(new Array<number>(n).fill(quotient), remainder, range(0, remainder), total);
}

/**
 * `total` split over position's shares (n >= 3: 2/5 to each end, 1/(5(n-2)) to each middle touchpoint) as
 * `apportion` does it. Over the common denominator D = 5(n-2) an end's remainder is (n-2)(2m mod 5) and a
 * middle's m mod D; the larger remainders get the leftover units first, equal ones by index. Null when the
 * products are beyond exact doubles.
 */
function positionSplit(total: number, n: number): number[] | null {
  assertTotal(total);
  const magnitude = Math.abs(total);
  const den = 5 * (n - 2);
  if (2 * magnitude + den > Number.MAX_SAFE_INTEGER) return null;
  const end = divide(2 * magnitude, 5);
  const middle = divide(magnitude, den);
  const endRemainder = (n - 2) * end.remainder;
  const shares = new Array<number>(n).fill(middle.quotient);
  shares[0] = shares[n - 1] = end.quotient;
  const leftover = magnitude - 2 * end.quotient - (n - 2) * middle.quotient;
  const order =
    endRemainder > middle.remainder
      ? [0, n - 1, ...range(1, n - 1)]
      : endRemainder < middle.remainder
        ? [...range(1, n - 1), 0, n - 1]
        : range(0, n);
  return distribute(shares, leftover, order, total);
}

/** Credits of every one of n touchpoints from the three amounts' shares. */
function creditsOfShares(weight: number[], value: number[], cogs: number[]): TouchCredit[] {
  return weight.map((w, index) => ({ index, weight: w, value: value[index]!, cogs: cogs[index]! }));
}

/**
 * Integer credits of one conversion under `model` over `n` time-ordered touchpoints: weight, value and cost
 * of goods are each apportioned exactly (each sums to its amount; docs/product.md, Attribution: conversions += w,
 * conversion_value += w * value). Only touchpoints with a nonzero share are returned, in index order, so
 * `first` and `last` yield a single entry. Deterministic, so a retraction can recompute or replay exactly
 * what was added.
 *
 * @throws RangeError when `n` is not a positive integer, an amount is not a safe integer, or `time_decay`
 *   has no timing
 */
export function creditTouches(model: Model, n: number, amounts: CreditAmounts, timing?: ModelTiming): TouchCredit[] {
  // first, last, linear and position in closed form: the same credits as apportioning their n shares, without
  // building and sorting n shares three times (a person with a long history has hundreds of touchpoints per
  // conversion).
  if (model === 'first' || model === 'last') {
    assertTouchCount(n);
    assertTotal(amounts.weight);
    assertTotal(amounts.value);
    assertTotal(amounts.cogs);
    // `+ 0` turns an amount of -0 into 0, as apportioning it does.
    const [weight, value, cogs] = [amounts.weight + 0, amounts.value + 0, amounts.cogs + 0];
    return [{ index: model === 'first' ? 0 : n - 1, weight, value, cogs }];
  }
  if (model === 'linear' || (model === 'position' && n <= 2)) {
    // Position over one or two touchpoints is 1, or 1/2 each: linear's shares.
    assertTouchCount(n);
    const weight = linearSplit(amounts.weight, n);
    const value = linearSplit(amounts.value, n);
    const cogs = linearSplit(amounts.cogs, n);
    if (weight && value && cogs) return creditsOfShares(weight, value, cogs);
  } else if (model === 'position') {
    assertTouchCount(n);
    const weight = positionSplit(amounts.weight, n);
    const value = positionSplit(amounts.value, n);
    const cogs = positionSplit(amounts.cogs, n);
    if (weight && value && cogs) return creditsOfShares(weight, value, cogs);
  }
  const fractions = modelFractions(model, n, timing);
  const weights = apportion(amounts.weight, fractions);
  const values = apportion(amounts.value, fractions);
  const cogs = apportion(amounts.cogs, fractions);
  const credits: TouchCredit[] = [];
  fractions.forEach((f, index) => {
    if (f.num === 0) return;
    credits.push({ index, weight: weights[index] ?? 0, value: values[index] ?? 0, cogs: cogs[index] ?? 0 });
  });
  return credits;
}
