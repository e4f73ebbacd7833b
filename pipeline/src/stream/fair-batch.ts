/**
 * A lane's live batch shared between its stores (docs/decisions.md, Ingestion, "A store's live backlog waits in
 * the daemon too"). Taken first come first served, a store with a backlog in the lane's buffer (a burst within its
 * live allowance, a replay) fills the batches, and every other store's events wait behind all of it in batches as
 * long as the time bound lets them be. Here, when one store holds more of the buffer than the others, the batch
 * takes every other store's messages and from that store only the rest of a short batch: the others' events then
 * wait for one short batch, not for the backlog.
 *
 * The batch's size: at least `short` (what commits within the shared time target), enough for every store but
 * the largest to go whole (the others' messages plus as many of the largest as the second largest has), at most
 * `max`. Its messages are shared max-min fairly: a store with fewer than its share goes whole, the rest split what
 * is left evenly, each taking its oldest messages. Pure; the order of messages is kept in the batch and in the rest.
 */

export interface FairBatch<T> {
  batch: T[];
  rest: T[];
}

/**
 * How many of each key's messages a batch of `total` takes when it cannot take them all: max-min fair shares
 * (keys with at most an even share of what is left go whole, the others get an even share of the rest, the
 * remainder one each to the keys with fewest messages first). `counts` sorted by count, ascending.
 */
export function maxMinShares<K>(counts: readonly (readonly [K, number])[], total: number): Map<K, number> {
  const shares = new Map<K, number>();
  let left = total;
  let i = 0;
  for (; i < counts.length; i++) {
    const [key, count] = counts[i]!;
    if (count * (counts.length - i) > left) break;
    shares.set(key, count);
    left -= count;
  }
  const over = counts.length - i;
  if (over === 0) return shares;
  const even = Math.floor(left / over);
  let remainder = left - even * over;
  for (; i < counts.length; i++) {
    shares.set(counts[i]![0], even + (remainder > 0 ? 1 : 0));
    remainder--;
  }
  return shares;
}

/**
 * The batch to take from `buffer`, or null when first come first served does it (one store only, or everything
 * fits in the batch's size: the caller then takes up to `max` in order).
 */
export function takeFairBatch<T>(
  buffer: readonly T[],
  keyOf: (item: T) => string,
  short: number,
  max: number,
): FairBatch<T> | null {
  if (buffer.length <= short) return null;
  const counts = new Map<string, number>();
  for (const item of buffer) {
    const key = keyOf(item);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size < 2) return null;
  const sorted = [...counts].sort((a, b) => a[1] - b[1]);
  const largest = sorted.at(-1)![1];
  const second = sorted.at(-2)![1];
  const total = Math.min(max, Math.max(short, buffer.length - largest + second));
  if (buffer.length <= total) return null;
  const shares = maxMinShares(sorted, total);
  const batch: T[] = [];
  const rest: T[] = [];
  for (const item of buffer) {
    const key = keyOf(item);
    const share = shares.get(key)!;
    if (share > 0) {
      batch.push(item);
      shares.set(key, share - 1);
    } else rest.push(item);
  }
  return { batch, rest };
}
