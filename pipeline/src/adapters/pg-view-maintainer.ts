/**
 * Incremental view maintenance, inside the batch transaction (docs/product.md, Attribution and Operations and
 * Delivery guarantees). A fixed sequence of named steps, each taking every store of the batch: store the derived
 * facts of what was new (`pg-derived-facts.ts`), resolve identity and lock the affected persons (`pg-identity.ts`),
 * load and recompute those persons, apply the difference to sessions, conversions, credits and
 * analytics rows (`pg-sessions.ts`, `pg-conversions.ts`, `pg-analytics.ts`, their rows and deltas from
 * `domain/rollups/`) and queue the webhook deliveries of the new events; then the rollup deltas and product
 * names. The same recomputation serves the reconciliation, so the views equal a recomputation.
 */
import type { Query } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { browserClientOfOrder } from '../../../contracts/src/identity';
import type { StorefrontEvent } from '../../../contracts/src/events';
import {
  type EventFact,
  type OrderFact,
  toEventFact,
  toOrderFact,
  toVariantCosts,
  type VariantCost,
} from '../domain/facts';
import {
  type AddedFacts,
  type PersonFacts,
  type PersonView,
  recomputePerson,
  unchangedThrough,
} from '../domain/recompute-person';
import type { MaintainViews, NewFacts } from './pg-batch-writer';
import { identityEventCandidates, type IdentityEventEnqueuer } from './identity-event-queue';
import type { AdConversionEnqueuer } from './ad-conversion-queue';
import { rulesOf, type StoreSettings } from './pg-fact-store';
import { eventShownOf } from '../../../contracts/src/event-shown';
import { type EventFactRecord, insertEventFacts, upsertOrderFacts, upsertVariantCosts } from './pg-derived-facts';
import { IdentityLocksExhaustedError, recordIdentity, updateIdentity } from './pg-identity';
import { type LoadedPersons, loadPersonFactsOfStores } from './pg-person-facts';
import { planSessionsOfStores, type StoreSessionChange, writeSessionChanges } from './pg-sessions';
import { loadStoredConversionsOfStores, writeConversionsOfStores } from './pg-conversions';
import { adRollupWrites, spendWrites } from './pg-rollups';
import { BatchRollups } from './pg-batch-rollups';
import { attributionRollupRows } from '../domain/rollups/attribution';
import {
  type AnalyticsPlan,
  planAnalyticsOfStores,
  queueAnalyticsRollups,
  writeAnalyticsRowsOfStores,
} from './pg-analytics';
import { upsertProductInfo } from './pg-product-info';
import { CommittedTouchGroups } from './touch-groups';
import { type StoredConversions, storedUnder } from '../domain/rollups/conversions';
import { contributionsOf } from '../domain/rollups/analytics';
import { spendDeltaOf } from '../domain/rollups/spend';
import { lockNames } from './pg-advisory-locks';
import { besideBackground, eventLoopTurns } from './beside-statements';

/**
 * Longest stretch of the analytics plan's JavaScript before the event loop gets a turn: the statements it
 * runs beside wait up to this long for their replies to be handled.
 */
const ANALYTICS_PLAN_SLICE_MS = 0.25;

/**
 * Longest stretch of the persons' recomputation, and of the conversions' digests, before the event loop gets a
 * turn. A batch recomputes every store's persons in one pass, and a person with a long history takes tens of
 * milliseconds: without turns the other batch in flight, and an API sharing the process, would wait for all of
 * them (docs/decisions.md, Storage, "A batch's stores written together").
 */
const RECOMPUTE_SLICE_MS = 2;

/** The steps of a store's maintenance, in the order a batch runs them. */
export const MAINTENANCE_STEPS = [
  'facts',
  'identity',
  'load',
  'recompute',
  'sessions',
  'attribution',
  'analytics',
  'webhooks',
  'rollups',
  'product_info',
] as const;
export type MaintenanceStep = (typeof MAINTENANCE_STEPS)[number];

/** Reports the time since the previous lap (or since creation) as the named step's. */
function lapTimer(onStep: MaintainerHooks['onStep']): (step: MaintenanceStep) => void {
  let last = performance.now();
  return (step) => {
    const now = performance.now();
    onStep?.(step, (now - last) / 1000);
    last = now;
  };
}

