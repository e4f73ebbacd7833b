/**
 * Small factories for the facts the sessionizer and the per-person recomputation read (test support only).
 * Every field has a neutral default; a test names only what it is about.
 */
import type { ShopOrder } from '../../contracts/src/pushes';
import type { EventFact, Line, OrderFact } from '../../pipeline/src/domain/facts';
import type { PersonFacts } from '../../pipeline/src/domain/recompute-person';
import type { TrackingLinkInfo } from '../../pipeline/src/domain/touchpoint-types';

export const STORE_URL = 'https://shop.example.com';
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** One unit of the store currency in micro-units (contracts MONEY_SCALE). */
export const UNIT = 1_000_000;

/** Epoch ms of an ISO 8601 instant. */
export const ms = (iso: string): number => {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) throw new Error(`bad instant ${iso}`);
  return t;
};

/** A store page URL; `query` without the leading `?`. */
export const page = (path = '/', query = ''): string => `${STORE_URL}${path}${query ? `?${query}` : ''}`;

export function makeEvent(fields: Partial<EventFact> & Pick<EventFact, 'eventId' | 'at'>): EventFact {
  return {
    clientId: 'c1',
    name: 'page_viewed',
    pageUrl: page('/'),
    referrer: '',
    email: null,
    customerId: null,
    orderId: null,
    checkoutToken: null,
    isFirstOrder: null,
    valueMicros: null,
    valueOrig: null,
    currencyOrig: null,
    lines: [],
    items: [],
    ...fields,
  };
}

export function pageView(eventId: string, at: number, pageUrl = page('/'), referrer = '', clientId = 'c1'): EventFact {
  return makeEvent({ eventId, at, pageUrl, referrer, clientId });
}

export interface CheckoutFields {
  valueMicros?: number;
  lines?: Line[];
  clientId?: string;
  email?: string | null;
  isFirstOrder?: boolean | null;
  pageUrl?: string;
}

/** A checkout event of `token` (value in micro-units, EUR like the store). */
export function checkoutEvent(
  name: 'checkout_started' | 'payment_info_submitted',
  eventId: string,
  at: number,
  token: string,
  fields: CheckoutFields = {},
): EventFact {
  const valueMicros = fields.valueMicros ?? 50 * UNIT;
  return makeEvent({
    eventId,
    at,
    name,
    clientId: fields.clientId ?? 'c1',
    pageUrl: fields.pageUrl ?? `${STORE_URL}/checkouts/${token}`,
    email: fields.email ?? null,
    checkoutToken: token,
    valueMicros,
    valueOrig: valueMicros / UNIT,
    currencyOrig: 'EUR',
    lines: fields.lines ?? [],
  });
}

export function checkoutCompleted(
  eventId: string,
  at: number,
  orderId: string,
  fields: CheckoutFields & { token?: string } = {},
): EventFact {
  const valueMicros = fields.valueMicros ?? 50 * UNIT;
  return makeEvent({
    eventId,
    at,
    name: 'checkout_completed',
    clientId: fields.clientId ?? 'c1',
    pageUrl: fields.pageUrl ?? `${STORE_URL}/checkouts/${fields.token ?? `tok-${orderId}`}/thank-you`,
    email: fields.email ?? null,
    orderId,
    checkoutToken: fields.token ?? `tok-${orderId}`,
    isFirstOrder: fields.isFirstOrder ?? null,
    valueMicros,
    valueOrig: valueMicros / UNIT,
    currencyOrig: 'EUR',
    lines: fields.lines ?? [],
  });
}

export function addToCart(
  eventId: string,
  at: number,
  valueMicros: number,
  lines: Line[] = [],
  fields: Partial<EventFact> = {},
): EventFact {
  return makeEvent({
    eventId,
    at,
    name: 'product_added_to_cart',
    valueMicros,
    valueOrig: valueMicros / UNIT,
    currencyOrig: 'EUR',
    lines,
    ...fields,
  });
}

export function makeOrder(fields: Partial<OrderFact> & Pick<OrderFact, 'orderId' | 'createdAt'>): OrderFact {
  return {
    cancelled: false,
    email: null,
    customerId: null,
    valueMicros: 50 * UNIT,
    refundedMicros: 0,
    valueOrig: 50,
    currencyOrig: 'EUR',
    landingSite: '',
    referringSite: '',
    checkoutToken: null,
    lines: [],
    items: [],
    ...fields,
  };
}

/** A Shopify Admin order push (the subset `toOrderFact` reads). */
export function makeShopOrder(fields: Partial<ShopOrder> & Pick<ShopOrder, 'id' | 'created_at'>): ShopOrder {
  return {
    updated_at: fields.created_at,
    currency: 'EUR',
    total_price: '50.00',
    line_items: [],
    ...fields,
  };
}

export interface PersonOptions {
  links?: ReadonlyMap<string, TrackingLinkInfo>;
  /** Unit cost of goods per variant, micro-units. */
  costs?: ReadonlyMap<string, number>;
  personId?: string;
}

/** The facts of one person: its clients are those of the events plus the pseudo-clients of the orders. */
export function personFacts(
  events: readonly EventFact[],
  orders: readonly OrderFact[] = [],
  options: PersonOptions = {},
): PersonFacts {
  const clientIds = [...new Set([...events.map((e) => e.clientId), ...orders.map((o) => `order:${o.orderId}`)])].sort();
  const links = options.links ?? new Map<string, TrackingLinkInfo>();
  const costs = options.costs ?? new Map<string, number>();
  return {
    personId: options.personId ?? 'p1',
    clientIds,
    events,
    orders,
    resolveLink: (code) => links.get(code),
    variantCost: (variantId) => costs.get(variantId),
  };
}
