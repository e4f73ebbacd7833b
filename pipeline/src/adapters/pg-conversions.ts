/**
 * The `conversions` and `conversion_credits` views of some persons made equal to their recomputation
 * (`planConversions` decides which conversions are rewritten), and the credit delta of what changed, for the
 * attribution and ad rollups.
 */
import { createHash } from 'node:crypto';
import type { Goal, Model } from '../../../contracts/src/attribution';
import type { Query } from '../../../storage/db';
import { probeKeysOfStores, type StoreKeys } from '../../../storage/key-probe';
import { copyLine } from '../../../storage/pg-copy-text';
import type { CreditDbRow } from '../../../storage/schema';
import { accumulateAdCredits } from '../domain/rollups/ad';
import {
  accumulateCredits,
  CONVERSION_KEY,
  type CreditRow,
  creditRowsOf,
  type RollupDelta,
} from '../domain/rollups/attribution';
import {
  type ConversionChanges,
  conversionPlanner,
  planConversions,
  type StoredConversions,
} from '../domain/rollups/conversions';
import { type ConversionView, conversionSignature, type PersonView } from '../domain/recompute-person';

const num = (v: string | number | null): number => (v === null ? 0 : Number(v));

/** A conversion's digest: equal digests, equal conversion and credits (`conversionSignature`). */
export function digestOf(c: ConversionView, personId: string): string {
  return createHash('sha1').update(conversionSignature(c, personId)).digest('base64url');
}

/** A stored credit row read back by name. */
function creditOf(r: CreditDbRow): CreditRow {
  return {
    goal: r.goal as Goal,
    key: r.conversion_key,
    model: r.model as Model,
    index: r.touch_index,
    day: r.day,
    channel: r.channel as CreditRow['channel'],
    source: r.source,
    medium: r.medium,
    campaign: r.campaign,
    landingPage: r.landing_page,
    platform: r.platform as CreditRow['platform'],
    linkCode: r.link_code,
    campaignId: r.campaign_id,
    adSetId: r.ad_set_id,
    adId: r.ad_id,
    weight: num(r.weight),
    newWeight: num(r.new_weight),
    valueMicros: num(r.value_micros),
    cogsMicros: num(r.cogs_micros),
    touches: r.touches,
  };
}

/** A deleted credit row as `creditOf` reads it back. */
const CREDIT_RETURNED = `c.goal, c.conversion_key, c.model, c.touch_index, to_char(c.day, 'YYYY-MM-DD') as day, c.channel,
  c.source, c.medium, c.campaign, c.landing_page, c.platform, c.link_code, c.campaign_id, c.ad_set_id, c.ad_id, c.weight,
  c.new_weight, c.value_micros, c.cogs_micros, c.touches`;

export interface ConversionDiff {
  written: number;
  removed: number;
  delta: Map<string, RollupDelta>;
  /** The same credits keyed for the ad rollup (paid touchpoints only). */
  adDelta: Map<string, RollupDelta>;
}

/** The conversions the views hold for some persons (those recomputed and any merged into them). */
export async function loadStoredConversions(
  q: Query,
  storeId: string,
  personIds: readonly string[],
): Promise<StoredConversions> {
  return (await loadStoredConversionsOfStores(q, [{ storeId, keys: personIds }])).get(storeId)!;
}

/** `loadStoredConversions` for the persons (`keys`) of several stores in one statement; every store has an entry. */
export async function loadStoredConversionsOfStores(
  q: Query,
  persons: readonly StoreKeys[],
): Promise<Map<string, StoredConversions>> {
  const rows = await probeKeysOfStores<{ goal: string; conversion_key: string; person_id: string; digest: string }>(
    q,
    'views.conversions_load',
    { select: 'goal, conversion_key, person_id, digest', from: 'conversions', key: 'person_id' },
    persons,
  );
  const stored = new Map<string, StoredConversions>();
  for (const [storeId, storeRows] of rows)
    stored.set(
      storeId,
      new Map(
        storeRows.map((r) => [
          CONVERSION_KEY.of({ goal: r.goal, key: r.conversion_key }),
          { digest: r.digest, personId: r.person_id },
        ]),
      ),
    );
  return stored;
}

