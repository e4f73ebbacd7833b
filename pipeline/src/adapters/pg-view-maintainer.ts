/**
 * Incremental view maintenance, inside the batch transaction (docs/product.md, Attribution and Operations and Delivery guarantees). For each store in the
 * batch: store the derived facts of what was new, extend identity and merge persons, lock the affected
 * persons, recompute them from their facts, and apply the difference to sessions, conversions, credits and
 * the rollups. The same recomputation serves the reconciliation, so the views equal a recomputation.
 */
import type { Query } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
import { copyLine } from '../../../storage/pg-copy-text';
import type { Logger } from '../../../runtime/logger';
import { browserClientOfOrder } from '../../../contracts/src/identity';
import {
  type EventFact,
  handoffKey,
  identityKeysOfEvent,
  identityKeysOfOrder,
  type OrderFact,
  orderClientId,
  toEventFact,
  toOrderFact,
  toVariantCosts,
  type VariantCost,
} from '../domain/facts';
import { PersonUnion } from '../domain/identity';
import { type PersonFacts, type PersonView, recomputePerson, type StoreRules } from '../domain/recompute-person';
import type { StorefrontEvent } from '../../../contracts/src/events';
import type { MaintainViews, NewFacts } from './pg-batch-writer';
import type { WebhookCandidate, WebhookEnqueuer } from './identity-event-queue';
import { copyNewRows, storedEventIds, type StoreSettings } from './pg-fact-store';
import {
  accumulateSpend,
  applyAttributionDelta,
  applySpendDelta,
  EVENT_FACT_COLUMNS,
  loadPersonFacts,
  type SpendDelta,
  writeConversions,
  writeSessions,
} from './pg-views';
import {
  CommittedTouchGroups,
  contributionsOf,
  planAnalytics,
  upsertProductInfo,
  writeAnalyticsRollups,
  writeAnalyticsRows,
} from './analytics-rollups';
import { applyAdRollupDelta } from './ad-rollup';
import { lockNames } from './pg-advisory-locks';
import { besideBackground } from './beside-statements';

/** An epoch-ms time as PostgreSQL timestamptz text; Infinity is PostgreSQL's `infinity` (not seen yet). */
const toTimestamp = (ms: number): string => (ms === Infinity ? 'infinity' : new Date(ms).toISOString());

/**
 * Longest stretch of the analytics plan's JavaScript before the event loop gets a turn: the statements it
 * runs beside wait up to this long for their replies to be handled.
 */
const ANALYTICS_PLAN_SLICE_MS = 0.25;

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
  enqueueWebhooks?: WebhookEnqueuer;
  /** A conversion rate was missing and 1:1 was assumed. */
  onMissingRate?: (storeId: string, currency: string) => void;
  /** Wall time of one named step of a store's maintenance (where a batch's time goes). */
  onStep?: (step: MaintenanceStep, seconds: number) => void;
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

/**
 * Stores the facts of new events by COPY, like the raw events (docs/decisions.md, Storage): those a lookup
 * finds stored already (their raw events pruned by retention, then replayed) are left out, unless the batch
 * writer has looked them up itself (`withoutFacts`).
 */
async function insertEventFacts(
  q: Query,
  storeId: string,
  events: readonly EventFact[],
  withoutFacts = false,
): Promise<void> {
  if (events.length === 0) return;
  const old = withoutFacts
    ? new Set<string>()
    : await storedEventIds(
        q,
        storeId,
        events.map((e) => e.eventId),
      );
  const lines = events
    .filter((e) => !old.has(e.eventId))
    .map((e) =>
      copyLine([
        storeId,
        e.eventId,
        e.clientId,
        e.name,
        new Date(e.at).toISOString(),
        e.pageUrl,
        e.referrer,
        e.email,
        e.customerId,
        e.orderId,
        e.checkoutToken,
        e.isFirstOrder,
        e.valueMicros,
        e.valueOrig,
        e.currencyOrig,
        JSON.stringify(e.lines),
        JSON.stringify(e.items),
      ]),
    );
  if (lines.length === 0) return;
  await copyNewRows(q, 'facts.events_copy', `copy event_facts (store_id, ${EVENT_FACT_COLUMNS}) from stdin`, lines);
}

