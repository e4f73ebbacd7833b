/**
 * Exact integer apportionment (docs/product.md, Attribution, contracts WEIGHT_SCALE / MONEY_SCALE).
 *
 * Views are incrementally maintained sums of credits and must equal a recomputation exactly, so a
 * conversion's credits are integers that add up to exactly the amount being split. This module turns
 * exact rational weights into such integers with the largest-remainder (Hamilton) method.
 */

/** An exact non-negative rational weight `num / den` (integers, `den > 0`). */
export type Fraction = { num: number; den: number };

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    [a, b] = [b, a % b];
  }
  return a;
}

function assertFraction(w: Fraction, i: number): void {
  if (!Number.isSafeInteger(w.num) || !Number.isSafeInteger(w.den) || w.num < 0 || w.den <= 0) {
    throw new RangeError(`apportion: weight ${i} must be num >= 0, den > 0 safe integers, got ${w.num}/${w.den}`);
  }
}

/** @throws RangeError when `total` is not a safe integer, as `apportion` does */
export function assertTotal(total: number): void {
  if (!Number.isSafeInteger(total)) {
    throw new RangeError(`apportion: total must be a safe integer, got ${total}`);
  }
}

/**
 * Splits `total` into integers, one per weight, such that:
 * - they sum to exactly `total`;
 * - each share differs from the exact `total * w` by less than 1 (it is its floor or ceiling);
 * - the result depends only on the arguments (largest remainder; equal remainders: lower index first).
 *
 * A negative total is split as the negation of the split of `-total`, so retracting a credit mirrors
 * applying it. A zero weight always gets 0.
 *
 * @param total a safe integer (weight units or money micro-units)
 * @param weights exact fractions that must sum to exactly 1
 * @throws RangeError when `total` is not a safe integer, a weight is malformed, or the weights do not sum to 1
 */
export function apportion(total: number, weights: readonly Fraction[]): number[] {
  assertTotal(total);
  weights.forEach(assertFraction);
  return apportionInDoubles(total, weights) ?? apportionInBigInts(total, weights);
}

/**
 * Below this, a product or sum of non-negative integers is exact in a double, and so are `%` and the division
 * of an exact multiple.
 */
const EXACT_IN_DOUBLES = 2 ** 52;

function gcdOfDoubles(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * The same split as apportionInBigInts, in doubles, where every intermediate integer stays below
 * EXACT_IN_DOUBLES (every model's weight units, and amounts of any realistic size except under time decay, whose
 * large numerators take larger amounts to BigInt); null otherwise, or when the weights do not sum to 1 (the
 * BigInt path reports it).
 * BigInt arithmetic was about half of a long-history person's recomputation (docs/decisions.md, Shape of the code).
 */
function apportionInDoubles(total: number, weights: readonly Fraction[]): number[] | null {
  let lcm = 1;
  for (const w of weights) {
    lcm = (lcm / gcdOfDoubles(lcm, w.den)) * w.den;
    if (lcm > EXACT_IN_DOUBLES) return null;
  }
  const magnitude = Math.abs(total);
  const scaled: number[] = [];
  let sum = 0;
  let largest = 0;
  for (const w of weights) {
    const s = w.num * (lcm / w.den);
    sum += s;
    if (sum > lcm) return null;
    if (s > largest) largest = s;
    scaled.push(s);
  }
  if (sum !== lcm) return null;
  // Bounded by the largest scaled weight, not by lcm: time decay's weights share one denominator of some 2^38
  // over 200 touchpoints, each numerator at most 2^32, so a million weight units still split in doubles.
  if (magnitude * largest > EXACT_IN_DOUBLES) return null;

  // Exact share magnitude * s / lcm = floor + rem / lcm, every product at most magnitude * largest.
  const floors: number[] = [];
  const order: Array<{ rem: number; index: number }> = [];
  let leftover = magnitude;
  for (let index = 0; index < scaled.length; index++) {
    const product = magnitude * scaled[index]!;
    const rem = product % lcm;
    const floor = (product - rem) / lcm;
    floors.push(floor);
    leftover -= floor;
    order.push({ rem, index });
  }
  order.sort(byRemainderThenIndex);
  for (let k = 0; leftover > 0; k++, leftover--) floors[order[k]!.index]!++;
  if (total < 0) for (let i = 0; i < floors.length; i++) if (floors[i] !== 0) floors[i] = -floors[i]!;
  return floors;
}

/** Largest remainder first; equal remainders: lower index first. */
function byRemainderThenIndex(a: { rem: number; index: number }, b: { rem: number; index: number }): number {
  return a.rem === b.rem ? a.index - b.index : b.rem - a.rem;
}

/** The split in exact BigInt arithmetic, for any weights and total (see apportion). */
function apportionInBigInts(total: number, weights: readonly Fraction[]): number[] {
  // Common denominator of all weights, exactly.
  let lcm = 1n;
  for (const w of weights) {
    const den = BigInt(w.den);
    lcm = (lcm / gcd(lcm, den)) * den;
  }
  // Each weight as an integer numerator over `lcm`.
  const scaled = weights.map((w) => BigInt(w.num) * (lcm / BigInt(w.den)));
  const sum = scaled.reduce((acc, s) => acc + s, 0n);
  if (sum !== lcm) {
    throw new RangeError(`apportion: weights must sum to exactly 1, got ${sum}/${lcm}`);
  }

  const negative = total < 0;
  const magnitude = BigInt(negative ? -total : total);

  // Exact share magnitude * s / lcm = floor + rem / lcm.
  const floors = scaled.map((s) => (magnitude * s) / lcm);
  const rems = scaled.map((s) => (magnitude * s) % lcm);
  let leftover = magnitude - floors.reduce((acc, f) => acc + f, 0n);

  // leftover = sum(rems) / lcm < number of nonzero remainders, so only fractional shares get a unit.
  const order = rems
    .map((rem, index) => ({ rem, index }))
    .sort((a, b) => (a.rem === b.rem ? a.index - b.index : a.rem > b.rem ? -1 : 1));
  for (const { index } of order) {
    if (leftover === 0n) break;
    floors[index] = (floors[index] ?? 0n) + 1n;
    leftover -= 1n;
  }

  return floors.map((f) => {
    const n = Number(f);
    return negative && n !== 0 ? -n : n;
  });
}
