import fc from 'fast-check';
import { DAY_MS, selectTouches } from './lookback';

interface Touch {
  start: number;
  direct: boolean;
  key: string;
  label: string;
}

const T = Date.UTC(2024, 5, 15, 12, 0, 0);
const HOUR = 3_600_000;

function touch(label: string, start: number, direct = false, key = label): Touch {
  return { start, direct, key, label };
}

function labels(touches: readonly Touch[]): string[] {
  return touches.map((t) => t.label);
}

describe('selectTouches', () => {
  it.each<[string, Touch[], number, string[], boolean]>([
    ['one touch', [touch('a', T - HOUR)], 30, ['a'], false],
    [
      'two touches, given out of order, come back in time order',
      [touch('b', T - HOUR), touch('a', T - 2 * HOUR)],
      30,
      ['a', 'b'],
      false,
    ],
    ['all direct: kept', [touch('d2', T - HOUR, true), touch('d1', T - 2 * HOUR, true)], 30, ['d1', 'd2'], false],
    [
      'direct dropped when a non-direct touch is in the window',
      [touch('d1', T - 3 * HOUR, true), touch('a', T - 2 * HOUR), touch('d2', T - HOUR, true)],
      30,
      ['a'],
      false,
    ],
    [
      'direct kept when the only non-direct touch is outside the window',
      [touch('old', T - 31 * DAY_MS), touch('d', T - HOUR, true)],
      30,
      ['d'],
      false,
    ],
    ['no touch at all', [], 30, [], true],
    ['only touches outside the window', [touch('old', T - 8 * DAY_MS), touch('later', T + 1)], 7, [], true],
    ['exactly at the lookback boundary: inclusive', [touch('edge', T - 7 * DAY_MS)], 7, ['edge'], false],
    ['1 ms outside the lookback boundary', [touch('out', T - 7 * DAY_MS - 1)], 7, [], true],
    ['a touch at the conversion instant counts', [touch('now', T)], 1, ['now'], false],
    ['a touch 1 ms after the conversion is excluded', [touch('a', T - HOUR), touch('after', T + 1)], 1, ['a'], false],
    [
      'equal start: tie broken by key',
      [touch('second', T - HOUR, false, 'k2'), touch('first', T - HOUR, false, 'k1')],
      30,
      ['first', 'second'],
      false,
    ],
    [
      'key order is by code unit, not locale (uppercase sorts before lowercase)',
      [touch('lower', T - HOUR, false, 'a'), touch('upper', T - HOUR, false, 'B')],
      30,
      ['upper', 'lower'],
      false,
    ],
    [
      'lookback 0 keeps only touches at the conversion instant',
      [touch('now', T), touch('before', T - 1)],
      0,
      ['now'],
      false,
    ],
  ])('%s', (_name, touches, days, expected, syntheticDirect) => {
    const result = selectTouches(touches, T, days);
    expect(labels(result.touches)).toEqual(expected);
    expect(result.syntheticDirect).toBe(syntheticDirect);
  });

  it('returns the caller’s own objects and does not modify the input', () => {
    const input = [touch('b', T - HOUR), touch('a', T - 2 * HOUR)];
    const copy = structuredClone(input);
    const result = selectTouches(input, T, 30);
    expect(input).toEqual(copy);
    expect(result.touches[0]).toBe(input[1]);
    expect(result.touches).not.toBe(input);
  });

  it.each<[number, number]>([
    [Number.NaN, 30],
    [T, -1],
    [T, Number.NaN],
    [T, Number.POSITIVE_INFINITY],
  ])('throws on conversionAt %p, lookbackDays %p', (at, days) => {
    expect(() => selectTouches([], at, days)).toThrow(RangeError);
  });

  it('properties: in window, time-ordered, direct only when nothing else, order-independent', () => {
    const touchArb = fc.record({
      start: fc.integer({ min: T - 40 * DAY_MS, max: T + DAY_MS }),
      direct: fc.boolean(),
      key: fc.string({ maxLength: 3 }),
      label: fc.constant(''),
    });
    fc.assert(
      fc.property(fc.array(touchArb, { maxLength: 20 }), fc.constantFrom(1, 7, 14, 30), (touches, days) => {
        const from = T - days * DAY_MS;
        const inWindow = touches.filter((t) => t.start >= from && t.start <= T);
        const { touches: selected, syntheticDirect } = selectTouches(touches, T, days);

        expect(syntheticDirect).toBe(inWindow.length === 0);
        for (const t of selected) expect(t.start >= from && t.start <= T).toBe(true);
        for (let i = 1; i < selected.length; i++) {
          const [p, c] = [selected[i - 1]!, selected[i]!];
          expect(p.start < c.start || (p.start === c.start && p.key <= c.key)).toBe(true);
        }
        const anyNonDirect = inWindow.some((t) => !t.direct);
        expect(selected).toHaveLength(anyNonDirect ? inWindow.filter((t) => !t.direct).length : inWindow.length);
        if (anyNonDirect) expect(selected.every((t) => !t.direct)).toBe(true);

        const reversed = selectTouches([...touches].reverse(), T, days).touches;
        expect(reversed.map((t) => [t.start, t.key, t.direct])).toEqual(
          selected.map((t) => [t.start, t.key, t.direct]),
        );
      }),
    );
  });
});