export interface MaintainerHooks {
  /** Store facts and identity links only, maintain no view (a rebuild recomputes every view at the end). */
  factsOnly?: boolean;
  /**
   * `false` leaves the analytics views (web, landing page and product reports) unmaintained: only for
   * measuring what they cost (`npm run bench -- analytics-cost`); their reports are then wrong.
   */
  analytics?: boolean;
  /** Queues identity-event webhook deliveries of the batch's new events (before the commit). */
  enqueueIdentityEvents?: IdentityEventEnqueuer;
  /** Queues the batch's new purchases for the ad platforms' conversion APIs (before the commit). */
  enqueueAdConversions?: AdConversionEnqueuer;
  /** A conversion rate was missing and 1:1 was assumed. */
  onMissingRate?: (storeId: string, currency: string) => void;
  /**
   * Persons recomputed by one store's maintenance: `extended` only credited after what the views held,
   * `full` from all their facts, `new` with no fact stored before the batch (docs/decisions.md, Attribution,
   * "A person extended").
   */
  onRecomputed?: (counts: { extended: number; full: number; new: number }) => void;
  /** Wall time of one named step of a store's maintenance (where a batch's time goes). */
  onStep?: (step: MaintenanceStep, seconds: number) => void;
  /** Rounds of identity locks before a batch gives up and is retried (`IDENTITY_LOCK_ROUNDS`; tests lower it). */
  identityLockRounds?: number;
  /** A batch ran out of identity lock rounds: it fails as retryable (the batch flow retries it). */
  onIdentityLocksExhausted?: (storeId: string) => void;
  /** Figures of one store's maintenance step. */
  onApplied?: (figures: {
    storeId: string;
    persons: number;
    conversionsWritten: number;
    sessionsWritten: number;
  }) => void;
}

interface StoreBatch {
  store: StoreSettings;
  rateOf: (currency: string) => number | undefined;
  /** The new events as received (for webhook payloads). */
  raw: StorefrontEvent[];
  events: EventFact[];
  /** The rows of `event_facts` for `events`, in the same order. */
  records: EventFactRecord[];
  orders: OrderFact[];
  /** Orders naming the browser client of their cart (identity hand-off). */
  handoffs: Array<{ orderId: string; browserClientId: string }>;
  costs: VariantCost[];
  spend: NewFacts['pushes']['adSpend'];
}

function splitByStore(facts: NewFacts, hooks: MaintainerHooks): StoreBatch[] {
  const batches = new Map<string, StoreBatch>();
  const get = (storeId: string): StoreBatch => {
    let b = batches.get(storeId);
    if (!b) {
      const rates = facts.rates.get(storeId);
      b = {
        store: facts.stores.get(storeId)!,
        rateOf: (c) => rates?.get(c),
        raw: [],
        events: [],
        records: [],
        orders: [],
        handoffs: [],
        costs: [],
        spend: [],
      };
      batches.set(storeId, b);
    }
    return b;
  };
  for (const e of facts.events) {
    const b = get(e.storeId);
    const d = toEventFact(e.event, b.store.currency, b.rateOf);
    for (const c of d.missingRates) hooks.onMissingRate?.(e.storeId, c);
    b.raw.push(e.event);
    b.events.push(d.fact);
    b.records.push({ fact: d.fact, shown: eventShownOf(e.event), receivedAt: e.receivedAt });
  }
  for (const o of facts.pushes.orders) {
    const b = get(o.storeId);
    const d = toOrderFact(o.order, b.store.currency, b.rateOf);
    for (const c of d.missingRates) hooks.onMissingRate?.(o.storeId, c);
    b.orders.push(d.fact);
    const browserClientId = browserClientOfOrder(o.order);
    if (browserClientId) b.handoffs.push({ orderId: d.fact.orderId, browserClientId });
  }
  for (const p of facts.pushes.products) get(p.storeId).costs.push(...toVariantCosts(p.product));
  for (const s of facts.pushes.adSpend) get(s.storeId).spend.push(s);
  return [...batches.values()].sort((a, b) => (a.store.storeId < b.store.storeId ? -1 : 1));
}

