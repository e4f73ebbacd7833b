import fc from 'fast-check';
import { maxMinShares, takeFairBatch } from './fair-batch';

/** Items are `<store><n>`: the store is the letters, so 'a1', 'a2', 'b1'. */
const storeOf = (item: string): string => item.replace(/\d+$/, '');
const itemsOf = (store: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${store}${i}`);

describe('maxMinShares', () => {
  it.each([
    [
      'gives the keys under an even share all they have and splits the rest evenly',
      { a: 2, b: 10, c: 50 },
      { a: 2, b: 9, c: 9 },
    ],
    [
      'hands the remainder out one each, to the keys with fewest messages first',
      { a: 7, b: 8, c: 9 },
      { a: 7, b: 7, c: 6 },
    ],
  ])('%s', (_, counts, shares) => {
    expect(Object.fromEntries(maxMinShares(Object.entries(counts), 20))).toEqual(shares);
  });
});

describe('takeFairBatch', () => {
  it('takes every other store whole and a short batch of the store with a backlog, keeping the order', () => {
    const buffer = [...itemsOf('flood', 30), 'a0', 'b0', 'a1', ...itemsOf('late', 1)];
    const fair = takeFairBatch(buffer, storeOf, 10, 100)!;
    // Short batch of 10: the three small stores' 4 messages, and the backlog's 6 oldest.
    expect(fair.batch).toEqual([...itemsOf('flood', 6), 'a0', 'b0', 'a1', 'late0']);
    expect(fair.rest).toEqual(itemsOf('flood', 30).slice(6));
  });

  it('grows the batch past the short size so that every store but the largest goes whole', () => {
    const buffer = [...itemsOf('flood', 100), ...itemsOf('a', 8), ...itemsOf('b', 6)];
    const fair = takeFairBatch(buffer, storeOf, 10, 1000)!;
    // The others' 14, and as many of the flood as the second largest has (8).
    expect(fair.batch).toEqual([...itemsOf('flood', 8), ...itemsOf('a', 8), ...itemsOf('b', 6)]);
  });

  it('shares at most max messages when even that does not fit every other store', () => {
    const buffer = [...itemsOf('x', 50), ...itemsOf('y', 40), ...itemsOf('z', 5)];
    const fair = takeFairBatch(buffer, storeOf, 10, 30)!;
    // 30: z's 5 whole, 25 left for two: 13 to y (fewer messages), 12 to x.
    expect(fair.batch).toEqual([...itemsOf('x', 12), ...itemsOf('y', 13), ...itemsOf('z', 5)]);
  });

  it('leaves first come first served to the caller with one store, or when everything fits', () => {
    expect(takeFairBatch(itemsOf('a', 50), storeOf, 10, 20)).toBeNull();
    expect(takeFairBatch([...itemsOf('a', 5), ...itemsOf('b', 4)], storeOf, 10, 20)).toBeNull();
    // Over the short size, but every store fits beside as many of the largest as the second has.
    expect(takeFairBatch([...itemsOf('a', 8), ...itemsOf('b', 8)], storeOf, 10, 20)).toBeNull();
  });

  const bufferArb = fc
    .array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 300 })
    .map((stores) => stores.map((store, i) => `${store}${i}`));
  const sizesArb = fc.tuple(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 400 }));

  it('loses nothing and keeps each store first in, first out, in the batch and in the rest', () => {
    fc.assert(
      fc.property(bufferArb, sizesArb, (buffer, [short, max]) => {
        const fair = takeFairBatch(buffer, storeOf, Math.min(short, max), max);
        if (!fair) return;
        const isSubsequence = (part: string[]) => {
          let at = 0;
          for (const item of buffer) if (item === part[at]) at++;
          return at === part.length;
        };
        expect(isSubsequence(fair.batch) && isSubsequence(fair.rest)).toBe(true);
        expect([...fair.batch, ...fair.rest].sort()).toEqual([...buffer].sort());
        // Each store's part of the batch is its oldest messages.
        for (const item of fair.rest) {
          const taken = fair.batch.filter((b) => storeOf(b) === storeOf(item));
          expect(taken.every((b) => buffer.indexOf(b) < buffer.indexOf(item))).toBe(true);
        }
      }),
    );
  });

  it('fills the batch to its size, and no store left waiting got fewer than another took, less one', () => {
    fc.assert(
      fc.property(bufferArb, sizesArb, (buffer, [short, max]) => {
        const lower = Math.min(short, max);
        const fair = takeFairBatch(buffer, storeOf, lower, max);
        if (!fair) return;
        expect(fair.batch.length).toBeGreaterThanOrEqual(lower);
        expect(fair.batch.length).toBeLessThanOrEqual(max);
        const taken = (store: string) => fair.batch.filter((b) => storeOf(b) === store).length;
        const most = Math.max(...fair.batch.map((b) => taken(storeOf(b))));
        for (const store of new Set(fair.rest.map(storeOf))) expect(taken(store)).toBeGreaterThanOrEqual(most - 1);
      }),
    );
  });

  it('takes every store but the largest whole when that fits in max', () => {
    fc.assert(
      fc.property(bufferArb, sizesArb, (buffer, [short, max]) => {
        const fair = takeFairBatch(buffer, storeOf, Math.min(short, max), max);
        if (!fair) return;
        const counts = new Map<string, number>();
        for (const item of buffer) counts.set(storeOf(item), (counts.get(storeOf(item)) ?? 0) + 1);
        const sorted = [...counts.values()].sort((x, y) => x - y);
        const needed = buffer.length - sorted.at(-1)! + sorted.at(-2)!;
        if (needed > max) return;
        expect(new Set(fair.rest.map(storeOf)).size).toBe(1);
      }),
    );
  });
});
