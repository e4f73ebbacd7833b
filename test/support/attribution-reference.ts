/**
 * A reference model of attribution, for tests only, written from docs/product.md (Attribution) and
 * docs/decisions.md (Attribution) and not from `pipeline/src/domain` (it imports none of it):
 * - the touchpoints of a conversion at T: session start in [T - lookback, T], both ends inclusive, in order of
 *   session start then client id; the direct ones dropped when any is not direct; none: one direct stand-in at T;
 * - each model's exact shares as BigInt rationals (position 2/5, 1/(5(n-2)) ..., 2/5; time decay
 *   round(2^32 * 2^((start - latest) / H)) over their sum, the one step the docs define in floating point);
 * - each amount split by the largest-remainder method over those exact shares, equal remainders to the earlier
 *   touchpoint, remainders compared by cross-multiplication (no common denominator).
 * The property tests compare the pipeline's credits, in memory and in the live views, with this model.
 */
import { type Model, MODELS, WEIGHT_SCALE } from '../../contracts/src/attribution';

const DAY_MS = 86_400_000;

/** A touchpoint as the rules see it: its session's start, its client, whether it is `(direct)` / `(none)`. */
export interface RefTouch {
  start: number;
  clientId: string;
  direct: boolean;
  /** The touchpoint's channel (data-driven only). */
  channel?: string;
}

/** An exact non-negative rational. */
export interface Rational {
  num: bigint;
  den: bigint;
}

/** The credit of one credited touchpoint under one model. */
export interface RefCredit {
  share: Rational;
  weight: number;
  valueCents: number;
  cogsCents: number;
}

export interface RefAttribution<T> {
  /** The credited touchpoints in order; empty when the direct stand-in at the conversion time is credited. */
  touches: T[];
  /** The number of credited touchpoints (1 for the stand-in). */
  n: number;
  /** One credit per credited touchpoint (in that order), zero shares included, for every model. */
  credits: Record<Model, RefCredit[]>;
}

/** Code-unit order, as the docs' "client id" order (not locale order). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The touchpoints a conversion at `at` is credited to; empty for the direct stand-in. */
export function referenceTouches<T extends RefTouch>(touches: readonly T[], at: number, lookbackDays: number): T[] {
  const from = at - lookbackDays * DAY_MS;
  const window = touches.filter((t) => from <= t.start && t.start <= at);
  const kept = window.some((t) => !t.direct) ? window.filter((t) => !t.direct) : window;
  return [...kept].sort((a, b) => a.start - b.start || byCodeUnits(a.clientId, b.clientId));
}

const r = (num: bigint | number, den: bigint | number): Rational => ({ num: BigInt(num), den: BigInt(den) });

/**
 * The exact shares of `n` time-ordered touchpoints under `model`; `starts` only matter to time decay, `channels`
 * and `weights` (a fit's weights by channel) to data-driven: each distinct channel takes its weight over the sum
 * of the path's distinct channels' weights (equal shares when that sum is 0), split equally between its
 * touchpoints.
 */
export function referenceShares(
  model: Model,
  starts: readonly number[],
  halfLifeDays: number,
  dataDriven?: { channels: readonly string[]; weights: Readonly<Record<string, number>> },
): Rational[] {
  const n = starts.length;
  const each = (f: (i: number) => Rational): Rational[] => starts.map((_, i) => f(i));
  switch (model) {
    case 'first':
      return each((i) => r(i === 0 ? 1 : 0, 1));
    case 'last':
      return each((i) => r(i === n - 1 ? 1 : 0, 1));
    case 'linear':
      return each(() => r(1, n));
    case 'position':
      if (n === 1) return [r(1, 1)];
      if (n === 2) return [r(1, 2), r(1, 2)];
      return each((i) => (i === 0 || i === n - 1 ? r(2, 5) : r(1, 5 * (n - 2))));
    case 'time_decay': {
      // The docs' floating-point step: 2^(-Δt/H) relative to the latest touchpoint, quantised over 2^32.
      const latest = Math.max(...starts);
      const h = halfLifeDays * DAY_MS;
      const q = starts.map((s) => BigInt(Math.round(2 ** 32 * 2 ** ((s - latest) / h))));
      const total = q.reduce((a, b) => a + b, 0n);
      return q.map((x) => r(x, total));
    }
    case 'data_driven': {
      if (!dataDriven) throw new RangeError('referenceShares: data_driven needs channels and weights');
      const { channels, weights } = dataDriven;
      const distinct = [...new Set(channels)];
      const w = (c: string): bigint => BigInt(weights[c] ?? 0);
      const sum = distinct.reduce((a, c) => a + w(c), 0n);
      const touchesOf = (c: string): number => channels.filter((x) => x === c).length;
      return channels.map((c) =>
        sum > 0n ? r(w(c), sum * BigInt(touchesOf(c))) : r(1, distinct.length * touchesOf(c)),
      );
    }
  }
}