/** Writes the batch's derived facts of all its stores: event facts by one COPY, order facts by one upsert. */
async function storeFacts(q: Query, batches: readonly StoreBatch[]): Promise<void> {
  const stores = batches.map((b) => ({ storeId: b.store.storeId, records: b.records, orders: b.orders }));
  await insertEventFacts(q, stores);
  await upsertOrderFacts(q, stores);
}

interface AffectedPersons {
  /** The persons to recompute, locked. */
  persons: Set<string>;
  /** Persons merged into others by this batch: their rows are replaced too. */
  mergedAway: string[];
  /**
   * Persons whose stored conversions this batch may change before its new events: those others merged into
   * and those whose variants' costs changed. They are recomputed in full.
   */
  inFull: Set<string>;
}

/**
 * The persons of every store's clients and of the clients its new links join, locked, merged where a link joins
 * two. Every store's are locked before any unit cost (`lockChangedCosts`, then the loads' shared locks): one lock
 * order for every batch.
 */
async function resolvePersons(
  q: Query,
  batches: readonly StoreBatch[],
  lockRounds: number | undefined,
): Promise<StorePersonsWork[]> {
  const resolved = await updateIdentity(
    q,
    batches.map((batch) => ({ storeId: batch.store.storeId, batch })),
    lockRounds,
  );
  return batches.map((batch) => {
    const { persons, mergedAway, mergedInto } = resolved.get(batch.store.storeId)!;
    return { batch, affected: { persons, mergedAway, inFull: new Set(mergedInto) } };
  });
}

/**
 * Writes a store's new unit costs and adds the persons whose conversions hold a variant whose cost changed to
 * `affected`, locked and recomputed in full.
 */
async function lockChangedCosts(q: Query, batch: StoreBatch, affected: AffectedPersons): Promise<void> {
  const storeId = batch.store.storeId;
  const changedVariants = await upsertVariantCosts(q, storeId, batch.costs);
  if (changedVariants.length === 0) return;
  const viaProducts = await q<{ person_id: string }>(
    'views.persons_of_variants',
    'select distinct person_id from conversions where store_id = $1 and variant_ids && $2::text[]',
    [storeId, changedVariants],
  );
  const extra = viaProducts.map((r) => r.person_id).filter((p) => !affected.persons.has(p));
  await lockNames(q, 'identity.lock', storeId, 'person', extra);
  for (const p of extra) affected.persons.add(p);
  for (const p of viaProducts) affected.inFull.add(p.person_id);
}

/** Whether all of a person's facts came with this batch: nothing was stored before to extend. */
function isNewPerson(f: PersonFacts, added: AddedFacts): boolean {
  return f.events.every((e) => added.eventIds.has(e.eventId)) && f.orders.every((o) => added.orderIds.has(o.orderId));
}

/** What the persons' maintenance shares with the batch around it. */
interface StoreStep {
  q: Query;
  hooks: MaintainerHooks;
  logger: Logger;
  lap: (step: MaintenanceStep) => void;
  /** The batch's rollup rows, written after every store's rows (see createViewMaintainer). */
  rollups: BatchRollups;
  touchGroups: CommittedTouchGroups;
  afterCommit: (fn: () => void) => void;
}

/** The session and analytics rows of a batch's persons, every store's, written together after the persons' step. */
interface PersonRows {
  sessions: StoreSessionChange[];
  analytics: Array<{ storeId: string; plan: AnalyticsPlan }>;
}

/** A store of the batch with persons to recompute. */
interface StorePersonsWork {
  batch: StoreBatch;
  affected: AffectedPersons;
}

/** A store's persons recomputed: what the writes after the recomputation read. */
interface Recomputed extends StorePersonsWork {
  storeId: string;
  rules: ReturnType<typeof rulesOf>;
  personIds: string[];
  /** The recomputed persons and those merged into them: whose stored rows are replaced. */
  replaced: string[];
  loaded: LoadedPersons;
  stored: StoredConversions;
  views: PersonView[];
}

