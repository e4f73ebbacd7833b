/**
 * Which version of a store push (order, product, customer, ad spend row) is kept: the one with the latest
 * `updated_at`, to the millisecond; of two with the same time, the one later in the stream (the higher stream
 * sequence). The order of versions is then total and independent of how messages fall into batches: the daemon's
 * pick within a batch, its upsert across batches and a rebuild all keep the greatest version (docs/decisions.md,
 * Storage, "Which push version wins"). Pure.
 */

/** A push version's place in that order. */
export interface PushVersion {
  /** `updated_at` as epoch milliseconds (finer digits dropped, as `Date.parse` drops them). */
  updatedAtMs: number;
  /** The stream sequence of the message that carried it. */
  seq: number;
}

export function pushVersionOf(updatedAt: string, seq: number): PushVersion {
  return { updatedAtMs: Date.parse(updatedAt), seq };
}

/** Whether version `a` replaces version `b` (strictly greater: the same message again replaces nothing). */
export function supersedesVersion(a: PushVersion, b: PushVersion): boolean {
  return a.updatedAtMs > b.updatedAtMs || (a.updatedAtMs === b.updatedAtMs && a.seq > b.seq);
}

/** Keeps, per key, the greatest version among `rows` (the first of equal ones), in the order keys first appear. */
export function greatestPerKey<T>(
  rows: readonly T[],
  keyOf: (row: T) => string,
  versionOf: (row: T) => PushVersion,
): T[] {
  const best = new Map<string, { row: T; version: PushVersion }>();
  for (const row of rows) {
    const key = keyOf(row);
    const version = versionOf(row);
    const held = best.get(key);
    if (!held || supersedesVersion(version, held.version)) best.set(key, { row, version });
  }
  return [...best.values()].map((b) => b.row);
}

/**
 * The `updated_at` stored with a version: its time to the millisecond, so that what PostgreSQL compares (a
 * `timestamptz` keeps microseconds) is what `supersedesVersion` compared.
 */
export function storedUpdatedAt(v: PushVersion): string {
  return new Date(v.updatedAtMs).toISOString();
}