/** One store's conversions to make equal to its recomputed persons (see `writeConversions`). */
export interface StoreConversions {
  storeId: string;
  stored: StoredConversions;
  views: readonly PersonView[];
}

/**
 * Makes the `stored` conversions (those of the recomputed persons and of any merged into them,
 * `loadStoredConversions`) equal to `views`: unchanged conversions (same digest, or among a view's `unchanged`)
 * are left alone; for the others the old credits are deleted and retracted from the rollup delta, and the new
 * ones inserted and added. `cleared`: the transaction deleted the store's conversions and
 * credits before (a repair), so there is nothing to retract; the lookup of old credits is skipped, whose plan,
 * on a table the planner counts empty after a rebuild, would read every credit written so far once per chunk
 * (docs/decisions.md, Operations, "planner counts of filling tables").
 */
export async function writeConversions(
  q: Query,
  storeId: string,
  stored: StoredConversions,
  views: readonly PersonView[],
  opts: { cleared?: boolean } = {},
): Promise<ConversionDiff> {
  return (await writeConversionsOfStores(q, [{ storeId, stored, views }], opts)).get(storeId)!;
}

/** Pairs of a store and a conversion key (`CONVERSION_KEY`) as the statements' three arrays. */
function keysOfStores(keys: ReadonlyArray<{ storeId: string; keys: readonly string[] }>): string[][] {
  const stores = keys.flatMap((k) => k.keys.map(() => k.storeId));
  const [goals, conversionKeys] = CONVERSION_KEY.fieldArrays(keys.flatMap((k) => k.keys));
  return [stores, goals!, conversionKeys!];
}

/**
 * `writeConversions` for several stores, each statement taking them all (docs/decisions.md, Storage, "A batch's
 * stores written together"); returns each store's diff. `turn`, awaited before each person's digests, gives the
 * event loop its turns (`eventLoopTurns`).
 */
