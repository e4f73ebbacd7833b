/**
 * Recomputes everything the views hold about one person from its stored facts (docs/product.md, Sessions and touchpoints and Identity and Conversions and goals and Attribution): sessions
 * and touchpoints of each client, conversions of the four goals, and their credits under the five models.
 * The pipeline runs it for every person a batch touched and applies the difference; the reconciliation
 * runs it for every person. One function for both is what makes "views = recomputation" hold.
 */
import { MODELS, type Goal, type Model, WEIGHT_SCALE } from '../../../contracts/src/attribution';
import type { Channel, Platform } from '../../../contracts/src/channels';
import { dayInZone } from '../../../contracts/src/time';
import { isVisitEvent } from '../../../contracts/src/events';
import { creditTouches, type TouchCredit } from './attribution-models';
import type { EventFact, Line, OrderFact } from './facts';
import { orderClientId } from './facts';
import { DAY_MS, selectTouches } from './lookback';
import { capMicros, MICROS_PER_CENT } from './money';
import { byTimeThenId, ownHostsOf, type ResolveLink, type Session, sessionize } from './sessionize';
import { deriveTouchpoint, DIRECT_CAMPAIGN, DIRECT_MEDIUM, DIRECT_SOURCE } from './touchpoint';
import { parseLandingUrl } from './url-params';

export interface StoreRules {
  timezone: string;
  lookbackDays: number;
  /** Half-life of the time-decay model, in days (> 0). */
  halfLifeDays: number;
  /**
   * The stored data-driven fit's integer weights by channel, per goal; a goal without a fit gets no
   * `data_driven` credits (docs/product.md, Attribution, "Data-driven").
   */
  dataDrivenWeights?: Partial<Record<Goal, Readonly<Record<string, number>>>>;
}

export interface PersonFacts {
  personId: string;
  /** Every client of the person, pseudo-clients of pushed orders included. */
  clientIds: readonly string[];
  events: readonly EventFact[];
  orders: readonly OrderFact[];
  resolveLink: ResolveLink;
  /** Unit cost of goods of a variant in micro-units, when known. */
  variantCost: (variantId: string) => number | undefined;
}

export interface CreditDims {
  channel: Channel;
  source: string;
  medium: string;
  campaign: string;
  landingPage: string;
  platform: Platform;
  linkCode: string;
  /** Ad ids of the touchpoint's landing URL (docs/product.md, Ads attribution), else "". */
  campaignId: string;
  adSetId: string;
  adId: string;
}

export interface Credit extends CreditDims {
  model: Model;
  index: number;
  weight: number;
  newWeight: number;
  valueMicros: number;
  cogsMicros: number;
}

/** First/last touchpoint of a conversion as the API shows it (time is the session start, epoch ms). */
export interface TouchSummary {
  campaign: string;
  channel: string;
  source: string;
  medium: string;
  time: number;
}

export interface ConversionView {
  goal: Goal;
  key: string;
  clientId: string;
  at: number;
  day: string;
  valueMicros: number;
  valueOrig: number | null;
  currencyOrig: string | null;
  cogsMicros: number;
  isNew: boolean;
  eventId: string | null;
  orderId: string | null;
  variantIds: string[];
  firstTouch: TouchSummary;
  lastTouch: TouchSummary;
  credits: Credit[];
}

export interface PersonView {
  personId: string;
  sessions: Session[];
  conversions: ConversionView[];
  /**
   * Conversions of `conversions` that the views already hold as they are (see `KeepStored`; none without it):
   * their rows are kept, not rewritten. Their credits are not computed, except for purchases, whose credits the
   * product analytics read.
   */
  unchanged: ReadonlySet<ConversionView>;
}

/** What a batch added to a person's stored facts. */
export interface AddedFacts {
  eventIds: ReadonlySet<string>;
  orderIds: ReadonlySet<string>;
}

/**
 * Conversions at or before `through` that `stored` says the views hold are the views' as they are: the batch
 * only extended the person's history after them (`unchangedThrough`).
 */
export interface KeepStored {
  through: number;
  stored: (goal: Goal, key: string) => boolean;
}

/** The touchpoint that stands in when a conversion has none (docs/product.md, Attribution). */
const DIRECT_DIMS: CreditDims = {
  channel: 'direct',
  source: DIRECT_SOURCE,
  medium: DIRECT_MEDIUM,
  campaign: DIRECT_CAMPAIGN,
  landingPage: '',
  platform: '',
  linkCode: '',
  campaignId: '',
  adSetId: '',
  adId: '',
};

