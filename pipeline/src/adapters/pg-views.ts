/**
 * Reading the facts of persons and writing the difference of their recomputed views (docs/product.md, Attribution and Delivery guarantees).
 * Shared by the incremental maintainer (per batch) and the reconciliation (per store): both load the same
 * facts, run the same pure recomputation, and compare with what the views hold.
 */
import { createHash } from 'node:crypto';
import type { Goal, Model } from '../../../contracts/src/attribution';
import { PERIOD_GRAINS, type PeriodGrain, periodStart } from '../../../contracts/src/rollup-periods';
import type { EventName } from '../../../contracts/src/events';
import type { Query } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
import { copyLine } from '../../../storage/pg-copy-text';
import {
  type CreditDbRow,
  type EventFactRow,
  type OrderFactRow,
  SESSION_COLUMNS,
  type SessionRow,
} from '../../../storage/schema';
import type { AdSpendFact, EventFact, OrderFact } from '../domain/facts';
import { ORDER_CLIENT_PREFIX } from '../domain/facts';
import {
  type ConversionView,
  type Credit,
  conversionSignature,
  type PersonFacts,
  type PersonView,
} from '../domain/recompute-person';
import type { Session } from '../domain/sessionize';
import type { TrackingLinkInfo } from '../domain/touchpoint-types';
import { LINK_PARAM } from '../domain/touchpoint';
import { getParam, parseLandingUrl } from '../domain/url-params';
import { accumulateAdCredits } from '../domain/ad-rollup';
import { addSums, addValues, type CreditSums } from '../domain/credit-sums';
import { compositeKey } from '../domain/composite-key';
import { lockNames } from './pg-advisory-locks';
import {
  applyCounterDelta,
  type CounterWriteOptions,
  CREDIT_SUM_COLUMNS,
  type CounterRow,
  type CounterTable,
  creditSumValues,
  dayAndTextKeys,
} from './pg-counter-rollup';

const num = (v: string | number | null): number => (v === null ? 0 : Number(v));

// ---------------------------------------------------------------------------------------------------------
// Facts of persons
// ---------------------------------------------------------------------------------------------------------

/**
 * A timestamptz column read as milliseconds since the epoch, floored as a Date made from its text would be.
 * Each batch reads all the facts and sessions of every person it touches; a float8 costs the daemon about
 * 1.7 us less per row to parse than a Date does (docs/decisions.md, Storage).
 */
const epochMs = (column: string): string => `floor(extract(epoch from ${column}) * 1000)::float8`;

/** A fact row as loaded: its time in epoch milliseconds. */
type LoadedEventFactRow = Omit<EventFactRow, 'occurred_at'> & { occurred_ms: number };
type LoadedOrderFactRow = Omit<OrderFactRow, 'created_at'> & { created_ms: number };

function eventFactOf(r: LoadedEventFactRow): EventFact {
  return {
    eventId: r.event_id,
    clientId: r.client_id,
    name: r.name as EventName,
    at: r.occurred_ms,
    pageUrl: r.page_url,
    referrer: r.referrer,
    email: r.email,
    customerId: r.customer_id,
    orderId: r.order_id,
    checkoutToken: r.checkout_token,
    isFirstOrder: r.is_first_order,
    valueMicros: r.value_micros === null ? null : Number(r.value_micros),
    valueOrig: r.value_orig === null ? null : Number(r.value_orig),
    currencyOrig: r.currency_orig,
    lines: r.lines,
    items: r.items,
  };
}

function orderFactOf(r: LoadedOrderFactRow): OrderFact {
  return {
    orderId: r.order_id,
    createdAt: r.created_ms,
    cancelled: r.cancelled,
    email: r.email,
    customerId: r.customer_id,
    valueMicros: Number(r.value_micros),
    refundedMicros: Number(r.refunded_micros),
    valueOrig: Number(r.value_orig),
    currencyOrig: r.currency_orig,
    landingSite: r.landing_site,
    referringSite: r.referring_site,
    checkoutToken: r.checkout_token,
    lines: r.lines,
    items: r.items,
  };
}

