import fc from 'fast-check';
import type { ShopCustomer } from '../../../contracts/src/pushes';
import { greatestPerKey, type PushVersion, pushVersionOf, storedUpdatedAt, supersedesVersion } from './push-versions';
import { StreamFacts } from './stream-facts';

describe('supersedesVersion', () => {
  const v = (updatedAt: string, seq: number): PushVersion => pushVersionOf(updatedAt, seq);

  it('takes the later updated_at, whatever the sequences', () => {
    expect(supersedesVersion(v('2026-03-02T10:00:01Z', 1), v('2026-03-02T10:00:00Z', 9))).toBe(true);
    expect(supersedesVersion(v('2026-03-02T10:00:00Z', 9), v('2026-03-02T10:00:01Z', 1))).toBe(false);
  });

  it('takes the later message of two with the same time, to the millisecond, and never the same message again', () => {
    expect(supersedesVersion(v('2026-03-02T10:00:00Z', 5), v('2026-03-02T10:00:00.000Z', 4))).toBe(true);
    expect(supersedesVersion(v('2026-03-02T10:00:00Z', 4), v('2026-03-02T10:00:00Z', 5))).toBe(false);
    expect(supersedesVersion(v('2026-03-02T10:00:00Z', 5), v('2026-03-02T10:00:00Z', 5))).toBe(false);
    // Microseconds apart in one millisecond is a tie; an offset names the same instant.
    expect(supersedesVersion(v('2026-03-02T10:00:00.000400Z', 5), v('2026-03-02T10:00:00.000900Z', 4))).toBe(true);
    expect(supersedesVersion(v('2026-03-02T11:00:00+01:00', 5), v('2026-03-02T10:00:00Z', 4))).toBe(true);
  });

  it('stores updated_at to the millisecond it compared', () => {
    expect(storedUpdatedAt(v('2026-03-02T10:00:00.000900Z', 1))).toBe('2026-03-02T10:00:00.000Z');
    expect(storedUpdatedAt(v('2026-03-02T11:00:00.123+01:00', 1))).toBe('2026-03-02T10:00:00.123Z');
  });
});

/** A pushed version of customer `id` at `updatedAt`, told apart by its note. */
interface Pushed {
  id: string;
  updatedAt: string;
  note: string;
}

/** Few keys and few times, so that most versions tie with another of their key. */
const TIMES = [
  '2026-03-02T10:00:00Z',
  '2026-03-02T10:00:00.000700Z',
  '2026-03-02T10:00:00.001Z',
  '2026-03-02T09:00:00Z',
];
const streamArb = fc.array(
  fc.record({ id: fc.constantFrom('a', 'b'), time: fc.constantFrom(...TIMES), note: fc.string({ maxLength: 3 }) }),
  { minLength: 1, maxLength: 10 },
);

/**
 * The daemon's path for a stream cut into batches of `sizes`: each batch's greatest version per key
 * (`greatestPerKey`, the in-batch pick), then each replaces what is held only if it supersedes it (the upsert's
 * condition). Returns the held notes by key.
 */
function daemon(stream: ReadonlyArray<Pushed & { seq: number }>, sizes: readonly number[]): Record<string, string> {
  const held = new Map<string, Pushed & { seq: number }>();
  const versionOf = (p: Pushed & { seq: number }) => pushVersionOf(p.updatedAt, p.seq);
  let at = 0;
  for (const size of sizes) {
    for (const p of greatestPerKey(stream.slice(at, at + size), (r) => r.id, versionOf)) {
      const cur = held.get(p.id);
      if (!cur || supersedesVersion(versionOf(p), versionOf(cur))) held.set(p.id, p);
    }
    at += size;
  }
  return Object.fromEntries([...held].map(([id, p]): [string, string] => [id, p.note]).sort());
}

/** A rebuild's path: the stream read in order by `StreamFacts`. */
function rebuild(stream: ReadonlyArray<Pushed & { seq: number }>): Record<string, string> {
  const facts = new StreamFacts('EUR', () => 1);
  for (const p of stream) {
    const customer = { id: p.id, updated_at: p.updatedAt, note: p.note } as unknown as ShopCustomer;
    facts.add({ kind: 'customer', storeId: 's1', customer }, p.seq);
  }
  return Object.fromEntries(
    facts
      .customers()
      .map((c): [string, string] => [c.value.id, (c.value as unknown as { note: string }).note])
      .sort(),
  );
}

/** Every way to cut `n` messages into consecutive batches, as batch sizes. */
function everyCut(n: number): number[][] {
  if (n === 0) return [[]];
  const cuts: number[][] = [];
  for (let first = 1; first <= n; first++) for (const rest of everyCut(n - first)) cuts.push([first, ...rest]);
  return cuts;
}

describe('the daemon and a rebuild keep the same push versions', () => {
  it('for every cut of a stream into batches', () => {
    fc.assert(
      fc.property(streamArb, (pushed) => {
        const stream = pushed.map((p, i) => ({ id: p.id, updatedAt: p.time, note: p.note, seq: 10 + i }));
        const expected = rebuild(stream);
        const cuts = everyCut(stream.length);
        expect(cuts.length).toBe(2 ** (stream.length - 1));
        for (const sizes of cuts) expect(daemon(stream, sizes)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('whatever order the messages are delivered in (two lanes, a redelivery)', () => {
    fc.assert(
      fc.property(
        streamArb.chain((pushed) => {
          const stream = pushed.map((p, i) => ({ id: p.id, updatedAt: p.time, note: p.note, seq: 10 + i }));
          return fc.record({
            stream: fc.constant(stream),
            delivered: fc.shuffledSubarray(stream, { minLength: stream.length, maxLength: stream.length }),
            again: fc.subarray(stream),
          });
        }),
        ({ stream, delivered, again }) => {
          expect(daemon([...delivered, ...again], [delivered.length + again.length])).toEqual(rebuild(stream));
          expect(
            daemon(
              [...delivered, ...again],
              [...delivered, ...again].map(() => 1),
            ),
          ).toEqual(rebuild(stream));
        },
      ),
      { numRuns: 200 },
    );
  });
});
