/**
 * What one person adds to the analytics views (docs/product.md, Analytics), from its facts and its
 * recomputed sessions and conversions: sessions by day and touchpoint with their events and funnel step,
 * product activity by day, and purchase credits split by product. Like the credits of a conversion, these
 * contributions are stored per person so that a change (a late event, an identity merge) retracts exactly
 * what the person added before. The distinct-person rollups are derived from them by `WebUserSums`
 * (web-user-spans.ts) and `productUserSpans` (see docs/decisions.md, Analytics, for why spans).
 */
import { type EventName, isVisitEvent, STOREFRONT_EVENT_NAMES } from '../../../contracts/src/events';
import type { Model } from '../../../contracts/src/attribution';
import { dayInZone } from '../../../contracts/src/time';
import { apportion, type Fraction } from './apportion';
import type { EventFact, ProductLine } from './facts';
import { ORDER_CLIENT_PREFIX } from './facts';
import { capMicros, MICROS_PER_CENT } from './money';
import type { ConversionView, PersonFacts, PersonView } from './recompute-person';

/** The web report's dimensions, in the order of their bits in a dimension set (`dims`). */
export const WEB_DIMENSIONS = ['channel', 'source', 'medium', 'campaign', 'landing_page'] as const;
export type WebDimension = (typeof WEB_DIMENSIONS)[number];

/** Every set of 0 to 3 web dimensions as a bit mask: the groupings the web report answers (26). */
export const WEB_DIMENSION_SETS: readonly number[] = Array.from({ length: 32 }, (_, m) => m).filter(
  (m) => bitCount(m) <= 3,
);

function bitCount(m: number): number {
  let n = 0;
  for (let x = m; x; x >>= 1) n += x & 1;
  return n;
}

/** The bit mask of a set of web dimensions. */
export function dimensionMask(dims: readonly WebDimension[]): number {
  return dims.reduce((m, d) => m | (1 << WEB_DIMENSIONS.indexOf(d)), 0);
}

/** Funnel steps, in order; a session reaches a step when it holds the step's event or a later step's. */
export const FUNNEL_STEPS = ['visit', 'product_view', 'add_to_cart', 'checkout', 'payment_info', 'purchase'] as const;
export const FUNNEL_LEVELS = FUNNEL_STEPS.length;

const STEP_OF: Partial<Record<EventName, number>> = {
  product_viewed: 1,
  product_added_to_cart: 2,
  checkout_started: 3,
  checkout_contact_info_submitted: 3,
  checkout_address_info_submitted: 3,
  checkout_shipping_info_submitted: 3,
  payment_info_submitted: 4,
  checkout_completed: 5,
};

/** Counted by kind: the storefront kinds (a custom event counts as an event, in no kind's column). */
const KIND_INDEX = new Map<string, number>(STOREFRONT_EVENT_NAMES.map((n, i) => [n, i]));

/** The "no earlier day" of a span. */
export const NO_PREVIOUS_DAY = '-infinity';

/** The session dimensions of a web row (values, not masks). */
export type WebDims = Record<WebDimension, string>;

/** A person's sessions of one day with one touchpoint. */
export interface WebRow extends WebDims {
  day: string;
  sessions: number;
  events: number;
  engagedSessions: number;
  /** 1 on the row of the person's first session. */
  newUsers: number;
  /** Deepest funnel step reached (index into FUNNEL_STEPS). */
  level: number;
  /** Events by kind, in STOREFRONT_EVENT_NAMES order. */
  eventCounts: number[];
}

/** A person's activity on one product on one day. */
export interface ProductRow {
  day: string;
  productId: string;
  views: number;
  addToCart: number;
  checkouts: number;
  purchases: number;
  units: number;
  revenueMicros: number;
  cogsMicros: number;
  newCustomerPurchases: number;
}

/** A person's purchase credit of one product under one model to one touchpoint, on the purchase's day. */
export interface ProductCreditRow {
  day: string;
  model: Model;
  productId: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  landingPage: string;
  /** Millionths of a conversion. */
  weight: number;
  valueMicros: number;
  /** Millionths of a unit. */
  units: number;
}

