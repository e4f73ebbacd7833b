/**
 * The recomputation the other phases compare with and the repair writes: persons loaded from their facts
 * chunk by chunk, recomputed by the pipeline's own pure functions, and summed into what every view should hold.
 */
import type { Query } from '../../../../storage/db';
import { type LoadedPersons, loadFactsOfGroups } from '../../adapters/pg-person-facts';
import { digestOf } from '../../adapters/pg-conversions';
import { eventLoopTurns } from '../../adapters/beside-statements';
import { type PersonView, recomputePerson, type StoreRules } from '../../domain/recompute-person';
import { accumulateAdCredits, type AdRollupSums } from '../../domain/rollups/ad';
import {
  accumulateContribution,
  type AnalyticsDelta,
  contributionOf,
  emptyDelta,
  type PersonContribution,
} from '../../domain/rollups/analytics';
import { accumulateCredits, CONVERSION_KEY, creditRowsOf, type RollupDelta } from '../../domain/rollups/attribution';

export interface RecomputedChunk {
  loaded: LoadedPersons;
  views: PersonView[];
  contributions: PersonContribution[];
}

/**
 * A chunk of persons loaded and recomputed, with their analytics contributions; giving the event loop a turn
 * every `sliceMs` (0: never) when statements run beside it.
 */
export async function recomputeChunk(
  q: Query,
  storeId: string,
  ids: readonly string[],
  groups: ReadonlyMap<string, readonly string[]>,
  rules: StoreRules,
  sliceMs = 0,
): Promise<RecomputedChunk> {
  const members = ids.flatMap((p) => groups.get(p)!.map((client_id) => ({ client_id, person_id: p })));
  // A comparison or a repair: no locks on the unit costs read (`loadFactsOfGroups`).
  const loaded = await loadFactsOfGroups(q, storeId, ids, members, { lockCosts: false });
  const turn = eventLoopTurns(sliceMs);
  const views: PersonView[] = [];
  const contributions: PersonContribution[] = [];
  for (const facts of loaded.facts) {
    const view = recomputePerson(facts, rules);
    views.push(view);
    contributions.push(contributionOf(facts, view, rules.timezone));
    await turn();
  }
  return { loaded, views, contributions };
}

/** What the views should hold, summed over every recomputed person. */
export class Expectations {
  /** Attribution rollup sums by `ROLLUP_KEY`. */
  readonly rollup = new Map<string, RollupDelta>();
  /** Ad rollup sums by `AD_ROLLUP_KEY`. */
  readonly adRollup = new Map<string, AdRollupSums>();
  /** Each conversion's digest and day, by `CONVERSION_KEY`. */
  readonly digests = new Map<string, { digest: string; day: string }>();
  readonly analytics: AnalyticsDelta = emptyDelta();
  conversions = 0;

  add(chunk: RecomputedChunk): void {
    for (const c of chunk.contributions) accumulateContribution(this.analytics, c, 1);
    for (const v of chunk.views) {
      for (const c of v.conversions) {
        this.conversions++;
        this.digests.set(CONVERSION_KEY.of(c), { digest: digestOf(c, v.personId), day: c.day });
        const credits = creditRowsOf(c);
        accumulateCredits(this.rollup, credits, 1);
        accumulateAdCredits(this.adRollup, credits, 1);
      }
    }
  }
}
