/**
 * Loading the facts of persons for their recomputation (docs/product.md, Attribution): their event and order
 * facts, the tracking links their landing URLs name and the unit costs of the variants they bought. Shared by
 * the batch (persons of the clients it touched) and the reconciliation (persons of its own identity).
 */
import type { Query } from '../../../storage/db';
import { probeKeysOfStores } from '../../../storage/key-probe';
import { type EventFact, ORDER_CLIENT_PREFIX, type OrderFact } from '../domain/facts';
import type { PersonFacts } from '../domain/recompute-person';
import type { TrackingLinkInfo } from '../domain/touchpoint-types';
import { LINK_PARAM } from '../domain/touchpoint';
import { getParam, parseLandingUrl } from '../domain/url-params';
import { lockNamesOfStores } from './pg-advisory-locks';

/**
 * A timestamptz column read as milliseconds since the epoch, floored as a Date made from its text would be.
 * Each batch reads all the facts and sessions of every person it touches; a float8 costs the daemon about
 * 1.7 us less per row to parse than a Date does (docs/decisions.md, Storage).
 */
export const epochMs = (column: string): string => `floor(extract(epoch from ${column}) * 1000)::float8`;

/**
 * The columns of the facts loaded straight into the domain's `EventFact` and `OrderFact`, each under its field's
 * name: times as epoch milliseconds, money as float8 (exact below 2^53, the same double as `Number` of its text).
 */
const EVENT_FACT_FIELDS = `event_id as "eventId", client_id as "clientId", name, ${epochMs('occurred_at')} as at,
  page_url as "pageUrl", referrer, email, customer_id as "customerId", order_id as "orderId",
  checkout_token as "checkoutToken", is_first_order as "isFirstOrder", value_micros::float8 as "valueMicros",
  value_orig::float8 as "valueOrig", currency_orig as "currencyOrig", lines, items`;
const ORDER_FACT_FIELDS = `order_id as "orderId", ${epochMs('created_at')} as "createdAt", cancelled, email,
  customer_id as "customerId", value_micros::float8 as "valueMicros", refunded_micros::float8 as "refundedMicros",
  value_orig::float8 as "valueOrig", currency_orig as "currencyOrig", landing_site as "landingSite",
  referring_site as "referringSite", checkout_token as "checkoutToken", lines, items`;

export interface LoadedPersons {
  facts: PersonFacts[];
  /** Every client (real and pseudo) of the loaded persons. */
  clientIds: string[];
}

/** The columns of an event fact as stored (after store_id). */
export const EVENT_FACT_COLUMNS = `event_id, client_id, name, occurred_at, page_url, referrer, email, customer_id, order_id,
  checkout_token, is_first_order, value_micros, value_orig, currency_orig, lines, items`;

/** How a load takes the unit costs: with shared locks (a batch), or without (see `loadFactsOfGroups`). */
export interface CostReads {
  lockCosts?: boolean;
}

/** The persons of one store to load. */
export interface StorePersons {
  storeId: string;
  personIds: readonly string[];
}

/** Loads everything the recomputation of the given persons (as the clients table groups them) reads. */
export async function loadPersonFacts(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  costs: CostReads = {},
): Promise<LoadedPersons> {
  return (await loadPersonFactsOfStores(q, [{ storeId, personIds }], costs)).get(storeId)!;
}

/**
 * `loadPersonFacts` for the persons of several stores, each statement taking them all (docs/decisions.md, Storage,
 * "A batch's stores written together"); every store given has an entry.
 */
export async function loadPersonFactsOfStores(
  q: Query,
  entries: readonly StorePersons[],
  costs: CostReads = {},
): Promise<Map<string, LoadedPersons>> {
  const clients = await probeKeysOfStores<{ client_id: string; person_id: string }>(
    q,
    'views.clients_of_persons',
    { select: 'client_id, person_id', from: 'clients', key: 'person_id' },
    entries.map((e) => ({ storeId: e.storeId, keys: e.personIds })),
  );
  return loadFactsOfGroupsOfStores(
    q,
    entries.map((e) => ({ ...e, clients: clients.get(e.storeId)! })),
    costs,
  );
}

/** Persons of one store given as explicit client groups. */
export interface StoreGroups extends StorePersons {
  clients: ReadonlyArray<{ client_id: string; person_id: string }>;
}

/**
 * Loads the facts of persons given as explicit client groups (the reconciliation's own identity). `lockCosts`
 * false leaves out the shared locks on the unit costs read: for a comparison, which reads one snapshot, and for
 * a transaction that holds the views (`lockViews`: the repair, the re-credit), which no batch writes a conversion
 * beside and which would only deadlock with a batch holding a cost's lock while it waits for the views.
 */
