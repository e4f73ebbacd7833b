/**
 * Scheduled reconciliation: for every store, recompute the persons active in the last few days,
 * compare the views of those days with the recomputation, report drift (log and metric) and repair it.
 */
import { dayInZone } from '../../../contracts/src/time';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { reconcileStore } from '../operations/reconcile';

export interface ReconcileRecentOptions {
  days: number;
  repair: boolean;
  now: number;
}

export interface StoreDrift {
  storeId: string;
  from: string;
  drift: number;
  repaired: boolean;
}

export async function reconcileRecentDays(db: Db, opts: ReconcileRecentOptions, logger: Logger): Promise<StoreDrift[]> {
  const stores = await db.query<{ store_id: string; timezone: string }>(
    'jobs.stores',
    'select store_id, timezone from stores order by store_id',
  );
  const results: StoreDrift[] = [];
  for (const s of stores) {
    const from = dayInZone(opts.now - opts.days * 86_400_000, s.timezone);
    const found = await reconcileStore(db, s.store_id, { from, recentOnly: true, maxRows: 20 });
    let repaired = false;
    if (found.driftCount > 0) {
      logger.warn(
        { storeId: s.store_id, from, drift: found.driftCount, sample: found.drift.slice(0, 5) },
        'reconciliation found drift',
      );
      if (opts.repair) {
        await reconcileStore(db, s.store_id, { repair: true });
        repaired = true;
        logger.warn({ storeId: s.store_id }, 'views rebuilt from the facts');
      }
    }
    results.push({ storeId: s.store_id, from, drift: found.driftCount, repaired });
  }
  return results;
}
