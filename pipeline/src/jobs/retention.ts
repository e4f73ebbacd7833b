/**
 * Retention: raw event payloads older than the configured age are deleted in small batches.
 * The views derive from event_facts, which are kept, so no figure changes; the order journey falls back to
 * the facts (page, referrer) for pruned events.
 */
import type { Db } from '../../../storage/db';

export async function pruneRawEvents(
  db: Db,
  opts: { olderThanDays: number; now: number; batch?: number },
): Promise<number> {
  if (opts.olderThanDays <= 0) return 0;
  const cutoff = new Date(opts.now - opts.olderThanDays * 86_400_000).toISOString();
  let total = 0;
  for (;;) {
    const rows = await db.query(
      'jobs.retention',
      `delete from raw_events where ctid in (select ctid from raw_events where stored_at < $1 limit $2) returning 1`,
      [cutoff, opts.batch ?? 5000],
    );
    total += rows.length;
    if (rows.length === 0) return total;
  }
}