/**
 * Splits `total` (>= 0) over exact shares summing to 1 by the largest-remainder method: each gets the floor of
 * its exact part, and the units left go one each to the largest fractional parts, equal ones to the lower index.
 */
export function largestRemainder(total: bigint, shares: readonly Rational[]): bigint[] {
  if (total < 0n) throw new RangeError('largestRemainder: the reference splits non-negative totals only');
  const sum = shares.reduce((acc, s) => r(acc.num * s.den + s.num * acc.den, acc.den * s.den), r(0, 1));
  if (sum.num !== sum.den) throw new RangeError(`largestRemainder: shares sum to ${sum.num}/${sum.den}, not 1`);
  const floors = shares.map((s) => (total * s.num) / s.den);
  const rems = shares.map((s) => r((total * s.num) % s.den, s.den));
  let left = total - floors.reduce((a, b) => a + b, 0n);
  const order = shares.map((_, i) => i);
  // a before b when a's fractional part is larger (a.num/a.den > b.num/b.den), else the lower index.
  order.sort((a, b) => {
    const x = rems[a]!.num * rems[b]!.den;
    const y = rems[b]!.num * rems[a]!.den;
    return x === y ? a - b : x > y ? -1 : 1;
  });
  for (const i of order) {
    if (left === 0n) break;
    if (rems[i]!.num === 0n) throw new Error('largestRemainder: units left over with no fractional part');
    floors[i]! += 1n;
    left -= 1n;
  }
  return floors;
}

/** The credits of one conversion at `at` over a person's touchpoints, under every model. */
export function referenceAttribution<T extends RefTouch>(
  touches: readonly T[],
  conversion: { at: number; valueCents: number; cogsCents: number },
  rules: { lookbackDays: number; halfLifeDays: number; dataDrivenWeights?: Readonly<Record<string, number>> },
): RefAttribution<T> {
  const credited = referenceTouches(touches, conversion.at, rules.lookbackDays);
  const starts = credited.length > 0 ? credited.map((t) => t.start) : [conversion.at];
  const channels = credited.length > 0 ? credited.map((t) => t.channel ?? '') : ['direct'];
  const credits = {} as Record<Model, RefCredit[]>;
  for (const model of MODELS) {
    // Without a fit the data-driven model credits nothing.
    if (model === 'data_driven' && !rules.dataDrivenWeights) {
      credits[model] = [];
      continue;
    }
    const fit =
      model === 'data_driven' && rules.dataDrivenWeights ? { channels, weights: rules.dataDrivenWeights } : undefined;
    const shares = referenceShares(model, starts, rules.halfLifeDays, fit);
    const weights = largestRemainder(BigInt(WEIGHT_SCALE), shares);
    const values = largestRemainder(BigInt(conversion.valueCents), shares);
    const cogs = largestRemainder(BigInt(conversion.cogsCents), shares);
    credits[model] = shares.map((share, i) => ({
      share,
      weight: Number(weights[i]),
      valueCents: Number(values[i]),
      cogsCents: Number(cogs[i]),
    }));
  }
  return { touches: credited, n: starts.length, credits };
}
