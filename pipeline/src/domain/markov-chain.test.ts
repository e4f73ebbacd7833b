import fc from 'fast-check';
import { apportion } from './apportion';
import {
  FIT_WEIGHT_SCALE,
  type PathCount,
  collapseRepeats,
  conversionProbability,
  dataDrivenFractions,
  fitMarkov,
  integerWeights,
  transitionCounts,
  weightsMoved,
} from './markov-chain';

const conv = (channels: string[], count = 1): PathCount => ({ channels, converted: true, count });
const drop = (channels: string[], count = 1): PathCount => ({ channels, converted: false, count });
const channel = fc.constantFrom('a', 'b', 'c', 'd', 'e');

/**
 * Removal effects written independently of the module, for the property test: the absorption probability by
 * value iteration (x <- Q x + r from x = 0, until it stops moving) over a chain built from the raw paths, with
 * the removed channel's incoming transitions sent to null.
 */
function referenceRemovalEffects(paths: readonly PathCount[]): Record<string, number> {
  const edges = new Map<string, Map<string, number>>(); // from -> to -> count; '^' start, '$' conversion, '0' null
  const add = (from: string, to: string, k: number) => {
    const m = edges.get(from) ?? new Map<string, number>();
    m.set(to, (m.get(to) ?? 0) + k);
    edges.set(from, m);
  };
  const channels = new Set<string>();
  for (const p of paths) {
    const seq: string[] = [];
    for (const c of p.channels) if (seq.length === 0 || seq[seq.length - 1] !== c) seq.push(c);
    if (seq.length === 0 || p.count <= 0) continue;
    seq.forEach((c) => channels.add(c));
    const full = ['^', ...seq.map((c) => `c:${c}`), p.converted ? '$' : '0'];
    for (let i = 0; i + 1 < full.length; i++) add(full[i]!, full[i + 1]!, p.count);
  }
  const pConv = (removed: string | null): number => {
    const x = new Map<string, number>();
    for (let iter = 0; iter < 200_000; iter++) {
      let moved = 0;
      for (const [from, tos] of edges) {
        if (removed !== null && from === `c:${removed}`) continue; // x stays 0
        let total = 0;
        let v = 0;
        for (const [to, k] of tos) {
          total += k;
          if (to === '$') v += k;
          else if (to !== '0' && to !== `c:${removed}`) v += k * (x.get(to) ?? 0);
        }
        const next = v / total;
        moved = Math.max(moved, Math.abs(next - (x.get(from) ?? 0)));
        x.set(from, next);
      }
      if (moved < 1e-15) break;
    }
    return x.get('^') ?? 0;
  };
  const base = pConv(null);
  const out: Record<string, number> = {};
  for (const c of channels) out[c] = base > 0 ? 1 - pConv(c) / base : 0;
  return out;
}

