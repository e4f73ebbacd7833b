/**
 * The data-driven model's fit (Gaussian elimination, ./markov-chain) against the reference of
 * test/support/markov-reference.ts (value iteration over a chain built separately): hand-worked chains, then
 * random path sets.
 */
import fc from 'fast-check';
import { fitMarkov, type PathCount } from './markov-chain';
import { referenceRemovalEffects } from '../../../test/support/markov-reference';

const TOLERANCE = 1e-9;
const CHANNELS = ['paid_search', 'email', 'organic_social', 'direct', 'referral', 'display'];

const conv = (channels: string[], count = 1): PathCount => ({ channels, converted: true, count });
const drop = (channels: string[], count = 1): PathCount => ({ channels, converted: false, count });

/** Both implementations give P(conversion) `p` and exactly the removal effects `effects`, to TOLERANCE. */
function expectBoth(paths: PathCount[], p: number, effects: Record<string, number>) {
  const fit = fitMarkov(paths);
  const ref = referenceRemovalEffects(paths);
  for (const got of [fit, ref]) {
    expect(Math.abs(got.conversionProbability - p)).toBeLessThan(TOLERANCE);
    expect(Object.keys(got.removalEffects).sort()).toEqual(Object.keys(effects).sort());
    for (const [c, e] of Object.entries(effects)) expect(Math.abs(got.removalEffects[c]! - e)).toBeLessThan(TOLERANCE);
  }
}

describe('the Markov fit against a value-iteration reference', () => {
  it('gives a channel alone a removal effect of 1', () => {
    // start -> a always; a converts 3 times in 4: P = 3/4, and without a nothing converts.
    expectBoth([conv(['a'], 3), drop(['a'])], 3 / 4, { a: 1 });
  });

  it('solves a loop a -> b -> a', () => {
    // start: a 1/2, b 1/2; a: b 1/2, conversion 1/2; b: a 1/2, null 1/2.
    // x_a = 1/2 + x_b / 2, x_b = x_a / 2: x_a = 2/3, x_b = 1/3, P = 1/2.
    // Without a: x_b = 0, P = 0 (effect 1). Without b: x_a = 1/2, P = 1/4 (effect 1/2).
    expectBoth([conv(['a', 'b', 'a']), drop(['b'])], 1 / 2, { a: 1, b: 1 / 2 });
  });

  it('collapses repeats and leaves out paths without channels', () => {
    // The same chain as [a] converting, [b] not: P = 1/2; without a P = 0, without b P = 1/2.
    expectBoth([conv(['a', 'a', 'a']), drop(['b', 'b']), conv([], 7), drop([], 2)], 1 / 2, { a: 1, b: 0 });
  });

  const paths = fc.shuffledSubarray(CHANNELS, { minLength: 2, maxLength: 6 }).chain((alphabet) =>
    fc
      .array(
        fc.record({
          channels: fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 6 }),
          converted: fc.boolean(),
          count: fc.integer({ min: 1, max: 50 }),
        }),
        { minLength: 1, maxLength: 40 },
      )
      .filter((ps) => ps.some((p) => p.converted)),
  );

  it('agrees with the reference to 1e-9 on random paths', () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const fit = fitMarkov(ps);
        const ref = referenceRemovalEffects(ps);
        expect(Math.abs(fit.conversionProbability - ref.conversionProbability)).toBeLessThan(TOLERANCE);
        expect(Object.keys(ref.removalEffects).sort()).toEqual(fit.channels);
        for (const c of fit.channels) {
          expect(Math.abs(fit.removalEffects[c]! - ref.removalEffects[c]!)).toBeLessThan(TOLERANCE);
        }
      }),
      { numRuns: 200 },
    );
  });
});
