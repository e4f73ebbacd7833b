import fc from 'fast-check';
import { apportion, type Fraction } from './apportion';

const f = (num: number, den: number): Fraction => ({ num, den });
const thirds = [f(1, 3), f(1, 3), f(1, 3)];

function sumOf(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** |share - total * num / den| < 1, checked exactly with BigInt. */
function withinOne(share: number, total: number, w: Fraction): boolean {
  const diff = BigInt(share) * BigInt(w.den) - BigInt(total) * BigInt(w.num);
  return (diff < 0n ? -diff : diff) < BigInt(w.den);
}

/** Largest remainder over exact BigInt shares, written independently of the module (the oracle). */
function referenceSplit(total: number, weights: readonly Fraction[]): number[] {
  const magnitude = BigInt(Math.abs(total));
  const den = weights.reduce((acc, w) => acc * BigInt(w.den), 1n);
  const exact = weights.map((w) => (magnitude * BigInt(w.num) * den) / BigInt(w.den));
  const shares = exact.map((e) => e / den);
  let leftover = magnitude - shares.reduce((a, b) => a + b, 0n);
  const byRemainder = exact
    .map((e, index) => ({ rem: e % den, index }))
    .sort((a, b) => (a.rem === b.rem ? a.index - b.index : a.rem > b.rem ? -1 : 1));
  for (const { index } of byRemainder) {
    if (leftover === 0n) break;
    shares[index]! += 1n;
    leftover -= 1n;
  }
  return shares.map((s) => (total < 0 && s !== 0n ? -Number(s) : Number(s)));
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Weights that sum to exactly 1 with varied denominators: parts p_i / S, each reduced; some zero. */
const weightsArb: fc.Arbitrary<Fraction[]> = fc
  .array(fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(0)), { minLength: 1, maxLength: 40 })
  .filter((parts) => parts.some((p) => p > 0))
  .map((parts) => {
    const total = sumOf(parts);
    return parts.map((p) => (p === 0 ? f(0, 1) : f(p / gcd(p, total), total / gcd(p, total))));
  });

const totalArb = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1_000_000),
);

