/**
 * Re-crediting a store under its stored settings, for a new data-driven fit: only the data-driven credits depend
 * on the weights, so only the persons holding a conversion are recomputed from their facts, and their
 * data-driven credits and product credits, with every rollup summed from them, are brought to the recomputation
 * by exact deltas, as a batch brings them (the conversions' digests follow). Sessions, the other models' credits
 * and the rest of the views are left as they are. One transaction holding the views' locks, like the repair, so
 * that no batch interleaves; the reconciliation then finds no drift.
 */
import type { Db, Query } from '../../../../storage/db';
import { applyAnalyticsDelta, planAnalytics, writeAnalyticsRows } from '../../adapters/pg-analytics';
import { loadStoredConversions, rewriteModelCredits, writeConversions } from '../../adapters/pg-conversions';
import { loadStores, rulesOf } from '../../adapters/pg-fact-store';
import { loadPersonFacts } from '../../adapters/pg-person-facts';
import { applyAdRollupDelta, applyAttributionDelta } from '../../adapters/pg-rollups';
import { addSums } from '../../domain/credit-sums';
import { type PersonView, recomputePerson } from '../../domain/recompute-person';
import { type AdRollupSums, mergeAdDeltas } from '../../domain/rollups/ad';
import { contributionsOf, emptyDelta } from '../../domain/rollups/analytics';
import { lockViews } from './types';
import type { RollupDelta } from '../../domain/rollups/attribution';

export interface RecreditOptions {
  /** Run once the views' locks are held, before the settings are read (a new fit is stored there). */
  before?: (q: Query) => Promise<void>;
  /** Persons recomputed per round trip. */
  chunk?: number;
}

export interface RecreditResult {
  persons: number;
  /** Conversions of the recomputed persons. */
  conversions: number;
  /** Conversions whose credits changed and were rewritten. */
  rewritten: number;
  /**
   * Conversions rewritten whole, not only their data-driven credits: those of chunks where the views did not
   * equal the recomputation but for those credits (0 when the views were exact).
   */
  rewrittenWhole: number;
}

export async function recreditStore(db: Db, storeId: string, opts: RecreditOptions = {}): Promise<RecreditResult> {
  const chunk = opts.chunk ?? 500;
  return db.transaction('recredit', async (q) => {
    await lockViews(q, 'recredit.lock');
    // The settings the views were computed under, then the new ones.
    const previous = (await loadStores(q, [storeId])).get(storeId);
    await opts.before?.(q);
    const store = (await loadStores(q, [storeId])).get(storeId);
    if (!store || !previous) throw new Error(`no store with id ${storeId}`);
    const rules = rulesOf(store);
    const previousRules = rulesOf(previous);
    const persons = await q<{ person_id: string }>(
      'recredit.persons',
      'select distinct person_id from conversions where store_id = $1 order by 1',
      [storeId],
    );
    const personIds = persons.map((p) => p.person_id);
    const rollup = new Map<string, RollupDelta>();
    const adRollup = new Map<string, AdRollupSums>();
    const analytics = emptyDelta();
    const result: RecreditResult = { persons: personIds.length, conversions: 0, rewritten: 0, rewrittenWhole: 0 };
    for (let i = 0; i < personIds.length; i += chunk) {
      const ids = personIds.slice(i, i + chunk);
      const [loaded, stored] = await Promise.all([
        // The views are held: no locks on the unit costs read (`loadFactsOfGroups`).
        loadPersonFacts(q, storeId, ids, { lockCosts: false }),
        loadStoredConversions(q, storeId, ids),
      ]);
      const views: PersonView[] = loaded.facts.map((f) => recomputePerson(f, rules));
      for (const v of views) result.conversions += v.conversions.length;
      // Only the data-driven credits can change; a chunk whose stored conversions are not their recomputation under
      // the previous settings (views behind their facts) is rewritten whole.
      const before = loaded.facts.map((f) => recomputePerson(f, previousRules));
      const modelOnly = await rewriteModelCredits(q, storeId, stored, views, before, 'data_driven');
      const diff = modelOnly ?? (await writeConversions(q, storeId, stored, views));
      result.rewritten += diff.written;
      if (!modelOnly) result.rewrittenWhole += diff.written + diff.removed;
      for (const [k, d] of diff.delta) addSums(rollup, k, d);
      mergeAdDeltas(adRollup, diff.adDelta);
      const plan = await planAnalytics(q, storeId, ids, contributionsOf(loaded.facts, views, rules.timezone), {
        into: analytics,
        scope: modelOnly ? { creditsOf: 'data_driven' } : {},
      });
      await writeAnalyticsRows(q, storeId, plan);
    }
    await applyAttributionDelta(q, storeId, rollup);
    await applyAdRollupDelta(q, storeId, adRollup);
    await applyAnalyticsDelta(q, storeId, analytics);
    return result;
  });
}
