/**
 * Reconciliation (docs/product.md, Attribution invariant): recompute a store's views from its stored facts alone
 * (identity from the links, every person from its facts, spend from the ad spend rows), compare with what the
 * incrementally maintained views hold, report the drift row by row, and optionally repair it. One module per
 * phase: identity, sessions, conversions, the credit rollups, spend, analytics; the repair rebuilds them all.
 */
import type { Db, TransactionOptions } from '../../../../storage/db';
import { loadStores, rulesOf } from '../../adapters/pg-fact-store';
import { compareAnalytics } from './analytics';
import { compareConversions } from './conversions';
import { reconcileIdentity, recentPersons } from './identity';
import { Expectations, recomputeChunk } from './recompute';
import { repairViews } from './repair';
import { compareAdRollup, compareAttributionRollups } from './rollups';
import { compareSessions } from './sessions';
import { compareSpend } from './spend';
import { type DriftRow, lockViews, type ReconcileOptions, type ReconcileResult } from './types';

export type { DriftRow, ReconcileOptions, ReconcileResult } from './types';

export async function reconcileStore(db: Db, storeId: string, opts: ReconcileOptions = {}): Promise<ReconcileResult> {
  const maxRows = opts.maxRows ?? 1000;
  const chunk = opts.chunk ?? 500;
  const drift: DriftRow[] = [];
  let driftCount = 0;
  const report = (row: DriftRow): void => {
    driftCount++;
    if (drift.length < maxRows) drift.push(row);
  };
  // One snapshot for every read (the live pipeline may commit meanwhile); a repair takes the views' write
  // locks so no batch interleaves with the rebuild.
  const mode: TransactionOptions = opts.repair
    ? { isolation: 'read committed' }
    : { isolation: 'repeatable read', readOnly: true };
  return db.transaction(
    'reconcile',
    async (q) => {
      if (opts.repair) {
        await lockViews(q, 'reconcile.lock');
        await opts.beforeRepair?.(q);
      }
      const [store] = await loadStores(q, [storeId]).then((m) => [...m.values()]);
      if (!store) throw new Error(`no store with id ${storeId}`);
      // The stored settings and data-driven fits: reconciliation holds under the weights stored.
      const rules = rulesOf(store);
      const identity = await reconcileIdentity(q, storeId, report);
      const scoped = Boolean(opts.recentOnly && opts.from && !opts.repair);
      const personIds = scoped
        ? await recentPersons(q, storeId, identity, opts.from!, rules.lookbackDays)
        : identity.personIds;
      const done = (conversions: number, repaired: boolean): ReconcileResult => ({
        storeId,
        persons: personIds.length,
        conversions,
        driftCount,
        drift,
        repaired,
      });

      if (opts.repair) return done(await repairViews(q, storeId, personIds, identity.groups, rules, chunk), true);

      // Every person recomputed chunk by chunk, sessions compared as they come, the rest summed for the end.
      const expected = new Expectations();
      for (let i = 0; i < personIds.length; i += chunk) {
        const recomputed = await recomputeChunk(q, storeId, personIds.slice(i, i + chunk), identity.groups, rules);
        expected.add(recomputed);
        await compareSessions(q, storeId, recomputed.loaded.clientIds, recomputed.views, report);
      }
      await compareConversions(q, storeId, expected.digests, opts, scoped, report);
      await compareAttributionRollups(q, storeId, expected.rollup, opts, report);
      await compareAdRollup(q, storeId, expected.adRollup, opts, report);
      await compareSpend(q, storeId, opts, report);
      await compareAnalytics(q, storeId, expected.analytics, opts, report);
      return done(expected.conversions, false);
    },
    mode,
  );
}