export interface LoadedPersons {
  facts: PersonFacts[];
  /** Every client (real and pseudo) of the loaded persons. */
  clientIds: string[];
}

/** The columns of an event fact as stored (after store_id); loaded as EVENT_FACT_LOADED. */
export const EVENT_FACT_COLUMNS = `event_id, client_id, name, occurred_at, page_url, referrer, email, customer_id, order_id,
  checkout_token, is_first_order, value_micros, value_orig, currency_orig, lines, items`;
/** EVENT_FACT_COLUMNS as the recomputation loads them. */
const EVENT_FACT_LOADED = EVENT_FACT_COLUMNS.replace('occurred_at', `${epochMs('occurred_at')} as occurred_ms`);

/** Loads everything the recomputation of the given persons (as the clients table groups them) reads. */
export async function loadPersonFacts(q: Query, storeId: string, personIds: readonly string[]): Promise<LoadedPersons> {
  if (personIds.length === 0) return { facts: [], clientIds: [] };
  const clients = await q<{ client_id: string; person_id: string }>(
    'views.clients_of_persons',
    keyProbeSql({ select: 'client_id, person_id', from: 'clients', key: 'person_id' }),
    [storeId, personIds],
  );
  return loadFactsOfGroups(q, storeId, personIds, clients);
}

