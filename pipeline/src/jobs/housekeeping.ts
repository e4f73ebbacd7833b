/** Dead-letter housekeeping: old poison messages and old redriven webhook dead letters go. */
import type { Db } from '../../../storage/db';

export async function pruneDeadLetters(
  db: Db,
  opts: { olderThanDays: number; now: number },
): Promise<{ events: number; webhooks: number }> {
  if (opts.olderThanDays <= 0) return { events: 0, webhooks: 0 };
  const cutoff = new Date(opts.now - opts.olderThanDays * 86_400_000).toISOString();
  const events = await db.query('jobs.dead_letters', 'delete from dead_letters where created_at < $1 returning 1', [
    cutoff,
  ]);
  // Webhook dead letters stay until someone redrives them (or removes the destination); redriven ones go.
  const webhooks = await db.query(
    'jobs.webhook_dead_letters',
    'delete from webhook_dead_letters where redriven_at is not null and redriven_at < $1 returning 1',
    [cutoff],
  );
  return { events: events.length, webhooks: webhooks.length };
}

/**
 * Tombstones of erased persons expire (docs/operations.md, Privacy): by then no message published before the
 * erasure is still on its way, and the stream no longer holds any message of that age.
 */
export async function pruneTombstones(db: Db, opts: { olderThanDays: number; now: number }): Promise<number> {
  if (opts.olderThanDays <= 0) return 0;
  const cutoff = new Date(opts.now - opts.olderThanDays * 86_400_000).toISOString();
  const rows = await db.query('jobs.tombstones', 'delete from erased_identifiers where erased_at < $1 returning 1', [
    cutoff,
  ]);
  return rows.length;
}
