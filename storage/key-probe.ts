/**
 * The batch's lookups of many keys in one store (docs/decisions.md, Storage, "one index probe per key"). Written
 * as `store_id = $1 and key = any($2)`, the plan rests on the table's statistics: while they do not cover the
 * store (a new installation's first minute, a fast-growing store between two autoanalyzes) PostgreSQL may read
 * the store's whole range by `store_id` alone and test every row against the key array one element at a time
 * (a parameter array is not hashed), which costs rows times keys: measured 232 ms for 4,000 keys against a
 * 5,000-row store, where probing the index once per key takes 7 ms. The form below leaves the planner no such
 * choice: the keys are the outer side of a nested loop and the subquery, fenced by `offset 0` so that it is
 * not merged into a join the planner could reorder, is one index probe per key. One choice remains: while the
 * planner counts the table empty, it may probe through another index on `store_id` alone, reading the store's
 * range per key; the rebuild and the daemon keep the counts of filling tables from reading zero (docs/decisions.md,
 * Operations, "planner counts of filling tables").
 */

import type { QueryResultRow } from 'pg';
import type { Query } from './db';

export interface KeyProbe {
  /** The select list, evaluated in the probe (the table's columns and expressions on them). */
  select: string;
  /** The table, or tables joined (qualified as `select`, `store` and `key` refer to them). */
  from: string;
  /** The column matched against each key of $2 (text). */
  key: string;
  /** The store column matched against $1. */
  store?: string;
}

/**
 * SQL for the rows of `from` in store $1 whose `key` is one of the texts of the array $2 (a key given twice
 * is probed once), each row once per key that matches it.
 */
export function keyProbeSql({ select, from, key, store = 'store_id' }: KeyProbe): string {
  return `select p.* from (select distinct k from unnest($2::text[]) as keys(k)) as keys,
    lateral (select ${select} from ${from} where ${store} = $1 and ${key} = keys.k offset 0) as p`;
}

/**
 * The same probe for keys of several stores: $1 the stores and $2 the keys, pairwise (a pair given twice is
 * probed once). Each row comes with its store as `probe_store`, its last column. A batch holds many stores, and
 * one statement for all of them costs less than one per store (docs/decisions.md, Storage, "A batch's stores
 * written together").
 */
export function keyProbeOfStoresSql({ select, from, key, store = 'store_id' }: KeyProbe): string {
  return `select p.*, keys.s as probe_store from (select distinct s, k from unnest($1::text[], $2::text[]) as keys(s, k)) as keys,
    lateral (select ${select} from ${from} where ${store} = keys.s and ${key} = keys.k offset 0) as p`;
}

/** Keys to probe in one store. */
export interface StoreKeys {
  storeId: string;
  keys: readonly string[];
}

/**
 * Runs a probe for the keys of one or more stores in one statement and returns the rows by store (every store
 * given has an entry). One store alone is probed by `keyProbeSql`, without the store beside each key; with
 * several, each row's `probe_store` is taken off it (the last property, which V8 removes without reshaping the
 * row) so that the rows are what the one-store probe returns.
 */
export async function probeKeysOfStores<R extends QueryResultRow>(
  q: Query,
  tag: string,
  probe: KeyProbe,
  entries: readonly StoreKeys[],
): Promise<Map<string, R[]>> {
  const byStore = new Map<string, R[]>(entries.map((e) => [e.storeId, []]));
  const probed = entries.filter((e) => e.keys.length > 0);
  if (probed.length === 1) {
    const [{ storeId, keys }] = probed as [StoreKeys];
    byStore.set(storeId, await q<R>(tag, keyProbeSql(probe), [storeId, keys]));
  } else if (probed.length > 1) {
    const stores: string[] = [];
    const keys: string[] = [];
    for (const e of probed)
      for (const k of e.keys) {
        stores.push(e.storeId);
        keys.push(k);
      }
    const rows = await q<R & { probe_store?: string }>(tag, keyProbeOfStoresSql(probe), [stores, keys]);
    for (const r of rows) {
      const storeId = r.probe_store!;
      delete r.probe_store;
      byStore.get(storeId)!.push(r);
    }
  }
  return byStore;
}