export async function loadFactsOfGroups(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  clients: ReadonlyArray<{ client_id: string; person_id: string }>,
  costs: CostReads = {},
): Promise<LoadedPersons> {
  return (await loadFactsOfGroupsOfStores(q, [{ storeId, personIds, clients }], costs)).get(storeId)!;
}

/** What a store's facts name beyond them: the tracking links of their landing URLs, the variants bought. */
function referencesOf(
  events: readonly EventFact[],
  orders: readonly OrderFact[],
): { codes: string[]; variants: string[] } {
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
  for (const x of events) for (const [v] of x.lines) variants.add(v);
  for (const x of orders) for (const [v] of x.lines) variants.add(v);
  return { codes: [...codes], variants: [...variants] };
}

/** `loadFactsOfGroups` for several stores, each statement taking them all; every store given has an entry. */
export async function loadFactsOfGroupsOfStores(
  q: Query,
  entries: readonly StoreGroups[],
  { lockCosts = true }: CostReads = {},
): Promise<Map<string, LoadedPersons>> {
  const keysOf = (keys: (e: StoreGroups) => string[]) => entries.map((e) => ({ storeId: e.storeId, keys: keys(e) }));
  const [events, orders] = await Promise.all([
    probeKeysOfStores<EventFact>(
      q,
      'views.event_facts',
      { select: EVENT_FACT_FIELDS, from: 'event_facts', key: 'client_id' },
      keysOf((e) => e.clients.filter((c) => !c.client_id.startsWith(ORDER_CLIENT_PREFIX)).map((c) => c.client_id)),
    ),
    probeKeysOfStores<OrderFact>(
      q,
      'views.order_facts',
      { select: ORDER_FACT_FIELDS, from: 'order_facts', key: 'order_id' },
      keysOf((e) =>
        e.clients
          .filter((c) => c.client_id.startsWith(ORDER_CLIENT_PREFIX))
          .map((c) => c.client_id.slice(ORDER_CLIENT_PREFIX.length)),
      ),
    ),
  ]);
  const refs = new Map(entries.map((e) => [e.storeId, referencesOf(events.get(e.storeId)!, orders.get(e.storeId)!)]));
  // Shared locks on the costs read: a batch that changes one of them holds it exclusively until it commits and
  // then finds the conversions written meanwhile (docs/decisions.md, Conversions and goals).
  if (lockCosts)
    await lockNamesOfStores(
      q,
      'views.variant_costs_lock',
      'variant',
      entries.map((e) => ({ storeId: e.storeId, names: refs.get(e.storeId)!.variants })),
      'shared',
    );
  const [linkRows, costRows] = await Promise.all([
    probeKeysOfStores<{ code: string; campaign: string; source: string; medium: string }>(
      q,
      'views.links',
      { select: 'code, campaign, source, medium', from: 'tracking_links', key: 'code' },
      keysOf((e) => refs.get(e.storeId)!.codes),
    ),
    probeKeysOfStores<{ variant_id: string; cost_micros: string }>(
      q,
      'views.variant_costs',
      { select: 'variant_id, cost_micros', from: 'variant_costs', key: 'variant_id' },
      keysOf((e) => refs.get(e.storeId)!.variants),
    ),
  ]);
  const loaded = new Map<string, LoadedPersons>();
  for (const { storeId, personIds, clients } of entries) {
    const links = new Map<string, TrackingLinkInfo>(linkRows.get(storeId)!.map((l) => [l.code, l]));
    const costs = new Map(costRows.get(storeId)!.map((c) => [c.variant_id, Number(c.cost_micros)]));
    const personOf = new Map(clients.map((c) => [c.client_id, c.person_id]));
    const byPerson = new Map<string, { clientIds: string[]; events: EventFact[]; orders: OrderFact[] }>();
    for (const p of personIds) byPerson.set(p, { clientIds: [], events: [], orders: [] });
    for (const c of clients) byPerson.get(c.person_id)?.clientIds.push(c.client_id);
    for (const e of events.get(storeId)!) byPerson.get(personOf.get(e.clientId)!)?.events.push(e);
    for (const o of orders.get(storeId)!)
      byPerson.get(personOf.get(`${ORDER_CLIENT_PREFIX}${o.orderId}`)!)?.orders.push(o);
    const resolveLink = (code: string) => links.get(code);
    const variantCost = (v: string) => costs.get(v);
    loaded.set(storeId, {
      facts: [...byPerson].map(([personId, p]) => ({ personId, ...p, resolveLink, variantCost })),
      clientIds: clients.map((c) => c.client_id),
    });
  }
  return loaded;
}
