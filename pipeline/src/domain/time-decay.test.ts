import fc from 'fast-check';
import { DECAY_SCALE, timeDecayFractions } from './time-decay';

const DAY = 86_400_000;
const H = 7 * DAY;

describe('timeDecayFractions', () => {
  it('halves the weight per half-life: 1 : 2 : 4 for touchpoints two and one half-lives before the last', () => {
    expect(timeDecayFractions([0, H, 2 * H], H)).toEqual([
      { num: DECAY_SCALE / 4, den: (7 * DECAY_SCALE) / 4 },
      { num: DECAY_SCALE / 2, den: (7 * DECAY_SCALE) / 4 },
      { num: DECAY_SCALE, den: (7 * DECAY_SCALE) / 4 },
    ]);
  });

  it('gives equal shares to touchpoints at the same time, and 1 to a single one', () => {
    expect(timeDecayFractions([5, 5, 5], H)).toEqual(Array(3).fill({ num: DECAY_SCALE, den: 3 * DECAY_SCALE }));
    expect(timeDecayFractions([123], H)).toEqual([{ num: DECAY_SCALE, den: DECAY_SCALE }]);
  });

  it('depends on the gaps between touchpoints only (the conversion time cancels out)', () => {
    const starts = [0, 2.5 * DAY, 9 * DAY];
    const shifted = starts.map((s) => s + 40 * DAY);
    expect(timeDecayFractions(shifted, H)).toEqual(timeDecayFractions(starts, H));
  });

  it('credits nothing to a touchpoint over 32 half-lives older than the last one', () => {
    const [old, last] = timeDecayFractions([0, 40 * DAY], DAY);
    expect(old!.num).toBe(0);
    expect(last!.num).toBe(last!.den);
  });

  it('a shorter half-life favours the last touchpoint more', () => {
    const share = (halfLife: number) => {
      const f = timeDecayFractions([0, 3 * DAY], halfLife);
      return f[1]!.num / f[1]!.den;
    };
    expect(share(1 * DAY)).toBeGreaterThan(share(3 * DAY));
    expect(share(3 * DAY)).toBeCloseTo(2 / 3, 9);
    expect(share(30 * DAY)).toBeGreaterThan(0.5);
  });

  it('gives integer fractions summing to exactly 1, non-decreasing in time, the same on every call', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -180 * DAY, max: 180 * DAY }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0.1, max: 365, noNaN: true }),
        (raw, halfLifeDays) => {
          const starts = [...raw].sort((a, b) => a - b);
          const f = timeDecayFractions(starts, halfLifeDays * DAY);
          expect(f.every((x) => Number.isSafeInteger(x.num) && x.den === f[0]!.den)).toBe(true);
          expect(f.reduce((a, x) => a + x.num, 0)).toBe(f[0]!.den);
          for (let i = 1; i < f.length; i++) expect(f[i]!.num).toBeGreaterThanOrEqual(f[i - 1]!.num);
          expect(timeDecayFractions(starts, halfLifeDays * DAY)).toEqual(f);
        },
      ),
    );
  });

  it.each([
    [[], H],
    [[0, Number.NaN], H],
    [[0], 0],
    [[0], -1],
    [[0], Number.POSITIVE_INFINITY],
  ])('throws on starts %p with half-life %p', (starts, halfLife) => {
    expect(() => timeDecayFractions(starts, halfLife)).toThrow(RangeError);
  });
});