/** Recomputes one store's loaded persons: extended after what the views hold where it can, else in full. */
async function recomputeStore(
  hooks: MaintainerHooks,
  work: StorePersonsWork,
  personIds: string[],
  loaded: LoadedPersons,
  stored: StoredConversions,
  turn: () => Promise<void>,
): Promise<Recomputed> {
  const { batch, affected } = work;
  const rules = rulesOf(batch.store);
  const added: AddedFacts = {
    eventIds: new Set(batch.events.map((e) => e.eventId)),
    orderIds: new Set(batch.orders.map((o) => o.orderId)),
  };
  const counts = { extended: 0, full: 0, new: 0 };
  const views: PersonView[] = [];
  for (const f of loaded.facts) {
    await turn();
    const through = affected.inFull.has(f.personId) ? null : unchangedThrough(f, added);
    if (through === null) {
      counts[isNewPerson(f, added) ? 'new' : 'full']++;
      views.push(recomputePerson(f, rules));
    } else {
      counts.extended++;
      views.push(recomputePerson(f, rules, { through, stored: storedUnder(stored, f.personId) }));
    }
  }
  hooks.onRecomputed?.(counts);
  const storeId = batch.store.storeId;
  return {
    ...work,
    storeId,
    rules,
    personIds,
    replaced: [...personIds, ...affected.mergedAway],
    loaded,
    stored,
    views,
  };
}

/**
 * Loads the affected persons' facts of every store, recomputes them and writes the difference to conversions and
 * credits; queues their rollup deltas and the webhook deliveries of the batch's new events, and returns the
 * changes of their sessions and analytics rows, which the batch writes after this step. Each load and write is one
 * statement for all the stores (docs/decisions.md, Storage, "A batch's stores written together").
 */
async function maintainPersons(ctx: StoreStep, work: readonly StorePersonsWork[]): Promise<PersonRows> {
  const { q, hooks, lap, rollups } = ctx;
  const persons = work.map((w) => ({ storeId: w.batch.store.storeId, personIds: [...w.affected.persons].sort() }));
  const loaded = await loadPersonFactsOfStores(q, persons);
  const stored = await loadStoredConversionsOfStores(
    q,
    persons.map((p, i) => ({ storeId: p.storeId, keys: [...p.personIds, ...work[i]!.affected.mergedAway] })),
  );
  lap('load');
  const turn = eventLoopTurns(RECOMPUTE_SLICE_MS);
  const recomputed: Recomputed[] = [];
  for (const [i, w] of work.entries()) {
    const { storeId, personIds } = persons[i]!;
    recomputed.push(await recomputeStore(hooks, w, personIds, loaded.get(storeId)!, stored.get(storeId)!, turn));
  }
  lap('recompute');
  // The analytics plan (the stored contributions read, the fresh ones computed, the difference) runs beside
  // the session and attribution writes, whose statements leave the event loop idle, and is written after
  // them (docs/decisions.md, Analytics, "planned beside the writes").
  const memory = { committed: ctx.touchGroups, afterCommit: ctx.afterCommit };
  const analyticsPlans =
    hooks.analytics === false
      ? undefined
      : planAnalyticsOfStores(
          q,
          recomputed.map((r) => ({
            storeId: r.storeId,
            personIds: r.replaced,
            fresh: contributionsOf(r.loaded.facts, r.views, r.rules.timezone),
          })),
          { memory, sliceMs: ANALYTICS_PLAN_SLICE_MS },
        );
  const { sessions, conv } = await besideBackground(analyticsPlans, async () => {
    const sessions = await planSessionsOfStores(
      q,
      recomputed.map((r) => ({
        storeId: r.storeId,
        clientIds: r.loaded.clientIds,
        sessions: r.views.flatMap((v) => v.sessions),
      })),
    );
    lap('sessions');
    const conv = await writeConversionsOfStores(
      q,
      recomputed.map((r) => ({ storeId: r.storeId, stored: r.stored, views: r.views })),
      { turn },
    );
    lap('attribution');
    return { sessions, conv };
  });
  for (const r of recomputed) rollups.add(r.storeId, attributionRollupRows(conv.get(r.storeId)!.delta));
  const analytics: PersonRows['analytics'] = [];
  if (analyticsPlans) {
    for (const [storeId, plan] of await analyticsPlans) {
      analytics.push({ storeId, plan });
      queueAnalyticsRollups(rollups, storeId, plan, memory);
    }
  }
  lap('analytics');
  for (const [i, r] of recomputed.entries()) {
    const { storeId, batch } = r;
    const diff = conv.get(storeId)!;
    rollups.add(storeId, adRollupWrites(diff.adDelta));
    const destinations = batch.store.destinations ?? { any: true, adPlatforms: true };
    if (hooks.enqueueIdentityEvents && batch.raw.length && destinations.any) {
      await hooks.enqueueIdentityEvents(
        q,
        storeId,
        batch.store.currency,
        identityEventCandidates(batch.raw, r.loaded.facts, r.views),
      );
    }
    if (hooks.enqueueAdConversions && destinations.adPlatforms)
      await hooks.enqueueAdConversions(q, storeId, r.loaded.facts, r.views, r.stored);
    hooks.onApplied?.({
      storeId,
      persons: r.personIds.length,
      conversionsWritten: diff.written,
      sessionsWritten: sessions[i]!.inserted.length,
    });
    ctx.logger.debug(
      { storeId, persons: r.personIds.length, merged: r.affected.mergedAway.length, conversions: diff.written },
      'views maintained',
    );
  }
  lap('webhooks');
  return { sessions, analytics };
}