export async function writeConversionsOfStores(
  q: Query,
  entries: readonly StoreConversions[],
  opts: { cleared?: boolean; turn?: () => Promise<void> } = {},
): Promise<Map<string, ConversionDiff>> {
  const diffs = new Map<string, ConversionDiff>();
  const plans: Array<{ storeId: string } & ConversionChanges> = [];
  for (const e of entries) {
    diffs.set(e.storeId, { written: 0, removed: 0, delta: new Map(), adDelta: new Map() });
    const planner = conversionPlanner(e.stored, digestOf, opts.cleared);
    for (const pv of e.views) {
      await opts.turn?.();
      planner.add(pv);
    }
    plans.push({ storeId: e.storeId, ...planner.changes() });
  }
  if (plans.some((p) => p.retract.length)) {
    const removed = await q<CreditDbRow & { credit_store: string }>(
      'views.credits_delete',
      `delete from conversion_credits c using unnest($1::text[], $2::text[], $3::text[]) as d(store_id, goal, conversion_key)
       where c.store_id = d.store_id and c.goal = d.goal and c.conversion_key = d.conversion_key
       returning c.store_id as credit_store, ${CREDIT_RETURNED}`,
      keysOfStores(plans.map((p) => ({ storeId: p.storeId, keys: p.retract }))),
    );
    const byStore = new Map<string, CreditRow[]>();
    for (const r of removed) {
      let rows = byStore.get(r.credit_store);
      if (!rows) byStore.set(r.credit_store, (rows = []));
      rows.push(creditOf(r));
    }
    for (const [storeId, rows] of byStore) {
      const diff = diffs.get(storeId)!;
      accumulateCredits(diff.delta, rows, -1);
      accumulateAdCredits(diff.adDelta, rows, -1);
    }
  }
  if (plans.some((p) => p.gone.length)) {
    await q(
      'views.conversions_delete',
      `delete from conversions c using unnest($1::text[], $2::text[], $3::text[]) as d(store_id, goal, conversion_key)
       where c.store_id = d.store_id and c.goal = d.goal and c.conversion_key = d.conversion_key`,
      keysOfStores(plans.map((p) => ({ storeId: p.storeId, keys: p.gone }))),
    );
    for (const p of plans) diffs.get(p.storeId)!.removed = p.gone.length;
  }
  const fresh = plans.flatMap((p) => p.fresh.map((f) => ({ storeId: p.storeId, ...f })));
  if (fresh.length) {
    const v = fresh.map((f) => f.view);
    await q(
      'views.conversions_upsert',
      `insert into conversions (store_id, goal, conversion_key, person_id, client_id, occurred_at, day, value_micros, value_orig,
                                currency_orig, cogs_micros, is_new, event_id, order_id, variant_ids, first_touch, last_touch, digest)
       select t.store_id, t.goal, t.conversion_key, t.person_id, t.client_id, t.occurred_at, t.day, t.value_micros, t.value_orig,
              t.currency_orig, t.cogs_micros, t.is_new, t.event_id, t.order_id,
              array(select jsonb_array_elements_text(t.variant_ids)), t.first_touch, t.last_touch, t.digest
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::date[], $8::bigint[], $9::numeric[],
                   $10::text[], $11::bigint[], $12::boolean[], $13::text[], $14::text[], $15::jsonb[], $16::jsonb[], $17::jsonb[], $18::text[])
         as t(store_id, goal, conversion_key, person_id, client_id, occurred_at, day, value_micros, value_orig, currency_orig, cogs_micros,
              is_new, event_id, order_id, variant_ids, first_touch, last_touch, digest)
       on conflict (store_id, goal, conversion_key) do update set
         person_id = excluded.person_id, client_id = excluded.client_id, occurred_at = excluded.occurred_at, day = excluded.day,
         value_micros = excluded.value_micros, value_orig = excluded.value_orig, currency_orig = excluded.currency_orig,
         cogs_micros = excluded.cogs_micros, is_new = excluded.is_new, event_id = excluded.event_id, order_id = excluded.order_id,
         variant_ids = excluded.variant_ids, first_touch = excluded.first_touch, last_touch = excluded.last_touch,
         digest = excluded.digest`,
      [
        fresh.map((f) => f.storeId),
        v.map((c) => c.goal),
        v.map((c) => c.key),
        fresh.map((f) => f.personId),
        v.map((c) => c.clientId),
        v.map((c) => new Date(c.at).toISOString()),
        v.map((c) => c.day),
        v.map((c) => c.valueMicros),
        v.map((c) => c.valueOrig),
        v.map((c) => c.currencyOrig),
        v.map((c) => c.cogsMicros),
        v.map((c) => c.isNew),
        v.map((c) => c.eventId),
        v.map((c) => c.orderId),
        v.map((c) => JSON.stringify(c.variantIds)),
        v.map((c) => JSON.stringify(c.firstTouch)),
        v.map((c) => JSON.stringify(c.lastTouch)),
        fresh.map((f) => f.digest),
      ],
    );
    const credits = plans.map((p) => ({ storeId: p.storeId, credits: p.fresh.flatMap((f) => creditRowsOf(f.view)) }));
    await insertCreditsOfStores(q, credits);
    for (const [i, p] of plans.entries()) {
      const diff = diffs.get(p.storeId)!;
      diff.written = p.fresh.length;
      accumulateCredits(diff.delta, credits[i]!.credits, 1);
      accumulateAdCredits(diff.adDelta, credits[i]!.credits, 1);
    }
  }
  return diffs;
}

/**
 * Makes the `stored` conversions equal to `views` where only `model`'s credits can differ: a new fit of the
 * data-driven model changes its weights and nothing else a conversion is computed from (docs/decisions.md,
 * Attribution, "A new fit re-credits"). `before` is the same persons' recomputation under the previous settings:
 * a stored conversion whose digest equals its recomputation there holds exactly what it held, so only `model`'s
 * credit rows are replaced and retracted, and the digest updated; the conversion row and the other models'
 * credits stay. Returns null, having written nothing, when a stored conversion is not its recomputation under the
 * previous settings, or the recomputation adds, removes or moves one (views behind their facts): the caller then
 * rewrites the conversions whole (`writeConversions`).
 */