async function upsertOrderFacts(q: Query, storeId: string, orders: readonly OrderFact[]): Promise<void> {
  if (orders.length === 0) return;
  await q(
    'facts.orders_upsert',
    `insert into order_facts (store_id, order_id, created_at, cancelled, email, customer_id, value_micros, refunded_micros, value_orig,
                              currency_orig, landing_site, referring_site, checkout_token, lines, items)
     select $1, * from unnest($2::text[], $3::timestamptz[], $4::boolean[], $5::text[], $6::text[], $7::bigint[], $8::bigint[],
                              $9::numeric[], $10::text[], $11::text[], $12::text[], $13::text[], $14::jsonb[], $15::jsonb[])
     on conflict (store_id, order_id) do update set
       created_at = excluded.created_at, cancelled = excluded.cancelled, email = excluded.email, customer_id = excluded.customer_id,
       value_micros = excluded.value_micros, refunded_micros = excluded.refunded_micros, value_orig = excluded.value_orig,
       currency_orig = excluded.currency_orig, landing_site = excluded.landing_site, referring_site = excluded.referring_site,
       checkout_token = excluded.checkout_token, lines = excluded.lines, items = excluded.items`,
    [
      storeId,
      orders.map((o) => o.orderId),
      orders.map((o) => new Date(o.createdAt).toISOString()),
      orders.map((o) => o.cancelled),
      orders.map((o) => o.email),
      orders.map((o) => o.customerId),
      orders.map((o) => o.valueMicros),
      orders.map((o) => o.refundedMicros),
      orders.map((o) => o.valueOrig),
      orders.map((o) => o.currencyOrig),
      orders.map((o) => o.landingSite),
      orders.map((o) => o.referringSite),
      orders.map((o) => o.checkoutToken),
      orders.map((o) => JSON.stringify(o.lines)),
      orders.map((o) => JSON.stringify(o.items)),
    ],
  );
}

/**
 * Upserts unit costs; returns the variants whose cost is new or changed. The variants are locked exclusively
 * first: a concurrent batch reading their costs (under shared locks) either commits before this one looks up
 * the conversions to recompute, or reads the new costs after this one commits.
 */
async function upsertVariantCosts(q: Query, storeId: string, costs: readonly VariantCost[]): Promise<string[]> {
  if (costs.length === 0) return [];
  const latest = new Map(costs.map((c) => [c.variantId, c]));
  const rows = [...latest.values()];
  await lockNames(q, 'facts.variant_costs_lock', storeId, 'variant', latest.keys());
  const changed = await q<{ variant_id: string }>(
    'facts.variant_costs_upsert',
    `insert into variant_costs (store_id, variant_id, product_id, cost_micros)
     select $1, * from unnest($2::text[], $3::text[], $4::bigint[])
     on conflict (store_id, variant_id) do update set product_id = excluded.product_id, cost_micros = excluded.cost_micros
       where variant_costs.cost_micros <> excluded.cost_micros
     returning variant_id`,
    [storeId, rows.map((c) => c.variantId), rows.map((c) => c.productId), rows.map((c) => c.costMicros)],
  );
  return changed.map((r) => r.variant_id);
}

/**
 * Records the batch's clients and identity links; returns the clients and the links that were new.
 * An order naming a browser client links both to the hand-off key; a client not seen yet is recorded with
 * `first_seen_at` infinity, which its first event lowers.
 */
async function recordIdentity(
  q: Query,
  storeId: string,
  batch: StoreBatch,
): Promise<{ batchClients: string[]; newLinks: Array<{ client_id: string; key: string }> }> {
  const firstSeen = new Map<string, number>();
  const links: Array<[string, string]> = [];
  for (const e of batch.events) {
    firstSeen.set(e.clientId, Math.min(firstSeen.get(e.clientId) ?? Infinity, e.at));
    for (const k of identityKeysOfEvent(e)) links.push([e.clientId, k]);
  }
  for (const o of batch.orders) {
    const id = orderClientId(o.orderId);
    firstSeen.set(id, Math.min(firstSeen.get(id) ?? Infinity, o.createdAt));
    for (const k of identityKeysOfOrder(o)) links.push([id, k]);
  }
  for (const h of batch.handoffs) {
    const key = handoffKey(h.browserClientId);
    links.push([orderClientId(h.orderId), key], [h.browserClientId, key]);
    if (!firstSeen.has(h.browserClientId)) firstSeen.set(h.browserClientId, Infinity);
  }
  const batchClients = [...firstSeen.keys()];
  if (batchClients.length === 0) return { batchClients, newLinks: [] };

  await q(
    'identity.clients_upsert',
    `insert into clients (store_id, client_id, person_id, first_seen_at)
     select $1, c, c, t from unnest($2::text[], $3::timestamptz[]) as u(c, t)
     on conflict (store_id, client_id) do update set first_seen_at = excluded.first_seen_at
       where excluded.first_seen_at < clients.first_seen_at`,
    [storeId, batchClients, batchClients.map((c) => toTimestamp(firstSeen.get(c)!))],
  );
  const uniqueLinks = [...new Map(links.map((l) => [`${l[0]}\u0000${l[1]}`, l])).values()];
  const newLinks = uniqueLinks.length
    ? await q<{ client_id: string; key: string }>(
        'identity.links_insert',
        `insert into identity_links (store_id, client_id, key)
         select $1, * from unnest($2::text[], $3::text[])
         on conflict do nothing
         returning client_id, key`,
        [storeId, uniqueLinks.map((l) => l[0]), uniqueLinks.map((l) => l[1])],
      )
    : [];
  return { batchClients, newLinks };
}

