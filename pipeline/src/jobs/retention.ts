/**
 * Retention: raw event payloads older than their store's retention (`stores.raw_retention_days`, else the
 * deployment's `RETENTION_RAW_EVENTS_DAYS`; 0 keeps them) are deleted in small batches, store by store.
 * The views derive from event_facts, which are kept, so no figure changes; the order journey falls back to
 * the facts (page, referrer) for pruned events (docs/operations.md, Privacy).
 */
import type { Db } from '../../../storage/db';

export async function pruneRawEvents(
  db: Db,
  opts: { olderThanDays: number; now: number; batch?: number },
): Promise<number> {
  const stores = await db.query<{ store_id: string; days: number }>(
    'jobs.retention_stores',
    `select store_id, coalesce(raw_retention_days, $1) as days from stores
     where coalesce(raw_retention_days, $1) > 0 order by store_id`,
    [opts.olderThanDays],
  );
  let total = 0;
  for (const { store_id: storeId, days } of stores) {
    const cutoff = new Date(opts.now - days * 86_400_000).toISOString();
    for (;;) {
      const rows = await db.query(
        'jobs.retention',
        `delete from raw_events where ctid in
           (select ctid from raw_events where stored_at < $1 and store_id = $2 limit $3) returning 1`,
        [cutoff, storeId, opts.batch ?? 5000],
      );
      total += rows.length;
      if (rows.length === 0) break;
    }
  }
  return total;
}