export function createViewMaintainer(logger: Logger, hooks: MaintainerHooks = {}): MaintainViews {
  const touchGroups = new CommittedTouchGroups();
  return async (q: Query, facts: NewFacts, afterCommit: (fn: () => void) => void): Promise<void> => {
    const batches = splitByStore(facts, hooks);
    const lap = lapTimer(hooks.onStep);
    // The rollups' rows are shared by every batch of a store (today's rows above all), and a row written stays
    // locked until the commit: the two batches in flight would wait for each other from the first rollup write
    // on. They are written last, all stores together in the one order every worker uses, so the wait covers only
    // those writes and the commit (docs/decisions.md, Storage, "Two batches in flight").
    const rollups = new BatchRollups();
    const ctx: StoreStep = { q, hooks, logger, lap, rollups, touchGroups, afterCommit };
    let personRows: PersonRows = { sessions: [], analytics: [] };
    await storeFacts(q, batches);
    lap('facts');
    if (hooks.factsOnly) {
      // Bulk loading (replay --rebuild): facts and identity links only; the views are rebuilt once at the end.
      for (const batch of batches) await upsertVariantCosts(q, batch.store.storeId, batch.costs);
      await recordIdentity(
        q,
        batches.map((batch) => ({ storeId: batch.store.storeId, batch })),
      );
      lap('identity');
    } else {
      // Identity locks of every store, then the changed unit costs' and their persons', then the persons' loads
      // under shared cost locks: the one lock order of every batch (docs/decisions.md, Storage).
      const work = await resolvePersons(q, batches, hooks.identityLockRounds).catch((err: unknown) => {
        if (err instanceof IdentityLocksExhaustedError) {
          logger.warn(
            { storeId: err.storeId, unlocked: err.unlocked, rounds: err.rounds },
            'identity locks exhausted: persons kept being merged by another batch; retrying the batch',
          );
          hooks.onIdentityLocksExhausted?.(err.storeId);
        }
        throw err;
      });
      for (const w of work) await lockChangedCosts(q, w.batch, w.affected);
      lap('identity');
      for (const { batch } of work) rollups.add(batch.store.storeId, spendWrites(spendDeltaOf(batch.spend)));
      const withPersons = work.filter((w) => w.affected.persons.size > 0);
      if (withPersons.length) personRows = await maintainPersons(ctx, withPersons);
    }
    // The persons' rows are theirs alone (their persons are locked): written together, one statement per table.
    await writeSessionChanges(q, personRows.sessions);
    lap('sessions');
    await writeAnalyticsRowsOfStores(q, personRows.analytics);
    lap('analytics');
    await rollups.write(q);
    lap('rollups');
    // Last, so that the rows of popular products stay locked only until the commit.
    if (hooks.analytics !== false)
      await upsertProductInfo(
        q,
        batches.map((b) => ({ storeId: b.store.storeId, events: b.raw })),
      );
    lap('product_info');
  };
}