/** The persons of the clients that carry any of the keys ($2) in store $1. */
export const PERSONS_OF_KEYS_SQL = keyProbeSql({
  select: 'l.client_id, l.key, c.person_id',
  from: 'identity_links l join clients c on c.store_id = l.store_id and c.client_id = l.client_id',
  key: 'l.key',
  store: 'l.store_id',
});

async function updateIdentity(
  q: Query,
  storeId: string,
  batch: StoreBatch,
): Promise<{ persons: Set<string>; mergedAway: string[] }> {
  const { batchClients, newLinks } = await recordIdentity(q, storeId, batch);
  if (batchClients.length === 0) return { persons: new Set(), mergedAway: [] };
  const newKeys = [...new Set(newLinks.map((l) => l.key))];
  // Two batches that link the same key (an order's browser checkout and the order push, in different
  // partitions) would each miss the other's uncommitted link and both credit the order. The key lock makes the
  // second wait for the first's commit; its lookup below then sees the first's link and merges.
  await lockNames(q, 'identity.lock_keys', storeId, 'key', newKeys);

  // Resolve and lock until stable: a concurrent worker may merge one of these persons meanwhile.
  let locked = new Set<string>();
  for (let attempt = 0; ; attempt++) {
    const [own, viaKeys] = await Promise.all([
      q<{ client_id: string; person_id: string }>(
        'identity.persons_of_clients',
        keyProbeSql({ select: 'client_id, person_id', from: 'clients', key: 'client_id' }),
        [storeId, batchClients],
      ),
      newKeys.length
        ? q<{ client_id: string; key: string; person_id: string }>('identity.persons_of_keys', PERSONS_OF_KEYS_SQL, [
            storeId,
            newKeys,
          ])
        : Promise.resolve([]),
    ]);
    const involved = new Set([...own.map((r) => r.person_id), ...viaKeys.map((r) => r.person_id)]);
    const missing = [...involved].filter((p) => !locked.has(p));
    if (missing.length === 0 || attempt > 20) {
      const personOf = new Map(own.map((r) => [r.client_id, r.person_id]));
      const uf = new PersonUnion();
      for (const p of involved) uf.find(p);
      const personsOfKey = new Map<string, string[]>();
      for (const r of viaKeys) personsOfKey.set(r.key, [...(personsOfKey.get(r.key) ?? []), r.person_id]);
      for (const l of newLinks) {
        const p = personOf.get(l.client_id)!;
        for (const other of personsOfKey.get(l.key) ?? []) uf.union(p, other);
      }
      const mergedAway = [...involved].filter((p) => uf.find(p) !== p);
      if (mergedAway.length) {
        await q(
          'identity.merge',
          `update clients c set person_id = m.target
           from unnest($2::text[], $3::text[]) as m(source, target)
           where c.store_id = $1 and c.person_id = m.source`,
          [storeId, mergedAway, mergedAway.map((p) => uf.find(p))],
        );
      }
      const persons = new Set([...involved].map((p) => uf.find(p)));
      return { persons, mergedAway };
    }
    await lockNames(q, 'identity.lock', storeId, 'person', missing);
    locked = new Set([...locked, ...missing]);
  }
}

/** The session context of each new event, from the recomputed views, for the webhook payloads. */
function webhookCandidates(raw: StorefrontEvent[], facts: PersonFacts[], views: PersonView[]): WebhookCandidate[] {
  const personOf = new Map<string, string>();
  const factById = new Map<string, EventFact>();
  for (const f of facts) {
    for (const c of f.clientIds) personOf.set(c, f.personId);
    for (const e of f.events) factById.set(e.eventId, e);
  }
  const sessionsOf = new Map<string, PersonView['sessions']>();
  for (const v of views)
    for (const s of v.sessions) sessionsOf.set(s.clientId, [...(sessionsOf.get(s.clientId) ?? []), s]);
  return raw.flatMap((event) => {
    const personId = personOf.get(event.clientId);
    if (!personId) return [];
    const at = Date.parse(event.timestamp);
    const session = (sessionsOf.get(event.clientId) ?? []).filter((s) => s.startedAt <= at).at(-1);
    const landing = session ? factById.get(session.landingEventId) : undefined;
    return [
      {
        event,
        personId,
        isSessionLanding: session?.landingEventId === event.id,
        landingSite: landing?.pageUrl ?? '',
        referringSite: landing?.referrer ?? '',
      },
    ];
  });
}