describe('the Markov chain fit', () => {
  it('collapses consecutive repeats only', () => {
    expect(collapseRepeats(['a', 'a', 'b', 'a', 'a'])).toEqual(['a', 'b', 'a']);
    expect(collapseRepeats([])).toEqual([]);
  });

  it('counts transitions, with start first and the absorbing states apart', () => {
    const t = transitionCounts([conv(['a', 'a', 'b']), drop(['a']), drop([]), conv(['b'], 2)]);
    expect(t.channels).toEqual(['a', 'b']);
    expect(Object.fromEntries(t.start.to)).toEqual({ a: 2, b: 2 });
    expect(Object.fromEntries(t.rows.get('a')!.to)).toEqual({ b: 1 });
    expect(t.rows.get('a')!.dropout).toBe(1);
    expect(t.rows.get('b')!.conversion).toBe(3);
  });

  it('solves three paths worked by hand', () => {
    // Paths: A>B>conversion, A>null, B>conversion. start: A 2/3, B 1/3; A: B 1/2, null 1/2; B: conversion 1.
    // x_B = 1, x_A = 1/2, P = 2/3 * 1/2 + 1/3 * 1 = 2/3.
    // Without A: P = 1/3, effect 1 - (1/3)/(2/3) = 1/2. Without B: P = 0, effect 1. Weights 1/3 and 2/3.
    const fit = fitMarkov([conv(['A', 'B']), drop(['A']), conv(['B'])]);
    expect(fit.conversionProbability).toBeCloseTo(2 / 3, 12);
    expect(fit.removalEffects.A).toBeCloseTo(1 / 2, 12);
    expect(fit.removalEffects.B).toBeCloseTo(1, 12);
    expect(fit.weights.A).toBeCloseTo(1 / 3, 12);
    expect(fit.weights.B).toBeCloseTo(2 / 3, 12);
    expect({ paths: fit.paths, conversions: fit.conversions, distinct: fit.distinctPaths }).toEqual({
      paths: 3,
      conversions: 2,
      distinct: 3,
    });
  });

  it('solves a loop exactly, without a step limit', () => {
    // Paths: A>B>A>conversion, B>null. A: B 1/2, conversion 1/2; B: A 1/2, null 1/2; start: A 1/2, B 1/2.
    // x_A = x_B/2 + 1/2, x_B = x_A/2, so x_A = 2/3, x_B = 1/3 and P = 1/2.
    // Without A: x_B = 0, P = 0, effect 1. Without B: x_A = 1/2, P = 1/4, effect 1/2. Weights 2/3 and 1/3.
    const fit = fitMarkov([conv(['A', 'B', 'A']), drop(['B'])]);
    expect(fit.conversionProbability).toBeCloseTo(1 / 2, 12);
    expect(fit.removalEffects).toEqual({ A: expect.closeTo(1, 12), B: expect.closeTo(1 / 2, 12) });
    expect(fit.weights).toEqual({ A: expect.closeTo(2 / 3, 12), B: expect.closeTo(1 / 3, 12) });
  });

  it('gives nothing to a channel seen only at the end of paths that did not convert', () => {
    // A converts once, C only ever leads to null: removing C changes nothing.
    const fit = fitMarkov([conv(['A']), drop(['C']), drop(['A', 'C'], 3)]);
    expect(fit.removalEffects.C).toBe(0);
    expect(fit.weights).toEqual({ A: 1, C: 0 });
  });

  it('credits a channel of non-converting paths that leads into a converting one (a first-order chain has no memory)', () => {
    // X is seen only in a path that did not convert, but X -> B and B converts half the time: removing X
    // loses A's way to B. This is the model's definition, documented as such, not a defect.
    const fit = fitMarkov([drop(['A', 'X', 'B']), conv(['B'])]);
    expect(fit.removalEffects.X).toBeGreaterThan(0);
  });

  it('gives one channel alone the whole weight', () => {
    const fit = fitMarkov([conv(['A'], 3), drop(['A'])]);
    expect(fit.conversionProbability).toBeCloseTo(3 / 4, 12);
    expect(fit.weights).toEqual({ A: 1 });
  });

  it('has no weights without conversions', () => {
    const fit = fitMarkov([drop(['A', 'B']), drop(['B'])]);
    expect(fit.conversionProbability).toBe(0);
    expect(fit.weights).toEqual({ A: 0, B: 0 });
    expect(fitMarkov([]).channels).toEqual([]);
  });

  const paths = fc.array(
    fc.record({
      channels: fc.array(channel, { minLength: 1, maxLength: 6 }),
      converted: fc.boolean(),
      count: fc.integer({ min: 1, max: 50 }),
    }),
    { minLength: 1, maxLength: 25 },
  );

  it('agrees with an independent value iteration to 1e-9 on random paths', () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const fit = fitMarkov(ps);
        const ref = referenceRemovalEffects(ps);
        expect(Object.keys(ref).sort()).toEqual(fit.channels);
        for (const c of fit.channels) expect(Math.abs(fit.removalEffects[c]! - ref[c]!)).toBeLessThan(1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('has weights that sum to 1 whenever something converted', () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const fit = fitMarkov(ps);
        const sum = Object.values(fit.weights).reduce((a, b) => a + b, 0);
        if (fit.conversions > 0 && Object.values(fit.removalEffects).some((e) => e > 0)) {
          expect(sum).toBeCloseTo(1, 12);
        } else expect(sum).toBe(0);
      }),
    );
  });

  it('leaves every weight as it was when a new channel is added only as non-converting paths of its own', () => {
    fc.assert(
      fc.property(paths, fc.integer({ min: 1, max: 100 }), (ps, k) => {
        const before = fitMarkov(ps);
        const after = fitMarkov([...ps, drop(['z'], k), drop(['z', 'z'], 1)]);
        expect(after.weights.z).toBe(0);
        for (const c of before.channels) expect(after.weights[c]).toBeCloseTo(before.weights[c]!, 9);
      }),
    );
  });

  it('never gives weight to a channel that only ever ends paths that did not convert', () => {
    fc.assert(
      fc.property(paths, fc.array(channel, { maxLength: 4 }), (ps, prefix) => {
        const fit = fitMarkov([...ps, drop([...prefix, 'z'])]);
        expect(fit.weights.z).toBe(0);
      }),
    );
  });

  it('solves the same system whichever order the paths come in', () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const a = fitMarkov(ps);
        const b = fitMarkov([...ps].reverse());
        for (const c of a.channels) expect(b.weights[c]).toBeCloseTo(a.weights[c]!, 12);
        expect(conversionProbability(transitionCounts(ps))).toBeCloseTo(a.conversionProbability, 12);
      }),
    );
  });
});

