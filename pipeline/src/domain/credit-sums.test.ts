import { addSums, addValues, type CreditSums, isZeroSums } from './credit-sums';

const sums = (w: number, n: number, v: number, c: number): CreditSums => ({
  weight: w,
  newWeight: n,
  valueMicros: v,
  cogsMicros: c,
});

describe('addSums', () => {
  it('adds and retracts per key without sharing the caller’s object', () => {
    const into = new Map<string, CreditSums>();
    const credit = sums(1_000_000, 0, 25_000_000, 9_400_000);
    addSums(into, 'a', credit);
    addSums(into, 'a', credit);
    addSums(into, 'b', credit, -1);
    expect(into.get('a')).toEqual(sums(2_000_000, 0, 50_000_000, 18_800_000));
    expect(into.get('b')).toEqual(sums(-1_000_000, 0, -25_000_000, -9_400_000));
    expect(credit).toEqual(sums(1_000_000, 0, 25_000_000, 9_400_000));
    addSums(into, 'a', sums(2_000_000, 0, 50_000_000, 18_800_000), -1);
    expect(isZeroSums(into.get('a')!)).toBe(true);
    expect(isZeroSums(into.get('b')!)).toBe(false);
  });
});

describe('addValues', () => {
  it('adds and retracts per key and position without sharing the caller’s array', () => {
    const into = new Map<string, number[]>();
    const row = [3, 0, 1_250_000];
    addValues(into, 'a', row);
    addValues(into, 'a', row);
    addValues(into, 'b', row, -1);
    expect(into.get('a')).toEqual([6, 0, 2_500_000]);
    expect(into.get('b')).toEqual([-3, 0, -1_250_000]);
    expect(row).toEqual([3, 0, 1_250_000]);
    addValues(into, 'a', [6, 0, 2_500_000], -1);
    // Zeros stay plain zeros (no -0), so a group brought back to nothing compares equal to an empty one.
    expect(Object.is(into.get('a')![1], 0)).toBe(true);
    expect(into.get('a')).toEqual([0, 0, 0]);
  });
});