/** Loads the facts of persons given as explicit client groups (the reconciliation's own identity). */
export async function loadFactsOfGroups(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  clients: ReadonlyArray<{ client_id: string; person_id: string }>,
): Promise<LoadedPersons> {
  const realClients = clients.filter((c) => !c.client_id.startsWith(ORDER_CLIENT_PREFIX)).map((c) => c.client_id);
  const orderIds = clients
    .filter((c) => c.client_id.startsWith(ORDER_CLIENT_PREFIX))
    .map((c) => c.client_id.slice(ORDER_CLIENT_PREFIX.length));

  const [eventRows, orderRows] = await Promise.all([
    q<LoadedEventFactRow>(
      'views.event_facts',
      keyProbeSql({
        select: EVENT_FACT_LOADED,
        from: 'event_facts',
        key: 'client_id',
      }),
      [storeId, realClients],
    ),
    orderIds.length
      ? q<LoadedOrderFactRow>(
          'views.order_facts',
          keyProbeSql({
            select: `order_id, ${epochMs('created_at')} as created_ms, cancelled, email, customer_id, value_micros,
                     refunded_micros, value_orig, currency_orig, landing_site, referring_site, checkout_token, lines, items`,
            from: 'order_facts',
            key: 'order_id',
          }),
          [storeId, orderIds],
        )
      : Promise.resolve([]),
  ]);
  const events = eventRows.map(eventFactOf);
  const orders = orderRows.map(orderFactOf);

  // Tracking links referenced by landing URLs, and unit costs of the variants bought.
  const codes = new Set<string>();
  for (const e of events) {
    const params = parseLandingUrl(e.pageUrl)?.params;
    const code = params ? getParam(params, LINK_PARAM) : undefined;
    if (code) codes.add(code);
  }
  for (const o of orders) {
    const params = parseLandingUrl(
      o.landingSite.startsWith('/') ? `https://store.invalid${o.landingSite}` : o.landingSite,
    )?.params;
    const code = params ? getParam(params, LINK_PARAM) : undefined;
    if (code) codes.add(code);
  }
  const variants = new Set<string>();
  for (const x of [...events, ...orders]) for (const [v] of x.lines) variants.add(v);
  // Shared locks on the costs read: a batch that changes one of them holds it exclusively until it commits and
  // then finds the conversions written meanwhile (docs/decisions.md, Conversions and goals).
  await lockNames(q, 'views.variant_costs_lock', storeId, 'variant', variants, 'shared');
  const [linkRows, costRows] = await Promise.all([
    codes.size
      ? q<{ code: string; campaign: string; source: string; medium: string }>(
          'views.links',
          keyProbeSql({ select: 'code, campaign, source, medium', from: 'tracking_links', key: 'code' }),
          [storeId, [...codes]],
        )
      : Promise.resolve([]),
    variants.size
      ? q<{ variant_id: string; cost_micros: string }>(
          'views.variant_costs',
          keyProbeSql({ select: 'variant_id, cost_micros', from: 'variant_costs', key: 'variant_id' }),
          [storeId, [...variants]],
        )
      : Promise.resolve([]),
  ]);
  const links = new Map<string, TrackingLinkInfo>(linkRows.map((l) => [l.code, l]));
  const costs = new Map(costRows.map((c) => [c.variant_id, Number(c.cost_micros)]));

  const personOf = new Map(clients.map((c) => [c.client_id, c.person_id]));
  const byPerson = new Map<string, { clientIds: string[]; events: EventFact[]; orders: OrderFact[] }>();
  for (const p of personIds) byPerson.set(p, { clientIds: [], events: [], orders: [] });
  for (const c of clients) byPerson.get(c.person_id)?.clientIds.push(c.client_id);
  for (const e of events) byPerson.get(personOf.get(e.clientId)!)?.events.push(e);
  for (const o of orders) byPerson.get(personOf.get(`${ORDER_CLIENT_PREFIX}${o.orderId}`)!)?.orders.push(o);

  const resolveLink = (code: string) => links.get(code);
  const variantCost = (v: string) => costs.get(v);
  return {
    facts: [...byPerson].map(([personId, p]) => ({ personId, ...p, resolveLink, variantCost })),
    clientIds: clients.map((c) => c.client_id),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------------------

function sessionRow(s: Session): (string | number)[] {
  const t = s.touch;
  return [
    s.clientId,
    s.startedAt,
    s.landingEventId,
    t.origin,
    t.channel,
    t.source,
    t.medium,
    t.campaign,
    t.landingPage,
    t.platform,
    t.content,
    t.term,
    t.linkCode,
    t.clickIdParam,
    t.campaignId,
    t.adSetId,
    t.adId,
  ];
}

/** A stored session as loaded: its start in epoch milliseconds (epochMs). */
type LoadedSessionRow = Omit<SessionRow, 'started_at'> & { started_at: number };
const SESSION_LOADED = SESSION_COLUMNS.map((c) => (c === 'started_at' ? `${epochMs(c)} as ${c}` : c)).join(', ');

const SESSION_KEY = compositeKey(['clientId', 'startedAt']);
const sessionKey = (clientId: string, startedAt: number): string => SESSION_KEY.of({ clientId, startedAt });

export interface SessionDiff {
  inserted: number;
  deleted: number;
}

/** Makes the stored sessions of `clientIds` equal to `sessions`, touching only rows that differ. */
export async function writeSessions(
  q: Query,
  storeId: string,
  clientIds: readonly string[],
  sessions: readonly Session[],
): Promise<SessionDiff> {
  if (clientIds.length === 0) return { inserted: 0, deleted: 0 };
  const old = await q<LoadedSessionRow>(
    'views.sessions_load',
    keyProbeSql({ select: SESSION_LOADED, from: 'sessions', key: 'client_id' }),
    [storeId, clientIds],
  );
  const oldSig = new Map<string, string>();
  // A loaded row is in sessionRow's form already (its start in epoch milliseconds).
  for (const r of old)
    oldSig.set(sessionKey(r.client_id, r.started_at), JSON.stringify(SESSION_COLUMNS.map((c) => r[c])));
  const newRows = new Map<string, (string | number)[]>();
  for (const s of sessions) newRows.set(sessionKey(s.clientId, s.startedAt), sessionRow(s));

  const toDelete = [...oldSig.keys()].filter((k) => {
    const n = newRows.get(k);
    return !n || JSON.stringify(n) !== oldSig.get(k);
  });
  const toInsert = [...newRows].filter(([k, row]) => oldSig.get(k) !== JSON.stringify(row)).map(([, row]) => row);

  if (toDelete.length) {
    const [clientIds, startedAts] = SESSION_KEY.fieldArrays(toDelete);
    await q(
      'views.sessions_delete',
      `delete from sessions s using unnest($2::text[], $3::timestamptz[]) as d(client_id, started_at)
       where s.store_id = $1 and s.client_id = d.client_id and s.started_at = d.started_at`,
      [storeId, clientIds, startedAts!.map((t) => new Date(Number(t)).toISOString())],
    );
  }
  if (toInsert.length) {
    const cols = SESSION_COLUMNS.map((_, i) =>
      toInsert.map((r) => (i === 1 ? new Date(r[i] as number).toISOString() : r[i])),
    );
    const types = SESSION_COLUMNS.map((c, i) => `$${i + 2}::${c === 'started_at' ? 'timestamptz' : 'text'}[]`);
    await q(
      'views.sessions_insert',
      `insert into sessions (store_id, ${SESSION_COLUMNS.join(', ')}) select $1, * from unnest(${types.join(', ')})`,
      [storeId, ...cols],
    );
  }
  return { inserted: toInsert.length, deleted: toDelete.length };
}

// ---------------------------------------------------------------------------------------------------------
// Conversions, credits and the attribution rollup
// ---------------------------------------------------------------------------------------------------------

export interface CreditRow extends Credit {
  goal: Goal;
  key: string;
  day: string;
  /** The touchpoints whose credits the row sums: those of the conversion and model with the same dimensions. */
  touches: number;
}

/** The fields a credit row is grouped by: the model and every dimension of `conversion_credits`. */
const CREDIT_ROW_KEY = compositeKey([
  'model',
  'channel',
  'source',
  'medium',
  'campaign',
  'landingPage',
  'platform',
  'linkCode',
  'campaignId',
  'adSetId',
  'adId',
]);

/**
 * A conversion's credits as rows: one per model and distinct touchpoint dimensions, summing the credits of the
 * touchpoints that share them, at the first one's index (docs/decisions.md, Storage, "One credit row per
 * distinct touchpoint"). Every reader sums credits by dimensions, so the sums are what one row per touchpoint
 * gave; a conversion's number of touchpoints is the sum of its rows' `touches` under one model.
 * Fields written out (no spread, see creditOf in recompute-person.ts).
 */
export function creditRowsOf(c: ConversionView): CreditRow[] {
  const rows: CreditRow[] = [];
  const byDims = new Map<string, CreditRow>();
  for (const cr of c.credits) {
    const k = CREDIT_ROW_KEY.of(cr);
    const same = byDims.get(k);
    if (same) {
      same.weight += cr.weight;
      same.newWeight += cr.newWeight;
      same.valueMicros += cr.valueMicros;
      same.cogsMicros += cr.cogsMicros;
      same.touches++;
      continue;
    }
    const row: CreditRow = {
      channel: cr.channel,
      source: cr.source,
      medium: cr.medium,
      campaign: cr.campaign,
      landingPage: cr.landingPage,
      platform: cr.platform,
      linkCode: cr.linkCode,
      campaignId: cr.campaignId,
      adSetId: cr.adSetId,
      adId: cr.adId,
      model: cr.model,
      index: cr.index,
      weight: cr.weight,
      newWeight: cr.newWeight,
      valueMicros: cr.valueMicros,
      cogsMicros: cr.cogsMicros,
      goal: c.goal,
      key: c.key,
      day: c.day,
      touches: 1,
    };
    byDims.set(k, row);
    rows.push(row);
  }
  return rows;
}

export function digestOf(c: ConversionView, personId: string): string {
  return createHash('sha1').update(conversionSignature(c, personId)).digest('base64url');
}

/** A conversion's key: its goal and its key within the goal. */
export const CONVERSION_KEY = compositeKey(['goal', 'key']);
const convKey = (goal: string, key: string): string => CONVERSION_KEY.of({ goal, key });

/** The attribution rollups' key: a credit's dimensions, in the order of attribution_daily's key columns. */
export const ROLLUP_KEY = compositeKey([
  'day',
  'goal',
  'model',
  'channel',
  'source',
  'medium',
  'campaign',
  'landingPage',
  'platform',
]);

export type RollupDelta = CreditSums;

/** Adds `sign` times the credits into the delta map (exact integer arithmetic). */
export function accumulateCredits(into: Map<string, RollupDelta>, credits: Iterable<CreditRow>, sign: 1 | -1): void {
  for (const c of credits) addSums(into, ROLLUP_KEY.of(c), c, sign);
}

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

export interface ConversionDiff {
  written: number;
  removed: number;
  delta: Map<string, RollupDelta>;
  /** The same credits keyed for the ad rollup (paid touchpoints only). */
  adDelta: Map<string, RollupDelta>;
}

/** The conversions the views hold for some persons: digest and person by conversion key (`convKey`). */
export type StoredConversions = ReadonlyMap<string, { digest: string; personId: string }>;

export async function loadStoredConversions(
  q: Query,
  storeId: string,
  personIds: readonly string[],
): Promise<StoredConversions> {
  const rows = personIds.length
    ? await q<{ goal: string; conversion_key: string; person_id: string; digest: string }>(
        'views.conversions_load',
        keyProbeSql({ select: 'goal, conversion_key, person_id, digest', from: 'conversions', key: 'person_id' }),
        [storeId, personIds],
      )
    : [];
  return new Map(rows.map((r) => [convKey(r.goal, r.conversion_key), { digest: r.digest, personId: r.person_id }]));
}

/** Whether the views hold the conversion (`goal`, `key`) under `personId`. */
export function storedUnder(stored: StoredConversions, personId: string): (goal: string, key: string) => boolean {
  return (goal, key) => stored.get(convKey(goal, key))?.personId === personId;
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
  const delta = new Map<string, RollupDelta>();
  const adDelta = new Map<string, RollupDelta>();
  const fresh: Array<{ view: ConversionView; personId: string; digest: string }> = [];
  const keep = new Set<string>();
  for (const pv of views) {
    for (const c of pv.conversions) {
      const k = convKey(c.goal, c.key);
      keep.add(k);
      if (pv.unchanged.has(c)) continue;
      const digest = digestOf(c, pv.personId);
      if (stored.get(k)?.digest !== digest) fresh.push({ view: c, personId: pv.personId, digest });
    }
  }
  const gone = [...stored.keys()].filter((k) => !keep.has(k));
  // Old credits of every conversion rewritten or gone are deleted and retracted. Rewritten ones are
  // looked up by key, not by person, so a conversion that sat under another person cannot be counted twice.
  const retract = opts.cleared ? [] : [...new Set([...gone, ...fresh.map((f) => convKey(f.view.goal, f.view.key))])];
  if (retract.length) {
    const removedCredits = await q<CreditDbRow>(
      'views.credits_delete',
      `delete from conversion_credits c using unnest($2::text[], $3::text[]) as d(goal, conversion_key)
       where c.store_id = $1 and c.goal = d.goal and c.conversion_key = d.conversion_key
       returning c.goal, c.conversion_key, c.model, c.touch_index, to_char(c.day, 'YYYY-MM-DD') as day, c.channel, c.source,
                 c.medium, c.campaign, c.landing_page, c.platform, c.link_code, c.campaign_id, c.ad_set_id, c.ad_id, c.weight,
                 c.new_weight, c.value_micros, c.cogs_micros, c.touches`,
      [storeId, ...CONVERSION_KEY.fieldArrays(retract)],
    );
    const removed = removedCredits.map(creditOf);
    accumulateCredits(delta, removed, -1);
    accumulateAdCredits(adDelta, removed, -1);
  }
  if (gone.length) {
    await q(
      'views.conversions_delete',
      `delete from conversions c using unnest($2::text[], $3::text[]) as d(goal, conversion_key)
       where c.store_id = $1 and c.goal = d.goal and c.conversion_key = d.conversion_key`,
      [storeId, ...CONVERSION_KEY.fieldArrays(gone)],
    );
  }
  if (fresh.length) {
    const v = fresh.map((f) => f.view);
    await q(
      'views.conversions_upsert',
      `insert into conversions (store_id, goal, conversion_key, person_id, client_id, occurred_at, day, value_micros, value_orig,
                                currency_orig, cogs_micros, is_new, event_id, order_id, variant_ids, first_touch, last_touch, digest)
       select $1, t.goal, t.conversion_key, t.person_id, t.client_id, t.occurred_at, t.day, t.value_micros, t.value_orig,
              t.currency_orig, t.cogs_micros, t.is_new, t.event_id, t.order_id,
              array(select jsonb_array_elements_text(t.variant_ids)), t.first_touch, t.last_touch, t.digest
       from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::date[], $8::bigint[], $9::numeric[],
                   $10::text[], $11::bigint[], $12::boolean[], $13::text[], $14::text[], $15::jsonb[], $16::jsonb[], $17::jsonb[], $18::text[])
         as t(goal, conversion_key, person_id, client_id, occurred_at, day, value_micros, value_orig, currency_orig, cogs_micros,
              is_new, event_id, order_id, variant_ids, first_touch, last_touch, digest)
       on conflict (store_id, goal, conversion_key) do update set
         person_id = excluded.person_id, client_id = excluded.client_id, occurred_at = excluded.occurred_at, day = excluded.day,
         value_micros = excluded.value_micros, value_orig = excluded.value_orig, currency_orig = excluded.currency_orig,
         cogs_micros = excluded.cogs_micros, is_new = excluded.is_new, event_id = excluded.event_id, order_id = excluded.order_id,
         variant_ids = excluded.variant_ids, first_touch = excluded.first_touch, last_touch = excluded.last_touch,
         digest = excluded.digest`,
      [
        storeId,
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
    const credits = v.flatMap(creditRowsOf);
    await insertCredits(q, storeId, credits);
    accumulateCredits(delta, credits, 1);
    accumulateAdCredits(adDelta, credits, 1);
  }
  return { written: fresh.length, removed: gone.length, delta, adDelta };
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
  for (let from = 0; from < credits.length; from += CREDITS_PER_COPY) {
    let text = '';
    for (let i = from; i < Math.min(from + CREDITS_PER_COPY, credits.length); i++) {
      const c = credits[i]!;
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
    }
    await q.copyFrom('views.credits_copy', `copy conversion_credits (${CREDIT_COLUMNS}) from stdin`, text);
  }
}

/** The rollup key without the landing page (the attribution_by_source rollup). */
export function withoutLandingPage(delta: Map<string, RollupDelta>): Map<string, RollupDelta> {
  const out = new Map<string, RollupDelta>();
  for (const [k, d] of delta) addSums(out, ROLLUP_KEY.with(k, 'landingPage', ''), d);
  return out;
}

/** The attribution rollups; their key columns in the order of `ROLLUP_KEY`. */
const ATTRIBUTION_DAILY: CounterTable = {
  table: 'attribution_daily',
  keys: dayAndTextKeys(ROLLUP_KEY.columns),
  values: CREDIT_SUM_COLUMNS,
};
const ATTRIBUTION_BY_SOURCE: CounterTable = {
  table: 'attribution_by_source',
  keys: ATTRIBUTION_DAILY.keys.filter((c) => c.name !== 'landing_page'),
  values: CREDIT_SUM_COLUMNS,
};

/** The same two by whole week and whole month: `day` holds the period's first day, `grain` which period. */
const ATTRIBUTION_PERIODS: CounterTable = {
  table: 'attribution_periods',
  keys: [{ name: 'grain', type: 'text' }, ...ATTRIBUTION_DAILY.keys],
  values: CREDIT_SUM_COLUMNS,
};
const ATTRIBUTION_BY_SOURCE_PERIODS: CounterTable = {
  table: 'attribution_by_source_periods',
  keys: [{ name: 'grain', type: 'text' }, ...ATTRIBUTION_BY_SOURCE.keys],
  values: CREDIT_SUM_COLUMNS,
};

/** A daily delta summed by the periods of `grain`: keyed as the daily one, each day moved to its period's first. */
export function byPeriod(delta: Map<string, RollupDelta>, grain: PeriodGrain): Map<string, RollupDelta> {
  const out = new Map<string, RollupDelta>();
  for (const [k, d] of delta) addSums(out, ROLLUP_KEY.with(k, 'day', periodStart(grain, ROLLUP_KEY.get(k, 'day'))), d);
  return out;
}

const rollupRows = (delta: Map<string, RollupDelta>, dropLandingPage: boolean): CounterRow[] =>
  [...delta].map(([k, d]) => ({
    key: ROLLUP_KEY.parts(k, dropLandingPage ? 'landingPage' : undefined),
    values: creditSumValues(d),
  }));

const periodRows = (delta: Map<string, RollupDelta>, dropLandingPage: boolean): CounterRow[] =>
  PERIOD_GRAINS.flatMap((grain) =>
    rollupRows(byPeriod(delta, grain), dropLandingPage).map((r) => ({ ...r, key: [grain, ...r.key] })),
  );

/**
 * Applies a credit delta to the attribution rollups: by day, by day without the landing page, and both by whole
 * week and month.
 */
export async function applyAttributionDelta(
  q: Query,
  storeId: string,
  delta: Map<string, RollupDelta>,
  opts: CounterWriteOptions = {},
): Promise<void> {
  const bySource = withoutLandingPage(delta);
  await applyCounterDelta(q, storeId, ATTRIBUTION_DAILY, rollupRows(delta, false), opts);
  await applyCounterDelta(q, storeId, ATTRIBUTION_BY_SOURCE, rollupRows(bySource, true), opts);
  await applyCounterDelta(q, storeId, ATTRIBUTION_PERIODS, periodRows(delta, false), opts);
  await applyCounterDelta(q, storeId, ATTRIBUTION_BY_SOURCE_PERIODS, periodRows(bySource, true), opts);
}

// ---------------------------------------------------------------------------------------------------------
// Ad spend rollup
// ---------------------------------------------------------------------------------------------------------

/** A spend group's sums as the reconciliation reports them. */
export interface SpendDelta {
  spendMicros: number;
  impressions: number;
  clicks: number;
  convValueMicros: number;
}

/** The spend rollup's key, in the order of ad_spend_daily's key columns. */
const SPEND_KEY = compositeKey(['day', 'platform', 'channel', 'source', 'medium', 'campaign']);

/** Adds `sign` times a spend row to its group's sums, in the order of ad_spend_daily's value columns. */
export function accumulateSpend(into: Map<string, number[]>, f: AdSpendFact, sign: 1 | -1): void {
  addValues(into, SPEND_KEY.of(f), [f.spendMicros, f.impressions, f.clicks, f.convValueMicros], sign);
}

const AD_SPEND_DAILY: CounterTable = {
  table: 'ad_spend_daily',
  keys: dayAndTextKeys(SPEND_KEY.columns),
  values: ['spend_micros', 'impressions', 'clicks', 'conv_value_micros'].map((name) => ({ name, type: 'bigint' })),
};

export async function applySpendDelta(q: Query, storeId: string, delta: Map<string, number[]>): Promise<void> {
  await applyCounterDelta(
    q,
    storeId,
    AD_SPEND_DAILY,
    [...delta].map(([k, values]) => ({ key: SPEND_KEY.parts(k), values })),
  );
}
