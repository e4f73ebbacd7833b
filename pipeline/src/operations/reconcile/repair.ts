/**
 * The repair: the store's person mapping, sessions, conversions, credits, analytics rows and rollups rebuilt
 * from the facts, through the same writers the pipeline uses.
 */
import type { Query } from '../../../../storage/db';
import { REBUILT_VIEW_TABLES } from '../../../../storage/schema';
import { besideBackground } from '../../adapters/beside-statements';
import { applyAnalyticsDelta, writeAnalytics } from '../../adapters/pg-analytics';
import { writeConversions } from '../../adapters/pg-conversions';
import { applyAdRollupDelta, applyAttributionDelta } from '../../adapters/pg-rollups';
import { writeSessions } from '../../adapters/pg-sessions';
import { addSums } from '../../domain/credit-sums';
import type { StoreRules } from '../../domain/recompute-person';
import { type AdRollupSums, mergeAdDeltas } from '../../domain/rollups/ad';
import { emptyDelta } from '../../domain/rollups/analytics';
import type { RollupDelta } from '../../domain/rollups/attribution';
import { recomputeChunk } from './recompute';
import { repairSpend } from './spend';

/** How long a repair computes the next chunk before it lets the current chunk's statements proceed. */
const REPAIR_SLICE_MS = 0.5;

/** Rebuilds the views of `personIds` (every person of the store); returns the number of conversions. */
export async function repairViews(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  groups: ReadonlyMap<string, readonly string[]>,
  rules: StoreRules,
  chunk: number,
): Promise<number> {
  const clientIds = personIds.flatMap((p) => groups.get(p)!);
  await q(
    'repair.clients',
    `update clients c set person_id = m.person_id from unnest($2::text[], $3::text[]) as m(client_id, person_id)
     where c.store_id = $1 and c.client_id = m.client_id and c.person_id <> m.person_id`,
    [storeId, clientIds, personIds.flatMap((p) => groups.get(p)!.map(() => p))],
  );
  for (const table of REBUILT_VIEW_TABLES) {
    await q(`repair.clear_${table}`, `delete from ${table} where store_id = $1`, [storeId]);
  }
  // Every person is loaded and recomputed once: its sessions are rewritten in place, its conversions, credits
  // and analytics rows inserted through the same writers the pipeline uses, and the rollups summed for the end.
  // The next chunk is loaded and recomputed while the current one is written, so that its JavaScript fills the
  // time the database spends on the writes (docs/decisions.md, Operations).
  const rollup = new Map<string, RollupDelta>();
  const analytics = emptyDelta();
  const adRollup = new Map<string, AdRollupSums>();
  let conversions = 0;
  const chunks: string[][] = [];
  for (let i = 0; i < personIds.length; i += chunk) chunks.push(personIds.slice(i, i + chunk));
  let next = chunks.length > 0 ? recomputeChunk(q, storeId, chunks[0]!, groups, rules, REPAIR_SLICE_MS) : undefined;
  for (let c = 0; c < chunks.length; c++) {
    const { loaded, views, contributions } = await next!;
    next =
      c + 1 < chunks.length ? recomputeChunk(q, storeId, chunks[c + 1]!, groups, rules, REPAIR_SLICE_MS) : undefined;
    for (const v of views) conversions += v.conversions.length;
    await besideBackground(next, async () => {
      await writeSessions(
        q,
        storeId,
        loaded.clientIds,
        views.flatMap((v) => v.sessions),
      );
      const diff = await writeConversions(q, storeId, new Map(), views, { cleared: true });
      await writeAnalytics(q, storeId, [], contributions, { into: analytics });
      mergeAdDeltas(adRollup, diff.adDelta);
      for (const [k, d] of diff.delta) addSums(rollup, k, d);
    });
  }
  // The rollups were cleared with the rest: their rows are copied in, not added.
  await applyAttributionDelta(q, storeId, rollup, { cleared: true });
  await applyAnalyticsDelta(q, storeId, analytics, { cleared: true });
  await applyAdRollupDelta(q, storeId, adRollup, { cleared: true });
  await repairSpend(q, storeId);
  return conversions;
}