export function createViewMaintainer(logger: Logger, hooks: MaintainerHooks = {}): MaintainViews {
  const touchGroups = new CommittedTouchGroups();
  return async (q: Query, facts: NewFacts, afterCommit: (fn: () => void) => void): Promise<void> => {
    const batches = splitByStore(facts, hooks);
    const lap = lapTimer(hooks.onStep);
    // The rollups' rows are shared by every batch of a store (today's rows above all), and a row written stays
    // locked until the commit: the two batches in flight would wait for each other from the first rollup write
    // on. They are written last, store by store in the one order every worker uses, so the wait covers only
    // those writes and the commit (docs/decisions.md, Storage, "Two batches in flight").
    const rollups: Array<() => Promise<void>> = [];
    for (const batch of batches) {
      const storeId = batch.store.storeId;
      const rules: StoreRules = {
        timezone: batch.store.timezone,
        lookbackDays: batch.store.lookbackDays,
        halfLifeDays: batch.store.halfLifeDays,
      };

      await insertEventFacts(q, storeId, batch.events, facts.eventsWithoutFacts);
      await upsertOrderFacts(q, storeId, batch.orders);
      lap('facts');
      if (hooks.factsOnly) {
        await upsertVariantCosts(q, storeId, batch.costs);
        // Bulk loading (replay --rebuild): facts and identity links only; the views are rebuilt once at the end.
        await recordIdentity(q, storeId, batch);
        lap('identity');
        continue;
      }

      const { persons, mergedAway } = await updateIdentity(q, storeId, batch);
      // After the identity locks, like the shared cost locks of the recomputation (one lock order).
      const changedVariants = await upsertVariantCosts(q, storeId, batch.costs);
      if (changedVariants.length) {
        const viaProducts = await q<{ person_id: string }>(
          'views.persons_of_variants',
          'select distinct person_id from conversions where store_id = $1 and variant_ids && $2::text[]',
          [storeId, changedVariants],
        );
        const extra = viaProducts.map((r) => r.person_id).filter((p) => !persons.has(p));
        await lockNames(q, 'identity.lock', storeId, 'person', extra);
        for (const p of extra) persons.add(p);
      }
      lap('identity');

      const spendDelta = new Map<string, SpendDelta>();
      for (const s of batch.spend) {
        if (s.previous) accumulateSpend(spendDelta, s.previous, -1);
        accumulateSpend(spendDelta, s.fact, 1);
      }
      rollups.push(() => applySpendDelta(q, storeId, spendDelta));

      if (persons.size === 0) continue;
      const personIds = [...persons].sort();
      const loaded = await loadPersonFacts(q, storeId, personIds);
      lap('load');
      const views = loaded.facts.map((f) => recomputePerson(f, rules));
      lap('recompute');
      // The analytics plan (the stored contributions read, the fresh ones computed, the difference) runs beside
      // the session and attribution writes, whose statements leave the event loop idle, and is written after
      // them (docs/decisions.md, Analytics, "planned beside the writes").
      const replaced = [...personIds, ...mergedAway];
      const memory = { committed: touchGroups, afterCommit };
      const analyticsPlan =
        hooks.analytics === false
          ? undefined
          : planAnalytics(q, storeId, replaced, contributionsOf(loaded.facts, views, rules.timezone), {
              memory,
              sliceMs: ANALYTICS_PLAN_SLICE_MS,
            });
      const { sessions, conv } = await besideBackground(analyticsPlan, async () => {
        const sessions = await writeSessions(
          q,
          storeId,
          loaded.clientIds,
          views.flatMap((v) => v.sessions),
        );
        lap('sessions');
        const conv = await writeConversions(q, storeId, replaced, views);
        lap('attribution');
        return { sessions, conv };
      });
      rollups.push(() => applyAttributionDelta(q, storeId, conv.delta));
      if (analyticsPlan) {
        const plan = await analyticsPlan;
        await writeAnalyticsRows(q, storeId, plan);
        rollups.push(() => writeAnalyticsRollups(q, storeId, plan, memory));
      }
      lap('analytics');
      rollups.push(() => applyAdRollupDelta(q, storeId, conv.adDelta));
      if (hooks.enqueueWebhooks && batch.raw.length) {
        await hooks.enqueueWebhooks(
          q,
          storeId,
          batch.store.currency,
          webhookCandidates(batch.raw, loaded.facts, views),
        );
      }
      lap('webhooks');
      hooks.onApplied?.({
        storeId,
        persons: personIds.length,
        conversionsWritten: conv.written,
        sessionsWritten: sessions.inserted,
      });
      logger.debug(
        { storeId, persons: personIds.length, merged: mergedAway.length, conversions: conv.written },
        'views maintained',
      );
    }
    for (const write of rollups) await write();
    lap('rollups');
    // Last, so that the rows of popular products stay locked only until the commit.
    if (hooks.analytics !== false)
      for (const batch of batches) await upsertProductInfo(q, batch.store.storeId, batch.raw);
    lap('product_info');
  };
}
