/**
 * Which conversions a batch rewrites: the difference between the conversions the views hold for some persons
 * and their recomputation, by digest. Pure; the digest itself (a hash of `conversionSignature`) comes from the
 * adapter.
 */
import type { ConversionView, PersonView } from '../recompute-person';
import { CONVERSION_KEY } from './attribution';

/** The conversions the views hold for some persons: digest and person by conversion key (`CONVERSION_KEY`). */
export type StoredConversions = ReadonlyMap<string, { digest: string; personId: string }>;

/** Whether the views hold the conversion (`goal`, `key`) under `personId`. */
export function storedUnder(stored: StoredConversions, personId: string): (goal: string, key: string) => boolean {
  return (goal, key) => stored.get(CONVERSION_KEY.of({ goal, key }))?.personId === personId;
}

export interface ConversionChanges {
  /** Conversions to write (new, or with another digest), with their person and digest. */
  fresh: Array<{ view: ConversionView; personId: string; digest: string }>;
  /** Stored conversions no recomputed person has any more (by `CONVERSION_KEY`). */
  gone: string[];
  /** Conversions whose stored credits are deleted and retracted from the rollups: the gone and the rewritten. */
  retract: string[];
}

/**
 * Plans making the `stored` conversions (those of the recomputed persons and of any merged into them) equal to
 * `views`: unchanged conversions (same digest, or among a view's `unchanged`) are left alone. Old credits are
 * looked up by key, not by person, so a conversion that sat under another person cannot be retracted twice.
 * `cleared`: the store's conversions were deleted before (a repair), so nothing is retracted.
 */
export function planConversions(
  stored: StoredConversions,
  views: readonly PersonView[],
  digestOf: (c: ConversionView, personId: string) => string,
  cleared = false,
): ConversionChanges {
  const planner = conversionPlanner(stored, digestOf, cleared);
  for (const pv of views) planner.add(pv);
  return planner.changes();
}

/**
 * `planConversions` a person at a time, for a caller that gives the event loop turns between persons: `add`
 * every recomputed person, then read `changes` once.
 */
export function conversionPlanner(
  stored: StoredConversions,
  digestOf: (c: ConversionView, personId: string) => string,
  cleared = false,
): { add: (pv: PersonView) => void; changes: () => ConversionChanges } {
  const fresh: ConversionChanges['fresh'] = [];
  const keep = new Set<string>();
  return {
    add(pv) {
      for (const c of pv.conversions) {
        const k = CONVERSION_KEY.of(c);
        keep.add(k);
        if (pv.unchanged.has(c)) continue;
        const digest = digestOf(c, pv.personId);
        if (stored.get(k)?.digest !== digest) fresh.push({ view: c, personId: pv.personId, digest });
      }
    },
    changes() {
      const gone = [...stored.keys()].filter((k) => !keep.has(k));
      const retract = cleared ? [] : [...new Set([...gone, ...fresh.map((f) => CONVERSION_KEY.of(f.view))])];
      return { fresh, gone, retract };
    },
  };
}