describe('the fit as exact credits', () => {
  it('stores integer weights that sum to exactly the scale', () => {
    expect(integerWeights({ a: 1 / 3, b: 1 / 3, c: 1 / 3 })).toEqual({
      a: 333_333_334,
      b: 333_333_333,
      c: 333_333_333,
    });
    expect(integerWeights({ a: 0, b: 0 })).toEqual({ a: 0, b: 0 });
    fc.assert(
      fc.property(fc.dictionary(channel, fc.double({ min: 0, max: 1, noNaN: true })), (w) => {
        const ints = integerWeights(w);
        const sum = Object.values(ints).reduce((a, b) => a + b, 0);
        expect(sum === FIT_WEIGHT_SCALE || sum === 0).toBe(true);
      }),
    );
  });

  it('splits a conversion between its channels by weight, then between each channel’s touches equally', () => {
    // a: 600, b: 300 of the scale (c is not in the path). Path a, b, a: a's 2/3 in halves, b's 1/3.
    const f = dataDrivenFractions(['a', 'b', 'a'], { a: 600, b: 300, c: 100 });
    expect(f).toEqual([
      { num: 600, den: 1800 },
      { num: 300, den: 900 },
      { num: 600, den: 1800 },
    ]);
    // Equal remainders: the lower index takes the extra unit.
    expect(apportion(1_000_000, f)).toEqual([333_334, 333_333, 333_333]);
  });

  it('splits equally when the path’s channels have no weight', () => {
    expect(dataDrivenFractions(['x', 'y', 'y'], { a: 1 })).toEqual([
      { num: 1, den: 2 },
      { num: 1, den: 4 },
      { num: 1, den: 4 },
    ]);
  });

  it('always gives exact fractions that sum to 1', () => {
    fc.assert(
      fc.property(
        fc.array(channel, { minLength: 1, maxLength: 30 }),
        fc.dictionary(channel, fc.integer({ min: 0, max: FIT_WEIGHT_SCALE })),
        fc.integer({ min: -1e12, max: 1e12 }),
        (touches, weights, total) => {
          const shares = apportion(total, dataDrivenFractions(touches, weights));
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        },
      ),
    );
  });
});

describe('weightsMoved', () => {
  const scale = 1_000_000_000;
  it('is false within the tolerance, true past it, for other channels, and between fitted and not', () => {
    const stored = { email: 0.6 * scale, paid_search: 0.4 * scale };
    expect(weightsMoved(stored, { email: 0.604 * scale, paid_search: 0.396 * scale }, 0.005)).toBe(false);
    expect(weightsMoved(stored, { email: 0.606 * scale, paid_search: 0.394 * scale }, 0.005)).toBe(true);
    expect(weightsMoved(stored, { email: 0.6 * scale, direct: 0.4 * scale }, 0.005)).toBe(true);
    expect(weightsMoved(stored, { ...stored, direct: 0 }, 0.005)).toBe(true);
    expect(weightsMoved(stored, null, 0.005)).toBe(true);
    expect(weightsMoved(null, stored, 0.005)).toBe(true);
    expect(weightsMoved(null, null, 0.005)).toBe(false);
    expect(weightsMoved(stored, { ...stored }, 0)).toBe(false);
  });
});
