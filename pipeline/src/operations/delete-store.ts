/**
 * Deletes a store (docs/operations.md, Privacy): its credentials first (the API refuses them from then on), then
 * every message of its subjects in both streams, then every row of every table that holds a `store_id` (found in
 * the catalog, so that a table added later is not forgotten). Two rows stay: the audit's, the proof of the deletion,
 * and the store's tombstone, which makes the pipeline drop a message of the store still in flight (until the
 * housekeeping expires it). Neither holds personal data.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { PrivacySource } from '../../../contracts/src/privacy';
import type { Db } from '../../../storage/db';
import { recordPrivacyAudit } from '../../../storage/privacy';
import { STORE_TOMBSTONE, takeErasureGate } from '../adapters/pg-erasure-screen';
import { purgeStoreMessages } from '../adapters/stream-erasure';

/** Tables whose rows outlive the store. */
const KEPT = new Set(['privacy_audit']);

export interface StoreDeletion {
  storeId: string;
  source: PrivacySource;
  credential: string;
  requestedAt?: Date;
}

/** Rows deleted by table, and `stream_messages`. */
export type DeletionCounts = Record<string, number>;

export async function deleteStore(
  deps: { db: Db; jsm?: JetStreamManager },
  req: StoreDeletion,
): Promise<DeletionCounts> {
  const { db } = deps;
  const { storeId } = req;
  const requestedAt = req.requestedAt ?? new Date();
  await db.query(
    'store_delete.revoke',
    'update credentials set revoked_at = now() where store_id = $1 and revoked_at is null',
    [storeId],
  );
  // The store's messages go first: should the deletion stop half-way, running it again finds the rows it needs.
  const streamMessages = deps.jsm ? await purgeStoreMessages(deps.jsm, storeId) : 0;
  return db.transaction('store_delete', async (tx) => {
    // No batch of the store is in flight while its rows go, and none starts before they are gone.
    await takeErasureGate(tx, storeId, 'exclusive');
    const tables = await tx<{ table_name: string }>(
      'store_delete.tables',
      `select c.table_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
       where c.table_schema = current_schema() and c.column_name = 'store_id' and t.table_type = 'BASE TABLE'
       order by c.table_name`,
    );
    const counts: DeletionCounts = {};
    // Rows keyed by the store's connections go with them; the tables that reference the store cascade.
    const [deliveries] = await tx<{ n: string }>(
      'store_delete.hook_deliveries',
      `with d as (delete from store_hook_deliveries where connection_id in
         (select connection_id from store_connections where store_id = $1) returning 1) select count(*) as n from d`,
      [storeId],
    );
    counts.store_hook_deliveries = Number(deliveries!.n);
    for (const { table_name: table } of tables) {
      if (KEPT.has(table) || table === 'stores') continue;
      const [row] = await tx<{ n: string }>(
        `store_delete.${table}`,
        `with d as (delete from ${table} where store_id = $1 returning 1) select count(*) as n from d`,
        [storeId],
      );
      counts[table] = Number(row!.n);
    }
    const [store] = await tx<{ n: string }>(
      'store_delete.store',
      'with d as (delete from stores where store_id = $1 returning 1) select count(*) as n from d',
      [storeId],
    );
    counts.stores = Number(store!.n);
    await tx(
      'store_delete.tombstone',
      'insert into erased_identifiers (store_id, digest) values ($1, $2) on conflict do nothing',
      [storeId, STORE_TOMBSTONE],
    );
    counts.stream_messages = streamMessages;
    await recordPrivacyAudit(tx, {
      storeId,
      action: 'delete_store',
      source: req.source,
      credential: req.credential,
      requestedAt,
      counts,
    });
    return counts;
  });
}
