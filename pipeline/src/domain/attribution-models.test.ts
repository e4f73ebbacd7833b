import fc from 'fast-check';
import { RULE_BASED_MODELS, WEIGHT_SCALE, type Model } from '../../../contracts/src/attribution';
import { apportion } from './apportion';
import { creditTouches, modelFractions, type TouchCredit } from './attribution-models';

const DAY = 86_400_000;

/** The amounts of the hand-computed tables: one full conversion, value 100 micro-units, cost of goods 7. */
const AMOUNTS = { weight: WEIGHT_SCALE, value: 100, cogs: 7 };

/** Negation without -0 (credits never hold -0). */
const neg = (x: number): number => (x === 0 ? 0 : -x);

/** Builds expected credits from parallel columns. */
function credits(indices: number[], weights: number[], values: number[], cogs: number[]): TouchCredit[] {
  return indices.map((index, i) => ({ index, weight: weights[i]!, value: values[i]!, cogs: cogs[i]! }));
}

describe('modelFractions', () => {
  it.each<[Model, number, Array<[number, number]>]>([
    ['first', 1, [[1, 1]]],
    [
      'first',
      3,
      [
        [1, 1],
        [0, 1],
        [0, 1],
      ],
    ],
    ['last', 1, [[1, 1]]],
    [
      'last',
      3,
      [
        [0, 1],
        [0, 1],
        [1, 1],
      ],
    ],
    ['linear', 1, [[1, 1]]],
    [
      'linear',
      3,
      [
        [1, 3],
        [1, 3],
        [1, 3],
      ],
    ],
    ['position', 1, [[1, 1]]],
    [
      'position',
      2,
      [
        [1, 2],
        [1, 2],
      ],
    ],
    [
      'position',
      3,
      [
        [2, 5],
        [1, 5],
        [2, 5],
      ],
    ],
    [
      'position',
      4,
      [
        [4, 10],
        [1, 10],
        [1, 10],
        [4, 10],
      ],
    ],
    [
      'position',
      5,
      [
        [6, 15],
        [1, 15],
        [1, 15],
        [1, 15],
        [6, 15],
      ],
    ],
  ])('%s n=%i', (model, n, expected) => {
    expect(modelFractions(model, n)).toEqual(expected.map(([num, den]) => ({ num, den })));
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('throws on n = %p', (n) => {
    for (const model of RULE_BASED_MODELS) {
      expect(() => modelFractions(model, n)).toThrow(RangeError);
    }
  });

  it('position gives 0.4 to the ends and 0.2/(n-2) to each middle touchpoint, exactly', () => {
    for (let n = 3; n <= 60; n++) {
      const fr = modelFractions('position', n);
      fr.forEach(({ num, den }, i) => {
        if (i === 0 || i === n - 1) expect(num * 5).toBe(2 * den);
        else expect(num * 5 * (n - 2)).toBe(den);
      });
    }
  });
});

describe('creditTouches', () => {
  it.each<[Model, number, TouchCredit[]]>([
    // first / last: one entry whatever n is.
    ['first', 1, credits([0], [1_000_000], [100], [7])],
    ['first', 2, credits([0], [1_000_000], [100], [7])],
    ['first', 3, credits([0], [1_000_000], [100], [7])],
    ['first', 4, credits([0], [1_000_000], [100], [7])],
    ['first', 5, credits([0], [1_000_000], [100], [7])],
    ['last', 1, credits([0], [1_000_000], [100], [7])],
    ['last', 2, credits([1], [1_000_000], [100], [7])],
    ['last', 3, credits([2], [1_000_000], [100], [7])],
    ['last', 4, credits([3], [1_000_000], [100], [7])],
    ['last', 5, credits([4], [1_000_000], [100], [7])],
    // linear: cogs 7/2 = 3.5 -> [4, 3]; 7/3 = 2.33 -> [3, 2, 2]; 7/4 = 1.75 -> [2, 2, 2, 1]; 7/5 = 1.4 -> [2, 2, 1, 1, 1].
    ['linear', 1, credits([0], [1_000_000], [100], [7])],
    ['linear', 2, credits([0, 1], [500_000, 500_000], [50, 50], [4, 3])],
    ['linear', 3, credits([0, 1, 2], [333_334, 333_333, 333_333], [34, 33, 33], [3, 2, 2])],
    ['linear', 4, credits([0, 1, 2, 3], [250_000, 250_000, 250_000, 250_000], [25, 25, 25, 25], [2, 2, 2, 1])],
    [
      'linear',
      5,
      credits([0, 1, 2, 3, 4], [200_000, 200_000, 200_000, 200_000, 200_000], [20, 20, 20, 20, 20], [2, 2, 1, 1, 1]),
    ],
    // position n=3: cogs 2.8, 1.4, 2.8 -> remainders .8, .4, .8 -> [3, 1, 3].
    ['position', 1, credits([0], [1_000_000], [100], [7])],
    ['position', 2, credits([0, 1], [500_000, 500_000], [50, 50], [4, 3])],
    ['position', 3, credits([0, 1, 2], [400_000, 200_000, 400_000], [40, 20, 40], [3, 1, 3])],
    // position n=4: cogs 2.8, 0.7, 0.7, 2.8 -> floors 2, 0, 0, 2; 3 units to remainders .8, .8, then .7 at index 1.
    ['position', 4, credits([0, 1, 2, 3], [400_000, 100_000, 100_000, 400_000], [40, 10, 10, 40], [3, 1, 0, 3])],
    // position n=5: weight 66666.67 x3 -> 2 units to indices 1, 2; value 6.67 x3 -> [7, 7, 6];
    // cogs 2.8, 0.47 x3, 2.8 -> 3 units to indices 0, 4, then 1.
    [
      'position',
      5,
      credits([0, 1, 2, 3, 4], [400_000, 66_667, 66_667, 66_666, 400_000], [40, 7, 7, 6, 40], [3, 1, 0, 0, 3]),
    ],
  ])('%s n=%i', (model, n, expected) => {
    expect(creditTouches(model, n, AMOUNTS)).toEqual(expected);
  });

  it('keeps entries with a nonzero share even when their amounts round to 0', () => {
    expect(creditTouches('linear', 3, { weight: WEIGHT_SCALE, value: 1, cogs: 0 })).toEqual(
      credits([0, 1, 2], [333_334, 333_333, 333_333], [1, 0, 0], [0, 0, 0]),
    );
  });

  it('retracting (negated amounts) gives exactly the negated credits', () => {
    const applied = creditTouches('position', 5, AMOUNTS);
    const retracted = creditTouches('position', 5, { weight: -WEIGHT_SCALE, value: -100, cogs: -7 });
    expect(retracted).toEqual(
      applied.map((c) => ({ index: c.index, weight: neg(c.weight), value: neg(c.value), cogs: neg(c.cogs) })),
    );
  });

  it('gives an amount of -0 as 0, as apportioning it does', () => {
    for (const model of RULE_BASED_MODELS) {
      const timing = { starts: [0, DAY, 2 * DAY], halfLifeMs: 7 * DAY };
      for (const c of creditTouches(model, 3, { weight: WEIGHT_SCALE, value: -0, cogs: -0 }, timing)) {
        expect(Object.is(c.value, 0) && Object.is(c.cogs, 0)).toBe(true);
      }
    }
  });

  it('throws on a non-integer amount', () => {
    expect(() => creditTouches('linear', 2, { weight: WEIGHT_SCALE, value: 1.5, cogs: 0 })).toThrow(RangeError);
  });

  it('for every model and n in 1..30, credits sum exactly to the amounts and stay within 1 of the exact share', () => {
    const money = fc.integer({ min: 0, max: 10_000_000_000_000 });
    fc.assert(
      fc.property(
        fc.constantFrom(...RULE_BASED_MODELS),
        fc.array(fc.integer({ min: 0, max: 180 * DAY }), { minLength: 1, maxLength: 30 }),
        fc.constantFrom(0.5, 1, 7, 30),
        money,
        money,
        (model, offsets, halfLifeDays, value, cogs) => {
          const n = offsets.length;
          const timing = { starts: [...offsets].sort((a, b) => a - b), halfLifeMs: halfLifeDays * DAY };
          const result = creditTouches(model, n, { weight: WEIGHT_SCALE, value, cogs }, timing);
          const fractions = modelFractions(model, n, timing);
          expect(result.reduce((a, c) => a + c.weight, 0)).toBe(WEIGHT_SCALE);
          expect(result.reduce((a, c) => a + c.value, 0)).toBe(value);
          expect(result.reduce((a, c) => a + c.cogs, 0)).toBe(cogs);
          expect(result.map((c) => c.index)).toEqual(fractions.flatMap((f, i) => (f.num === 0 ? [] : [i])));
          for (const c of result) {
            const { num, den } = fractions[c.index]!;
            for (const [share, total] of [
              [c.weight, WEIGHT_SCALE],
              [c.value, value],
              [c.cogs, cogs],
            ] as const) {
              expect(Math.abs(share * den - total * num)).toBeLessThan(den);
            }
          }
        },
      ),
    );
  });

  it('gives every model the credits of apportioning its shares, negative and huge amounts included', () => {
    // first, last and linear take a closed form; this is what it must equal.
    const amount = fc.oneof(
      // Small amounts over few touchpoints hit equal remainders with several units left over.
      fc.integer({ min: -200, max: 200 }),
      fc.integer({ min: -10_000_000_000_000, max: 10_000_000_000_000 }),
      fc.integer({ min: Number.MAX_SAFE_INTEGER - 1_000, max: Number.MAX_SAFE_INTEGER }),
      fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: -Number.MAX_SAFE_INTEGER + 1_000 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...RULE_BASED_MODELS),
        fc.oneof(
          fc.array(fc.integer({ min: 0, max: 180 * DAY }), { minLength: 1, maxLength: 12 }),
          fc.array(fc.integer({ min: 0, max: 180 * DAY }), { minLength: 1, maxLength: 400 }),
        ),
        amount,
        amount,
        amount,
        (model, offsets, weight, value, cogs) => {
          const n = offsets.length;
          const timing = { starts: [...offsets].sort((a, b) => a - b), halfLifeMs: 7 * DAY };
          const fractions = modelFractions(model, n, timing);
          const [w, v, c] = [weight, value, cogs].map((total) => apportion(total, fractions));
          const expected = fractions.flatMap((f, index) =>
            f.num === 0 ? [] : [{ index, weight: w![index]!, value: v![index]!, cogs: c![index]! }],
          );
          expect(creditTouches(model, n, { weight, value, cogs }, timing)).toEqual(expected);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('time_decay: one half-life apart, the later touchpoint weighs twice the earlier', () => {
    // Shares 1/3 and 2/3: weight 333_333.3 / 666_666.7 -> [333_333, 666_667]; value 100 -> [33, 67]; cogs 7 ->
    // 2.33 / 4.67 -> [2, 5].
    const timing = { starts: [0, 7 * DAY], halfLifeMs: 7 * DAY };
    expect(creditTouches('time_decay', 2, AMOUNTS, timing)).toEqual(
      credits([0, 1], [333_333, 666_667], [33, 67], [2, 5]),
    );
  });

  it('returns one entry for first and last, n for linear and position', () => {
    for (let n = 1; n <= 30; n++) {
      expect(creditTouches('first', n, AMOUNTS)).toHaveLength(1);
      expect(creditTouches('last', n, AMOUNTS)).toHaveLength(1);
      expect(creditTouches('linear', n, AMOUNTS)).toHaveLength(n);
      expect(creditTouches('position', n, AMOUNTS)).toHaveLength(n);
    }
  });
});