describe('apportion', () => {
  it.each<[string, number, Fraction[], number[]]>([
    ['single weight takes everything', 7, [f(1, 1)], [7]],
    ['exact halves', 10, [f(1, 2), f(1, 2)], [5, 5]],
    ['odd halves: lower index gets the extra unit', 11, [f(1, 2), f(1, 2)], [6, 5]],
    ['thirds of 1: tie to index 0', 1, thirds, [1, 0, 0]],
    ['thirds of 2: ties to indices 0 and 1', 2, thirds, [1, 1, 0]],
    ['thirds of WEIGHT_SCALE', 1_000_000, thirds, [333_334, 333_333, 333_333]],
    ['largest remainder beats lower index', 1, [f(1, 4), f(3, 4)], [0, 1]],
    ['mixed denominators', 10, [f(1, 6), f(1, 3), f(1, 2)], [2, 3, 5]],
    ['unreduced fractions', 100, [f(2, 5), f(1, 5), f(2, 5)], [40, 20, 40]],
    ['position n=5 of 100', 100, [f(6, 15), f(1, 15), f(1, 15), f(1, 15), f(6, 15)], [40, 7, 7, 6, 40]],
    ['zero weights get nothing', 5, [f(0, 1), f(1, 1), f(0, 7)], [0, 5, 0]],
    ['negative total mirrors the positive split', -2, thirds, [-1, -1, 0]],
    ['negative odd halves', -11, [f(1, 2), f(1, 2)], [-6, -5]],
    ['total 0', 0, thirds, [0, 0, 0]],
  ])('%s', (_name, total, weights, expected) => {
    expect(apportion(total, weights)).toEqual(expected);
  });

  it('never returns -0', () => {
    expect(apportion(-1, thirds).map((x) => Object.is(x, -0))).toEqual([false, false, false]);
    expect(apportion(0, thirds).map((x) => Object.is(x, -0))).toEqual([false, false, false]);
  });

  it('handles the largest safe integers exactly', () => {
    const shares = apportion(Number.MAX_SAFE_INTEGER, thirds);
    expect(shares).toEqual([3_002_399_751_580_331, 3_002_399_751_580_330, 3_002_399_751_580_330]);
    expect(shares.reduce((a, b) => BigInt(a) + BigInt(b), 0n)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('does not modify the weights', () => {
    const weights = [f(1, 3), f(2, 3)];
    apportion(10, weights);
    expect(weights).toEqual([f(1, 3), f(2, 3)]);
  });

  it.each<[string, number, Fraction[]]>([
    ['no weights', 1, []],
    ['weights summing to less than 1', 1, [f(1, 3), f(1, 3)]],
    ['weights summing to more than 1', 1, [f(2, 3), f(2, 3)]],
    ['a negative numerator', 1, [f(-1, 1), f(2, 1)]],
    ['a zero denominator', 1, [f(1, 0), f(1, 1)]],
    ['a negative denominator', 1, [f(-1, -1)]],
    ['a fractional numerator', 1, [f(0.5, 1), f(1, 2)]],
    ['a fractional total', 1.5, [f(1, 1)]],
    ['a NaN total', Number.NaN, [f(1, 1)]],
    ['an unsafe total', 2 ** 53, [f(1, 1)]],
  ])('throws on %s', (_name, total, weights) => {
    expect(() => apportion(total, weights)).toThrow(RangeError);
  });

  describe('properties', () => {
    it('shares sum to exactly the total', () => {
      fc.assert(
        fc.property(totalArb, weightsArb, (total, weights) => {
          const shares = apportion(total, weights);
          expect(shares).toHaveLength(weights.length);
          expect(shares.reduce((a, b) => a + BigInt(b), 0n)).toBe(BigInt(total));
        }),
      );
    });

    it('each share is an integer within 1 of the exact share, and zero weights get 0', () => {
      fc.assert(
        fc.property(totalArb, weightsArb, (total, weights) => {
          const shares = apportion(total, weights);
          shares.forEach((share, i) => {
            const w = weights[i]!;
            expect(Number.isSafeInteger(share)).toBe(true);
            expect(withinOne(share, total, w)).toBe(true);
            if (w.num === 0) expect(share).toBe(0);
          });
        }),
      );
    });

    it('is deterministic', () => {
      fc.assert(
        fc.property(totalArb, weightsArb, (total, weights) => {
          expect(apportion(total, weights)).toEqual(apportion(total, structuredClone(weights)));
        }),
      );
    });

    it('splits a negative total as the negation of the positive split', () => {
      fc.assert(
        fc.property(totalArb, weightsArb, (total, weights) => {
          expect(apportion(-total, weights)).toEqual(apportion(total, weights).map((x) => (x === 0 ? 0 : -x)));
        }),
      );
    });

    it('gives the largest-remainder split of an exact BigInt reference, in doubles or not', () => {
      // Time decay's weights share one denominator of up to about 2^32 per touchpoint: those take the BigInt
      // path for most totals, the small denominators of the other models the path in doubles.
      const decayLikeArb = fc
        .array(fc.integer({ min: 0, max: 2 ** 32 }), { minLength: 1, maxLength: 12 })
        .filter((nums) => nums.some((n) => n > 0))
        .map((nums) => {
          const den = sumOf(nums);
          return nums.map((num) => f(num, den));
        });
      // Few distinct parts: equal remainders, where the lower index must win.
      const tiedArb = fc
        .array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 })
        .filter((parts) => parts.some((p) => p > 0))
        .map((parts) => parts.map((p) => f(p, sumOf(parts))));
      const nearTheLimitArb = fc.oneof(totalArb, fc.integer({ min: 2 ** 40, max: 2 ** 46 }));
      fc.assert(
        fc.property(nearTheLimitArb, fc.oneof(weightsArb, decayLikeArb, tiedArb), (total, weights) => {
          expect(apportion(total, weights)).toEqual(referenceSplit(total, weights));
        }),
        { numRuns: 500 },
      );
    });

    it('gives all zeros for total 0', () => {
      fc.assert(
        fc.property(weightsArb, (weights) => {
          expect(apportion(0, weights)).toEqual(weights.map(() => 0));
        }),
      );
    });
  });
});