export async function rewriteModelCredits(
  q: Query,
  storeId: string,
  stored: StoredConversions,
  views: readonly PersonView[],
  before: readonly PersonView[],
  model: Model,
): Promise<ConversionDiff | null> {
  const { fresh, gone } = planConversions(stored, views, digestOf);
  if (gone.length || fresh.some((f) => stored.get(CONVERSION_KEY.of(f.view))?.personId !== f.personId)) return null;
  const rewritten = new Set(fresh.map((f) => CONVERSION_KEY.of(f.view)));
  for (const pv of before)
    for (const c of pv.conversions) {
      const k = CONVERSION_KEY.of(c);
      if (rewritten.has(k) && stored.get(k)?.digest !== digestOf(c, pv.personId)) return null;
    }
  const delta = new Map<string, RollupDelta>();
  const adDelta = new Map<string, RollupDelta>();
  if (fresh.length === 0) return { written: 0, removed: 0, delta, adDelta };
  const keys = CONVERSION_KEY.fieldArrays(fresh.map((f) => CONVERSION_KEY.of(f.view)));
  const removed = (
    await q<CreditDbRow>(
      'views.model_credits_delete',
      // One index probe per conversion (docs/decisions.md, Storage, "one index probe per key"): joined to the
      // keys with the model as a parameter, the planner scans the store's credits of the model once per chunk.
      `delete from conversion_credits c where c.ctid = any(array(
         select p.ctid from unnest($2::text[], $3::text[]) as d(goal, conversion_key),
           lateral (select ctid from conversion_credits
                    where store_id = $1 and goal = d.goal and conversion_key = d.conversion_key and model = $4 offset 0) p))
       returning ${CREDIT_RETURNED}`,
      [storeId, ...keys, model],
    )
  ).map(creditOf);
  accumulateCredits(delta, removed, -1);
  accumulateAdCredits(adDelta, removed, -1);
  await q(
    'views.conversions_digest',
    `update conversions c set digest = d.digest from unnest($2::text[], $3::text[], $4::text[]) as d(goal, conversion_key, digest)
     where c.store_id = $1 and c.goal = d.goal and c.conversion_key = d.conversion_key`,
    [storeId, ...keys, fresh.map((f) => f.digest)],
  );
  const credits = fresh.flatMap((f) =>
    creditRowsOf({ ...f.view, credits: f.view.credits.filter((cr) => cr.model === model) }),
  );
  await insertCredits(q, storeId, credits);
  accumulateCredits(delta, credits, 1);
  accumulateAdCredits(adDelta, credits, 1);
  return { written: fresh.length, removed: 0, delta, adDelta };
}

const CREDIT_COLUMNS =
  'store_id, goal, conversion_key, model, touch_index, day, channel, source, medium, campaign, landing_page, ' +
  'platform, link_code, campaign_id, ad_set_id, ad_id, weight, new_weight, value_micros, cogs_micros, touches';

/** Credits per COPY statement: bounds the text built at once, for a batch of persons with long histories. */
const CREDITS_PER_COPY = 20_000;

/**
 * Inserts credits by COPY: a conversion's credit rows number up to its touchpoints times the models, the most
 * rows a batch writes (docs/decisions.md, Storage). The writer deleted the old credits of every conversion it
 * rewrites first, in the same transaction, so each row is new; a duplicate fails the batch as the insert did.
 */
export async function insertCredits(q: Query, storeId: string, credits: readonly CreditRow[]): Promise<void> {
  await insertCreditsOfStores(q, [{ storeId, credits }]);
}

/** `insertCredits` for several stores' credits, `CREDITS_PER_COPY` rows per statement whatever their stores. */
export async function insertCreditsOfStores(
  q: Query,
  entries: ReadonlyArray<{ storeId: string; credits: readonly CreditRow[] }>,
): Promise<void> {
  let text = '';
  let rows = 0;
  for (const { storeId, credits } of entries) {
    for (const c of credits) {
      text += copyLine([
        storeId,
        c.goal,
        c.key,
        c.model,
        c.index,
        c.day,
        c.channel,
        c.source,
        c.medium,
        c.campaign,
        c.landingPage,
        c.platform,
        c.linkCode,
        c.campaignId,
        c.adSetId,
        c.adId,
        c.weight,
        c.newWeight,
        c.valueMicros,
        c.cogsMicros,
        c.touches,
      ]);
      if (++rows === CREDITS_PER_COPY) {
        await q.copyFrom('views.credits_copy', `copy conversion_credits (${CREDIT_COLUMNS}) from stdin`, text);
        text = '';
        rows = 0;
      }
    }
  }
  if (rows > 0) await q.copyFrom('views.credits_copy', `copy conversion_credits (${CREDIT_COLUMNS}) from stdin`, text);
}