export interface PersonAnalytics {
  web: WebRow[];
  products: ProductRow[];
  productCredits: ProductCreditRow[];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `items` in ascending order of `key`: the array itself when it already is (as a person's facts mostly are). */
function ascending<T>(items: T[], key: (t: T) => number): T[] {
  for (let i = 1; i < items.length; i++) {
    if (key(items[i - 1]!) > key(items[i]!)) return [...items].sort((a, b) => key(a) - key(b));
  }
  return items;
}

function webRows(facts: PersonFacts, view: PersonView, dayOf: (at: number) => string): WebRow[] {
  // Sessions of the tracked clients only: an order the store pushed without any tracked event has a session
  // for attribution, but no visit the tracker saw.
  const sessionsByClient = new Map<string, PersonView['sessions']>();
  for (const s of view.sessions) {
    if (s.clientId.startsWith(ORDER_CLIENT_PREFIX)) continue;
    const list = sessionsByClient.get(s.clientId);
    if (list) list.push(s);
    else sessionsByClient.set(s.clientId, [s]);
  }
  if (sessionsByClient.size === 0) return [];
  const eventsByClient = new Map<string, EventFact[]>();
  for (const e of facts.events) {
    if (!isVisitEvent(e.name)) continue;
    const list = eventsByClient.get(e.clientId);
    if (list) list.push(e);
    else eventsByClient.set(e.clientId, [e]);
  }

  const rows = new Map<string, WebRow>();
  const rowOfSession = (day: string, t: PersonView['sessions'][number]['touch']): WebRow => {
    const key = `${day}\u0000${t.channel}\u0000${t.source}\u0000${t.medium}\u0000${t.campaign}\u0000${t.landingPage}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        day,
        channel: t.channel,
        source: t.source,
        medium: t.medium,
        campaign: t.campaign,
        landing_page: t.landingPage,
        sessions: 0,
        events: 0,
        engagedSessions: 0,
        newUsers: 0,
        level: 0,
        eventCounts: new Array<number>(STOREFRONT_EVENT_NAMES.length).fill(0),
      };
      rows.set(key, row);
    }
    return row;
  };
  // The person's first session (earliest start, then client id) makes it a new user.
  let first: { startedAt: number; clientId: string; row: WebRow } | undefined;
  for (const [clientId, sessions] of sessionsByClient) {
    const ordered = ascending(sessions, (s) => s.startedAt);
    const rowOf = ordered.map((s) => {
      const row = rowOfSession(dayOf(s.startedAt), s.touch);
      row.sessions++;
      if (!first || s.startedAt < first.startedAt || (s.startedAt === first.startedAt && clientId < first.clientId))
        first = { startedAt: s.startedAt, clientId, row };
      return row;
    });
    // Each event belongs to the client's latest session started at or before it; a session is engaged with two
    // or more page views, or any other event.
    const pageViews = new Array<number>(ordered.length).fill(0);
    const otherEvents = new Array<number>(ordered.length).fill(0);
    let i = 0;
    for (const e of ascending(eventsByClient.get(clientId) ?? [], (x) => x.at)) {
      while (i + 1 < ordered.length && ordered[i + 1]!.startedAt <= e.at) i++;
      if (e.at < ordered[i]!.startedAt) continue;
      const row = rowOf[i]!;
      row.events++;
      if (e.name === 'page_viewed') pageViews[i]!++;
      else otherEvents[i]!++;
      row.level = Math.max(row.level, STEP_OF[e.name] ?? 0);
      const kind = KIND_INDEX.get(e.name);
      if (kind !== undefined) row.eventCounts[kind]!++;
    }
    for (let k = 0; k < ordered.length; k++) if (pageViews[k]! >= 2 || otherEvents[k]! > 0) rowOf[k]!.engagedSessions++;
  }
  first!.row.newUsers = 1;
  return [...rows.values()];
}

/** The product lines of a purchase: the pushed order's when there is one, else its completing event's. */
function purchaseItems(c: ConversionView, facts: PersonFacts): ProductLine[] {
  const order = c.orderId ? facts.orders.find((o) => o.orderId === c.orderId) : undefined;
  if (order) return order.items;
  const event = c.eventId ? facts.events.find((e) => e.eventId === c.eventId) : undefined;
  return event?.items ?? [];
}

interface ProductShare {
  productId: string;
  units: number;
  cogsMicros: number;
  /** Cents of the purchase value that go to this product. */
  valueCents: number;
}

/**
 * A purchase's products with their share of its value: the value (as the attribution counts it) split over
 * the products by their line amounts (by units when no line has an amount), in whole cents, exactly.
 */
export function productShares(
  valueMicros: number,
  items: readonly ProductLine[],
  variantCost: (variantId: string) => number | undefined,
): ProductShare[] {
  const byProduct = new Map<string, { units: number; amount: number; cogsMicros: number }>();
  for (const [productId, variantId, qty, amount] of items) {
    const p = byProduct.get(productId) ?? { units: 0, amount: 0, cogsMicros: 0 };
    p.units += qty;
    p.amount += amount;
    p.cogsMicros += (variantCost(variantId) ?? 0) * qty;
    byProduct.set(productId, p);
  }
  const products = [...byProduct].sort((a, b) => cmp(a[0], b[0]));
  if (products.length === 0) return [];
  const totalAmount = products.reduce((s, [, p]) => s + p.amount, 0);
  const totalUnits = products.reduce((s, [, p]) => s + p.units, 0);
  const weightOf = (p: { units: number; amount: number }): number =>
    totalAmount > 0 ? p.amount : totalUnits > 0 ? p.units : 1;
  const den = totalAmount > 0 ? totalAmount : totalUnits > 0 ? totalUnits : products.length;
  const fractions: Fraction[] = products.map(([, p]) => ({ num: weightOf(p), den }));
  const cents = apportion(Math.round(valueMicros / MICROS_PER_CENT), fractions);
  return products.map(([productId, p], i) => ({
    productId,
    units: p.units,
    cogsMicros: capMicros(p.cogsMicros),
    valueCents: cents[i]!,
  }));
}

function productRowsAndCredits(
  facts: PersonFacts,
  view: PersonView,
  dayOf: (at: number) => string,
): { products: ProductRow[]; productCredits: ProductCreditRow[] } {
  const rows = new Map<string, ProductRow>();
  const row = (day: string, productId: string): ProductRow => {
    const key = `${day}\u0000${productId}`;
    let r = rows.get(key);
    if (!r) {
      r = {
        day,
        productId,
        views: 0,
        addToCart: 0,
        checkouts: 0,
        purchases: 0,
        units: 0,
        revenueMicros: 0,
        cogsMicros: 0,
        newCustomerPurchases: 0,
      };
      rows.set(key, r);
    }
    return r;
  };
  for (const e of facts.events) {
    if (e.name === 'product_viewed') for (const [p] of e.items.slice(0, 1)) row(dayOf(e.at), p).views++;
    else if (e.name === 'product_added_to_cart') for (const [p] of e.items.slice(0, 1)) row(dayOf(e.at), p).addToCart++;
  }

  const credits = new Map<string, ProductCreditRow>();
  const eventById = new Map(facts.events.map((e) => [e.eventId, e]));
  for (const c of view.conversions) {
    if (c.goal === 'checkout_start') {
      const items = c.eventId ? (eventById.get(c.eventId)?.items ?? []) : [];
      for (const p of new Set(items.map(([productId]) => productId))) row(c.day, p).checkouts++;
      continue;
    }
    if (c.goal !== 'purchase') continue;
    const shares = productShares(c.valueMicros, purchaseItems(c, facts), facts.variantCost);
    for (const s of shares) {
      const r = row(c.day, s.productId);
      r.purchases++;
      r.units += s.units;
      r.revenueMicros += s.valueCents * MICROS_PER_CENT;
      r.cogsMicros += s.cogsMicros;
      if (c.isNew) r.newCustomerPurchases++;
    }
    // Each product of the purchase gets the purchase's credit weight, and its own value split over the
    // touchpoints by that weight (so a product's credits add up to its revenue under every model).
    const byModel = new Map<Model, ConversionView['credits']>();
    for (const cr of c.credits) {
      const list = byModel.get(cr.model);
      if (list) list.push(cr);
      else byModel.set(cr.model, [cr]);
    }
    for (const [model, touches] of byModel) {
      let total = 0;
      for (const t of touches) total += t.weight;
      const fractions = touches.map((t) => ({ num: t.weight, den: total }));
      for (const s of shares) {
        const values = apportion(s.valueCents, fractions);
        touches.forEach((t, i) => {
          const key = [c.day, model, s.productId, t.channel, t.source, t.medium, t.campaign, t.landingPage].join(
            '\u0000',
          );
          const cur = credits.get(key) ?? {
            day: c.day,
            model,
            productId: s.productId,
            channel: t.channel,
            source: t.source,
            medium: t.medium,
            campaign: t.campaign,
            landingPage: t.landingPage,
            weight: 0,
            valueMicros: 0,
            units: 0,
          };
          cur.weight += t.weight;
          cur.valueMicros += values[i]! * MICROS_PER_CENT;
          cur.units += s.units * t.weight;
          credits.set(key, cur);
        });
      }
    }
  }
  return { products: [...rows.values()], productCredits: [...credits.values()] };
}

/** Everything a person adds to the analytics views. */
export function analyticsOfPerson(facts: PersonFacts, view: PersonView, timezone: string): PersonAnalytics {
  const dayOf = (at: number): string => dayInZone(at, timezone);
  return { web: webRows(facts, view, dayOf), ...productRowsAndCredits(facts, view, dayOf) };
}

// ---------------------------------------------------------------------------------------------------------
// Spans: distinct persons over any range of days (the web report's are in web-user-spans.ts)
// ---------------------------------------------------------------------------------------------------------

/**
 * The span rows of a sequence of active days (ascending, distinct): each day with the previous one.
 * A person counted once per group over [s, e) is the one row with s <= day < e and previous < s.
 */
function spans(days: readonly string[], add: (day: string, prev: string) => void): void {
  let prev = NO_PREVIOUS_DAY;
  for (const d of days) {
    add(d, prev);
    prev = d;
  }
}

/** What a person's product spans depend on: the days it viewed or added each product. */
export function productSpanInput(rows: readonly ProductRow[]): string {
  return rows
    .filter((r) => r.views > 0 || r.addToCart > 0)
    .map((r) => [r.day, r.productId, r.views > 0 ? 1 : 0, r.addToCart > 0 ? 1 : 0].join('\u0000'))
    .sort()
    .join('\u0001');
}

/** Product "" in product_users: any product. */
export const ANY_PRODUCT = '';

export const productUserKey = (day: string, productId: string, prevDay: string): string =>
  [day, productId, prevDay].join('\u0000');

/** Per product, the days it was viewed [0] and added to a cart [1]. */
type ProductDays = Map<string, [Set<string>, Set<string>]>;

/** A module function rather than a closure per person, which tsx would wrap each time (facts.ts, setValue). */
function noteDay(days: ProductDays, productId: string, day: string, k: 0 | 1): void {
  let d = days.get(productId);
  if (!d) {
    d = [new Set(), new Set()];
    days.set(productId, d);
  }
  d[k].add(day);
}

/**
 * A person's product_users rows: per product (and for any product) the span rows of the days it viewed the
 * product, counted in [views, add-to-carts]; likewise the days it added it to a cart.
 */
export function productUserSpans(rows: readonly ProductRow[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const days: ProductDays = new Map();
  for (const r of rows) {
    for (const p of [r.productId, ANY_PRODUCT]) {
      if (r.views > 0) noteDay(days, p, r.day, 0);
      if (r.addToCart > 0) noteDay(days, p, r.day, 1);
    }
  }
  for (const [productId, perKind] of days) {
    perKind.forEach((set, k) =>
      spans([...set].sort(cmp), (day, prev) => {
        const key = productUserKey(day, productId, prev);
        const counts = out.get(key) ?? [0, 0];
        counts[k]!++;
        out.set(key, counts);
      }),
    );
  }
  return out;
}
