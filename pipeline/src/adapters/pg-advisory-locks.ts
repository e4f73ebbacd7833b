/**
 * Transaction-level advisory locks on names of one store, taken in sorted order so that concurrent batches
 * cannot deadlock on them, released at commit or rollback: persons (work on one person is serialized across
 * workers, docs/product.md, Operations), identity keys (docs/decisions.md, Identity), variants whose unit
 * cost changes (docs/decisions.md, Conversions and goals) and a store's erasure gate (docs/decisions.md, Privacy).
 */
import type { Query } from '../../../storage/db';

export type LockSpace = 'person' | 'key' | 'variant' | 'erasure';

/** The text a lock is hashed from. Persons keep the plain `store:person` form they have always been locked by. */
const PREFIX: Record<LockSpace, (storeId: string) => string> = {
  person: (storeId) => `${storeId}:`,
  key: (storeId) => `${storeId}:key:`,
  variant: (storeId) => `${storeId}:variant:`,
  erasure: (storeId) => `${storeId}:erasure:`,
};

export async function lockNames(
  q: Query,
  tag: string,
  storeId: string,
  space: LockSpace,
  names: Iterable<string>,
  mode: 'exclusive' | 'shared' = 'exclusive',
): Promise<void> {
  await lockNamesOfStores(q, tag, space, [{ storeId, names }], mode);
}

/** Locks names of several stores in one statement, in (store, name) order. */
export async function lockNamesOfStores(
  q: Query,
  tag: string,
  space: LockSpace,
  stores: ReadonlyArray<{ storeId: string; names: Iterable<string> }>,
  mode: 'exclusive' | 'shared' = 'exclusive',
): Promise<void> {
  const keys: string[] = [];
  for (const { storeId, names } of [...stores].sort((a, b) => (a.storeId < b.storeId ? -1 : 1))) {
    for (const n of [...new Set(names)].sort()) keys.push(PREFIX[space](storeId) + n);
  }
  if (keys.length === 0) return;
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await q(tag, `select ${fn}(hashtextextended(k, 0)) from unnest($1::text[]) with ordinality as t(k, i) order by i`, [
    keys,
  ]);
}