/** A base URL for Shopify's relative `landing_site` values; only the path and query are used. */
const RELATIVE_BASE = 'https://store.invalid';

function absolutize(site: string): string {
  if (/^https?:\/\//i.test(site)) return site;
  if (site.startsWith('//')) return `https:${site}`;
  return `${RELATIVE_BASE}${site.startsWith('/') ? '' : '/'}${site}`;
}

interface ConversionDraft {
  goal: Goal;
  key: string;
  clientId: string;
  at: number;
  valueMicros: number;
  valueOrig: number | null;
  currencyOrig: string | null;
  lines: Line[];
  eventId: string | null;
  orderId: string | null;
  /** For purchases, what the event said about a first order. */
  isFirstOrder: boolean | null;
}

/** The earliest event of each key (time, then id): one conversion per key (docs/product.md, Conversions and goals). */
function firstPerKey(events: readonly EventFact[], keyOf: (e: EventFact) => string | null): Map<string, EventFact> {
  const first = new Map<string, EventFact>();
  for (const e of events) {
    const key = keyOf(e);
    if (key === null) continue;
    const cur = first.get(key);
    if (!cur || byTimeThenId(e, cur) < 0) first.set(key, e);
  }
  return first;
}

function draftFromEvent(goal: Goal, key: string, e: EventFact): ConversionDraft {
  return {
    goal,
    key,
    clientId: e.clientId,
    at: e.at,
    valueMicros: e.valueMicros ?? 0,
    valueOrig: e.valueOrig,
    currencyOrig: e.currencyOrig,
    lines: e.lines,
    eventId: e.eventId,
    orderId: e.orderId,
    isFirstOrder: e.isFirstOrder,
  };
}

/**
 * What `order_refunded` events took back from each order, in store micro-units: `'all'` once one refunds the
 * whole order. Applied to a purchase the events reported; a pushed order carries its own refunds.
 */
function refundsByOrder(events: readonly EventFact[]): Map<string, number | 'all'> {
  const refunded = new Map<string, number | 'all'>();
  for (const e of events) {
    if (e.name !== 'order_refunded' || e.orderId === null) continue;
    const held = refunded.get(e.orderId) ?? 0;
    if (held === 'all' || e.valueMicros === null) refunded.set(e.orderId, 'all');
    else refunded.set(e.orderId, held + e.valueMicros);
  }
  return refunded;
}

function draftConversions(events: readonly EventFact[], orders: readonly OrderFact[]): ConversionDraft[] {
  const drafts: ConversionDraft[] = [];
  for (const e of events) {
    if (e.name === 'product_added_to_cart') drafts.push(draftFromEvent('add_to_cart', e.eventId, e));
  }
  for (const [token, e] of firstPerKey(events, (e) => (e.name === 'checkout_started' ? e.checkoutToken : null))) {
    drafts.push(draftFromEvent('checkout_start', token, e));
  }
  for (const [token, e] of firstPerKey(events, (e) => (e.name === 'payment_info_submitted' ? e.checkoutToken : null))) {
    drafts.push(draftFromEvent('payment_info_submitted', token, e));
  }
  // Purchases: one per order id, from the checkout_completed event and/or the pushed order. The order,
  // when pushed, is authoritative for the value (refunds) and for cancellation.
  const completed = firstPerKey(events, (e) => (e.name === 'checkout_completed' ? e.orderId : null));
  const refunded = refundsByOrder(events);
  const orderById = new Map(orders.map((o) => [o.orderId, o]));
  const orderIds = new Set([...completed.keys(), ...orderById.keys()]);
  for (const orderId of orderIds) {
    const e = completed.get(orderId);
    const o = orderById.get(orderId);
    if (o?.cancelled) continue;
    if (e) {
      const d = draftFromEvent('purchase', orderId, e);
      if (o) {
        d.valueMicros = o.valueMicros;
        d.valueOrig = o.valueOrig;
        d.currencyOrig = o.currencyOrig;
        d.lines = o.lines;
      } else {
        const r = refunded.get(orderId);
        if (r !== undefined) d.valueMicros = r === 'all' ? 0 : Math.max(0, d.valueMicros - r);
      }
      drafts.push(d);
    } else if (o) {
      drafts.push({
        goal: 'purchase',
        key: orderId,
        clientId: orderClientId(orderId),
        at: o.createdAt,
        valueMicros: o.valueMicros,
        valueOrig: o.valueOrig,
        currencyOrig: o.currencyOrig,
        lines: o.lines,
        eventId: null,
        orderId,
        isFirstOrder: null,
      });
    }
  }
  return drafts;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One credit, its fields written out: a literal that spreads the dimensions and then adds fields costs
 * microseconds per object in V8, and a person's credits number touches x models x conversions
 * (docs/decisions.md, Shape of the code).
 */
function creditOf(dims: CreditDims, model: Model, c: TouchCredit, isNew: boolean): Credit {
  return {
    channel: dims.channel,
    source: dims.source,
    medium: dims.medium,
    campaign: dims.campaign,
    landingPage: dims.landingPage,
    platform: dims.platform,
    linkCode: dims.linkCode,
    campaignId: dims.campaignId,
    adSetId: dims.adSetId,
    adId: dims.adId,
    model,
    index: c.index,
    weight: c.weight,
    newWeight: isNew ? c.weight : 0,
    valueMicros: c.value * MICROS_PER_CENT,
    cogsMicros: c.cogs * MICROS_PER_CENT,
  };
}

/**
 * When the added facts only extend the person's history, the time through which none of its conversions can
 * have changed: the latest fact stored before them. Null when they may change an earlier conversion
 * (docs/decisions.md, Attribution, "A person extended"). That holds when no order was added, every added event
 * is later than every stored fact, on a page host its client already showed (the own hosts decide which
 * referrers are internal), and no added checkout_completed reports a stored order (it would take away the
 * order's fallback session). A conversion's credits read only the touchpoints up to its time, and sessions are
 * cut in time order, so later events leave earlier conversions as they were. The caller rules out what it knows
 * and this function cannot see: merged persons and changed unit costs.
 */
export function unchangedThrough(facts: PersonFacts, added: AddedFacts): number | null {
  let through = -Infinity;
  const storedOrders = new Set<string>();
  for (const o of facts.orders) {
    if (added.orderIds.has(o.orderId)) return null;
    storedOrders.add(o.orderId);
    if (o.createdAt > through) through = o.createdAt;
  }
  const newEvents: EventFact[] = [];
  for (const e of facts.events) {
    if (added.eventIds.has(e.eventId)) newEvents.push(e);
    else if (e.at > through) through = e.at;
  }
  if (through === -Infinity) return null;
  // The page hosts of the new events, by client; each must be among the client's own hosts already.
  const newHostsOf = new Map<string, Set<string>>();
  for (const e of newEvents) {
    if (e.at <= through) return null;
    // A refund changes the value of the purchase it names, whenever that was.
    if (e.name === 'order_refunded') return null;
    if (e.name === 'checkout_completed' && e.orderId !== null && storedOrders.has(e.orderId)) return null;
    const host = parseLandingUrl(e.pageUrl)?.host;
    if (!host) continue;
    const hosts = newHostsOf.get(e.clientId);
    if (hosts) hosts.add(host);
    else newHostsOf.set(e.clientId, new Set([host]));
  }
  for (const [clientId, hosts] of newHostsOf) {
    const stored = facts.events.filter((e) => e.clientId === clientId && !added.eventIds.has(e.eventId));
    const own = new Set(ownHostsOf(stored.map((e) => e.pageUrl)));
    for (const host of hosts) if (!own.has(host)) return null;
  }
  return through;
}

export function recomputePerson(facts: PersonFacts, rules: StoreRules, keep?: KeepStored): PersonView {
  // Sessions of each real client.
  const eventsByClient = new Map<string, EventFact[]>();
  for (const e of facts.events) {
    // Identity links and refunds are no visit: they neither start nor extend a session.
    if (!isVisitEvent(e.name)) continue;
    const list = eventsByClient.get(e.clientId);
    if (list) list.push(e);
    else eventsByClient.set(e.clientId, [e]);
  }
  const sessions: Session[] = [];
  for (const [clientId, events] of [...eventsByClient].sort((a, b) => cmpStr(a[0], b[0]))) {
    sessions.push(...sessionize(clientId, events, ownHostsOf(events.map((e) => e.pageUrl)), facts.resolveLink));
  }

  // Server-side fallback (docs/product.md, Identity): an order no checkout_completed event reported gets a session from
  // its landing_site / referring_site at its creation time.
  const reported = new Set(facts.events.filter((e) => e.name === 'checkout_completed').map((e) => e.orderId));
  const personHosts = ownHostsOf(facts.events.map((e) => e.pageUrl));
  for (const o of [...facts.orders].sort((a, b) => cmpStr(a.orderId, b.orderId))) {
    if (reported.has(o.orderId)) continue;
    sessions.push({
      clientId: orderClientId(o.orderId),
      startedAt: o.createdAt,
      landingEventId: orderClientId(o.orderId),
      touch: deriveTouchpoint({
        pageUrl: o.landingSite ? absolutize(o.landingSite) : '',
        referrer: o.referringSite,
        ownHosts: personHosts,
        resolveLink: facts.resolveLink,
      }),
    });
  }

  const touches = sessions.map((s) => ({
    start: s.startedAt,
    direct: s.touch.origin === 'direct',
    key: `${s.clientId}\u0000${s.startedAt}`,
    session: s,
  }));

  const drafts = draftConversions(facts.events, facts.orders);
  // New customer: no purchase before this one (in time, then key order), or before this conversion's time.
  let firstPurchase: ConversionDraft | undefined;
  for (const d of drafts) {
    if (d.goal !== 'purchase') continue;
    if (!firstPurchase || (d.at - firstPurchase.at || cmpStr(d.key, firstPurchase.key)) < 0) firstPurchase = d;
  }
  const unchanged = new Set<ConversionView>();
  const conversions = drafts.map((d): ConversionView => {
    const kept = keep !== undefined && d.at <= keep.through && keep.stored(d.goal, d.key);
    const isNew =
      d.goal === 'purchase'
        ? (d.isFirstOrder ?? d === firstPurchase)
        : firstPurchase === undefined || firstPurchase.at >= d.at;
    let cogsMicros = 0;
    for (const [variantId, qty] of d.lines) cogsMicros += (facts.variantCost(variantId) ?? 0) * qty;
    cogsMicros = capMicros(cogsMicros);

    const selection = selectTouches(touches, d.at, rules.lookbackDays);
    const dims: CreditDims[] = selection.syntheticDirect
      ? [DIRECT_DIMS]
      : selection.touches.map(({ session: { touch } }) => ({
          channel: touch.channel,
          source: touch.source,
          medium: touch.medium,
          campaign: touch.campaign,
          landingPage: touch.landingPage,
          platform: touch.platform,
          linkCode: touch.linkCode,
          campaignId: touch.campaignId,
          adSetId: touch.adSetId,
          adId: touch.adId,
        }));
    const times = selection.syntheticDirect ? [d.at] : selection.touches.map((t) => t.start);
    const dataDrivenWeights = rules.dataDrivenWeights?.[d.goal];
    const timing = {
      starts: times,
      halfLifeMs: rules.halfLifeDays * DAY_MS,
      channels: dims.map((x) => x.channel),
      dataDrivenWeights,
    };
    // Money is apportioned in whole cents (see toMicros), weights in millionths of a conversion.
    const amounts = {
      weight: WEIGHT_SCALE,
      value: Math.round(d.valueMicros / MICROS_PER_CENT),
      cogs: Math.round(cogsMicros / MICROS_PER_CENT),
    };
    const credits: Credit[] = [];
    if (!kept || d.goal === 'purchase') {
      for (const model of MODELS) {
        if (model === 'data_driven' && !dataDrivenWeights) continue;
        for (const c of creditTouches(model, dims.length, amounts, timing)) {
          credits.push(creditOf(dims[c.index]!, model, c, isNew));
        }
      }
    }
    const summary = (i: number): TouchSummary => ({
      campaign: dims[i]!.campaign,
      channel: dims[i]!.channel,
      source: dims[i]!.source,
      medium: dims[i]!.medium,
      time: times[i]!,
    });
    const view: ConversionView = {
      goal: d.goal,
      key: d.key,
      clientId: d.clientId,
      at: d.at,
      day: dayInZone(d.at, rules.timezone),
      valueMicros: d.valueMicros,
      valueOrig: d.valueOrig,
      currencyOrig: d.currencyOrig,
      cogsMicros,
      isNew,
      eventId: d.eventId,
      orderId: d.orderId,
      variantIds: [...new Set(d.lines.map(([v]) => v))].sort(),
      firstTouch: summary(0),
      lastTouch: summary(dims.length - 1),
      credits,
    };
    if (kept) unchanged.add(view);
    return view;
  });
  conversions.sort((a, b) => cmpStr(a.goal, b.goal) || cmpStr(a.key, b.key));
  return { personId: facts.personId, sessions, conversions, unchanged };
}

/** A stable text of everything a conversion contributes to the views: equal text, nothing to change. */
export function conversionSignature(c: ConversionView, personId: string): string {
  return JSON.stringify([personId, c]);
}
