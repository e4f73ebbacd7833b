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
