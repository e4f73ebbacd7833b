/**
 * The Segment-compatible source's mapping (docs/product.md, Segment-compatible source): one message of Segment's
 * HTTP Tracking API (as Segment, RudderStack and Jitsu send it) becomes the storefront event envelopes the
 * ingestion route takes, validated afterwards by the same validators as `POST /{version}/api/events`. Pure: the
 * receive time and the store's currency come in as options; ids are derived, never random, so that a retried
 * message gives the same events (and the stream and the facts drop the copy).
 *
 * - `anonymousId` is the client id (else `userId`); `messageId` the event id; `timestamp` (else
 *   `originalTimestamp`, `sentAt`, the receive time) the event time.
 * - `context.page` gives the page, `context.campaign` the UTM parameters the URL lacks, `context.ip` and
 *   `context.userAgent` the client. A message with no page (a server-side SDK) gets `NO_PAGE_URL`.
 * - A `userId` links the client to that customer id, once per (client, user): a `user_identified` event whose
 *   id is derived from the pair. `identify` links the email of its traits too, and an identify made on a page
 *   with an email gives the lead (`lead_form_submitted`) of that email, once per email (its id is derived
 *   from the email). `alias` links `previousId` to `userId`. `group` maps to nothing.
 * - `page` and `screen` are page views; the e-commerce spec v2 events map to their storefront kinds, `Order
 *   Refunded` to a refund, any other `track` to a `custom_event`.
 */
import { createHash } from 'node:crypto';
import type {
  CartLine,
  Checkout,
  CheckoutLineItem,
  CompletedCheckout,
  EventDataMap,
  EventEnvelopeBase,
  EventName,
  Money,
  ProductVariant,
} from '../../../contracts/src/events';
import type { FieldProblem } from '../../../contracts/src/ingest';

/** The page of a message that names none (server-side SDKs): a reserved host, so it is no store page. */
export const NO_PAGE_URL = 'https://server.invalid/';

/** The message types of the Tracking API; the single-message routes are named after them. */
export const SEGMENT_TYPES = ['track', 'page', 'screen', 'identify', 'alias', 'group'] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

/** The e-commerce spec v2 events with a storefront kind of their own. */
export const ECOMMERCE_KINDS = {
  'Product Viewed': 'product_viewed',
  'Product List Viewed': 'collection_viewed',
  'Products Searched': 'search_submitted',
  'Product Added': 'product_added_to_cart',
  'Product Removed': 'product_removed_from_cart',
  'Cart Viewed': 'cart_viewed',
  'Checkout Started': 'checkout_started',
  'Payment Info Entered': 'payment_info_submitted',
  'Order Completed': 'checkout_completed',
  'Order Refunded': 'order_refunded',
} as const satisfies Record<string, EventName>;

export interface MapOptions {
  /** When the message was received (ms since the epoch): its time when it carries none. */
  receivedAt: number;
  /** The store's currency: the currency of amounts sent without one. */
  storeCurrency: string;
  /** The route's type (`/v1/track` ...): the type of a message that names none (a batch's messages do). */
  type?: SegmentType;
}

/** An envelope before validation (the validator checks and normalizes it like any pushed event). */
export interface MappedEvent<N extends EventName = EventName> extends EventEnvelopeBase {
  name: N;
  data: EventDataMap[N];
}

export type MapResult = { ok: true; events: MappedEvent[] } | { ok: false; errors: FieldProblem[] };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const objAt = (o: Obj, key: string): Obj => (isObj(o[key]) ? o[key] : {});

/** A text member: strings as sent, numbers as their decimal text (ids are often numbers), else undefined. */
function text(o: Obj, key: string): string | undefined {
  const v = o[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A non-empty text member, trimmed. */
function id(o: Obj, key: string): string | undefined {
  const v = text(o, key)?.trim();
  return v ? v : undefined;
}

/** A number member: numbers, or numeric strings (`"19.99"`); undefined otherwise. */
function num(o: Obj, key: string): number | undefined {
  const v = o[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** Amounts to the micro-unit: `19.99 * 3` is 59.97, not 59.970000000000006. */
const round = (x: number): number => Math.round(x * 1e6) / 1e6;

const sha = (s: string): string => createHash('sha256').update(s).digest('base64url');

class Problems {
  readonly list: FieldProblem[] = [];
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }
}

/** ISO 8601, also with a one-digit month or day (`2015-2-02T...`, as in Segment's own batch example). */
function parseTime(s: string): number {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(T.*)$/.exec(s.trim());
  return Date.parse(m ? `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}${m[4]}` : s);
}

/** The event time: `timestamp`, else `originalTimestamp`, `sentAt`, the receive time; as ISO 8601 UTC. */
function timeOf(msg: Obj, receivedAt: number, problems: Problems): string {
  for (const key of ['timestamp', 'originalTimestamp', 'sentAt']) {
    const v = msg[key];
    if (v === undefined || v === null) continue;
    const ms = typeof v === 'string' ? parseTime(v) : NaN;
    if (Number.isNaN(ms)) {
      problems.add(key, 'must be an ISO 8601 date-time');
      return '';
    }
    return new Date(ms).toISOString();
  }
  return new Date(receivedAt).toISOString();
}

const UTM_OF_CAMPAIGN = [
  ['source', 'utm_source'],
  ['medium', 'utm_medium'],
  ['name', 'utm_campaign'],
  ['term', 'utm_term'],
  ['content', 'utm_content'],
] as const;

/** The page URL with `context.campaign`'s UTM parameters added when it carries none of its own. */
function withCampaign(url: string, campaign: Obj): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if ([...parsed.searchParams.keys()].some((k) => k.toLowerCase().startsWith('utm_'))) return url;
  let added = false;
  for (const [member, param] of UTM_OF_CAMPAIGN) {
    const v = id(campaign, member);
    if (v !== undefined) {
      parsed.searchParams.set(param, v);
      added = true;
    }
  }
  return added ? parsed.toString() : url;
}

/** The envelope members every event of the message shares (`id` and `name` are set per event). */
function baseOf(msg: Obj, type: SegmentType, clientId: string, at: string, messageId: string): EventEnvelopeBase {
  const context = objAt(msg, 'context');
  const page = objAt(context, 'page');
  // A page call carries its page in `properties` too (analytics.js sends both).
  const props = type === 'page' ? objAt(msg, 'properties') : {};
  let url = text(page, 'url') ?? text(props, 'url');
  if (!url && type === 'screen') url = `${NO_PAGE_URL}screen/${encodeURIComponent(text(msg, 'name') ?? '')}`;
  const href = withCampaign(url || NO_PAGE_URL, objAt(context, 'campaign'));
  const userAgent = text(context, 'userAgent');
  return {
    clientId,
    clientIp: text(context, 'ip') ?? '',
    context: {
      document: {
        location: { href },
        referrer: text(page, 'referrer') ?? text(props, 'referrer') ?? '',
        title: text(page, 'title') ?? text(props, 'title') ?? (type === 'screen' ? (text(msg, 'name') ?? '') : ''),
      },
      ...(userAgent !== undefined ? { navigator: { userAgent } } : {}),
    },
    id: messageId,
    seq: 0,
    timestamp: at,
    // Segment's own word for what the call was (`track`, `page`, ...); the product does not read it.
    type,
  };
}

// -------------------------------------------------------------------------------------------------------------
// E-commerce spec v2 properties -> storefront shapes
// -------------------------------------------------------------------------------------------------------------

interface Ctx {
  currency: string;
  problems: Problems;
}

function money(amount: number, currency: string): Money {
  return { amount: round(amount), currencyCode: currency };
}

/** The currency of a message's amounts: `properties.currency` upper-cased, else the store's. */
function currencyOf(props: Obj, storeCurrency: string): string {
  return (id(props, 'currency') ?? storeCurrency).toUpperCase();
}

/**
 * A v2 product (`product_id`, `sku`, `name`, `brand`, `category`, `variant`, `price`, `quantity`, `url`,
 * `image_url`) as a variant. Segment has no variant id: the SKU stands for it, else the product id.
 */
function variantOf(p: Obj, path: string, c: Ctx): ProductVariant {
  const productId = id(p, 'product_id') ?? id(p, 'id') ?? id(p, 'sku');
  if (productId === undefined) c.problems.add(`${path}.product_id`, 'is required (or sku)');
  const image = text(p, 'image_url');
  return {
    id: id(p, 'sku') ?? productId ?? '',
    image: image !== undefined ? { src: image } : null,
    price: money(num(p, 'price') ?? 0, c.currency),
    product: {
      id: productId ?? '',
      title: text(p, 'name') ?? '',
      url: text(p, 'url') ?? null,
      vendor: text(p, 'brand') ?? '',
      type: text(p, 'category') ?? null,
    },
    sku: id(p, 'sku') ?? null,
    title: text(p, 'variant') ?? null,
  };
}

const quantityOf = (p: Obj): number => {
  const q = num(p, 'quantity');
  return q !== undefined && Number.isInteger(q) && q >= 0 ? q : 1;
};

function cartLineOf(p: Obj, path: string, c: Ctx): CartLine {
  const merchandise = variantOf(p, path, c);
  const quantity = quantityOf(p);
  return { cost: { totalAmount: money(merchandise.price.amount * quantity, c.currency) }, merchandise, quantity };
}

const productsOf = (props: Obj): Obj[] => (Array.isArray(props['products']) ? props['products'].filter(isObj) : []);

function lineItemsOf(props: Obj, c: Ctx): CheckoutLineItem[] {
  return productsOf(props).map((p, i) => {
    const line = cartLineOf(p, `properties.products[${i}]`, c);
    return {
      finalLinePrice: line.cost.totalAmount,
      id: line.merchandise.id,
      quantity: line.quantity,
      title: line.merchandise.product.title,
      variant: line.merchandise,
    };
  });
}

/** The amount of an order-like event: `total`, else `revenue`, else `value`, else the sum of its products. */
function totalOf(props: Obj, lines: readonly CheckoutLineItem[]): number {
  return (
    num(props, 'total') ??
    num(props, 'revenue') ??
    num(props, 'value') ??
    lines.reduce((sum, li) => sum + (li.finalLinePrice?.amount ?? 0), 0)
  );
}

/** A checkout from Checkout Started, Payment Info Entered and Order Completed properties. */
function checkoutOf(props: Obj, msg: Obj, messageId: string, c: Ctx): Checkout {
  const lineItems = lineItemsOf(props, c);
  const total = totalOf(props, lineItems);
  const subtotal = num(props, 'subtotal');
  const shipping = num(props, 'shipping');
  const email = text(objAt(objAt(msg, 'context'), 'traits'), 'email') ?? text(props, 'email');
  const coupon = id(props, 'coupon');
  return {
    currencyCode: c.currency,
    discountApplications: coupon
      ? [
          {
            allocationMethod: 'ACROSS',
            targetSelection: 'ALL',
            targetType: 'LINE_ITEM',
            title: coupon,
            type: 'DISCOUNT_CODE',
            value: money(num(props, 'discount') ?? 0, c.currency),
          },
        ]
      : [],
    email: email ?? null,
    lineItems,
    shippingLine: shipping !== undefined ? { price: money(shipping, c.currency) } : null,
    subtotalPrice: subtotal !== undefined ? money(subtotal, c.currency) : null,
    // The checkout's key (its conversion key): the spec's checkout id, else the order or cart id, else the message.
    token: id(props, 'checkout_id') ?? id(props, 'order_id') ?? id(props, 'cart_id') ?? messageId,
    totalPrice: money(total, c.currency),
    totalTax: money(num(props, 'tax') ?? 0, c.currency),
  };
}

type Kind = (typeof ECOMMERCE_KINDS)[keyof typeof ECOMMERCE_KINDS];

/** The data of an e-commerce event. */
function ecommerceData(kind: Kind, msg: Obj, messageId: string, c: Ctx): EventDataMap[Kind] {
  const props = objAt(msg, 'properties');
  switch (kind) {
    case 'product_viewed':
      return { productVariant: variantOf(props, 'properties', c) };
    case 'collection_viewed':
      return {
        collection: {
          id: id(props, 'list_id') ?? '',
          title: text(props, 'category') ?? text(props, 'list_id') ?? '',
          productVariants: productsOf(props).map((p, i) => variantOf(p, `properties.products[${i}]`, c)),
        },
      };
    case 'search_submitted':
      return { searchResult: { query: text(props, 'query') ?? '', productVariants: [] } };
    case 'product_added_to_cart':
    case 'product_removed_from_cart':
      return { cartLine: cartLineOf(props, 'properties', c) };
    case 'cart_viewed': {
      const lines = productsOf(props).map((p, i) => cartLineOf(p, `properties.products[${i}]`, c));
      return {
        cart: {
          id: id(props, 'cart_id') ?? null,
          cost: {
            totalAmount: money(
              lines.reduce((s, l) => s + l.cost.totalAmount.amount, 0),
              c.currency,
            ),
          },
          lines,
          totalQuantity: lines.reduce((s, l) => s + l.quantity, 0),
        },
      };
    }
    case 'checkout_started':
    case 'payment_info_submitted':
      return { checkout: checkoutOf(props, msg, messageId, c) };
    case 'checkout_completed': {
      const orderId = id(props, 'order_id');
      if (orderId === undefined) c.problems.add('properties.order_id', 'is required on Order Completed');
      const userId = id(msg, 'userId');
      const checkout: CompletedCheckout = {
        ...checkoutOf(props, msg, messageId, c),
        order: { id: orderId ?? '', customer: userId !== undefined ? { id: userId } : null },
      };
      return { checkout };
    }
    case 'order_refunded': {
      const orderId = id(props, 'order_id');
      if (orderId === undefined) c.problems.add('properties.order_id', 'is required on Order Refunded');
      const lines = lineItemsOf(props, c);
      const given = num(props, 'total') ?? num(props, 'revenue') ?? num(props, 'value');
      // Without an amount or products, the whole order is refunded.
      const amount = given ?? (lines.length > 0 ? totalOf(props, lines) : undefined);
      return { orderId: orderId ?? '', amount: amount !== undefined ? money(amount, c.currency) : null };
    }
  }
}

// -------------------------------------------------------------------------------------------------------------
// Messages
// -------------------------------------------------------------------------------------------------------------

/** The identity link of a client and a customer id: one event per pair, whatever the message. */
function linkEvent(base: EventEnvelopeBase, customerId: string, email: string | null): MappedEvent<'user_identified'> {
  return {
    ...base,
    id: `seg-link:${sha(`${base.clientId}\u0000${customerId}\u0000${email ?? ''}`)}`,
    name: 'user_identified',
    data: { customerId, email },
  };
}

function identifyEvents(msg: Obj, base: EventEnvelopeBase, onPage: boolean): MappedEvent[] {
  const traits = { ...objAt(objAt(msg, 'context'), 'traits'), ...objAt(msg, 'traits') };
  const userId = id(msg, 'userId') ?? null;
  const email = id(traits, 'email')?.toLowerCase() ?? null;
  const events: MappedEvent[] = [];
  if (userId !== null || email !== null) {
    events.push({
      ...base,
      id: `seg-link:${sha(`${base.clientId}\u0000${userId ?? ''}\u0000${email ?? ''}`)}`,
      name: 'user_identified',
      data: { customerId: userId, email },
    });
  }
  // A form on a page gave the email: the store's lead, once per email.
  if (email !== null && onPage) {
    events.push({
      ...base,
      id: `seg-lead:${sha(email)}`,
      name: 'lead_form_submitted',
      data: {
        lead: {
          email,
          firstName: text(traits, 'firstName') ?? text(traits, 'first_name') ?? null,
          lastName: text(traits, 'lastName') ?? text(traits, 'last_name') ?? null,
          phone: text(traits, 'phone') ?? null,
          formId: 'segment-identify',
        },
      },
    });
  }
  return events;
}

/**
 * The events of one message, or what is wrong with it. `opts.type` is the route's type; a batch item names
 * its own in `type`.
 */
export function mapSegmentMessage(msg: unknown, opts: MapOptions): MapResult {
  if (!isObj(msg)) return { ok: false, errors: [{ field: 'message', message: 'must be a JSON object' }] };
  const problems = new Problems();
  // A message's own type decides over the route's: webhook destinations post every call to one URL.
  const typeGiven = text(msg, 'type') ?? opts.type;
  const type = SEGMENT_TYPES.find((t) => t === typeGiven);
  if (type === undefined) {
    problems.add('type', `must be one of ${SEGMENT_TYPES.join(', ')}`);
    return { ok: false, errors: problems.list };
  }
  const anonymousId = id(msg, 'anonymousId');
  const userId = id(msg, 'userId');
  const previousId = id(msg, 'previousId');
  const clientId = type === 'alias' ? previousId : (anonymousId ?? userId);
  if (clientId === undefined)
    problems.add(
      type === 'alias' ? 'previousId' : 'anonymousId',
      type === 'alias' ? 'is required' : 'or userId is required',
    );
  else if (clientId.length > 256)
    problems.add(
      type === 'alias' ? 'previousId' : anonymousId ? 'anonymousId' : 'userId',
      'must be at most 256 characters',
    );
  if (type === 'alias' && userId === undefined) problems.add('userId', 'is required on alias');
  const at = timeOf(msg, opts.receivedAt, problems);
  // A message without its id (SDKs always send one) is identified by its content, so that a retry is still one.
  const messageId = id(msg, 'messageId') ?? `seg-msg:${sha(JSON.stringify(msg))}`;
  if (messageId.length > 256) problems.add('messageId', 'must be at most 256 characters');
  const event = type === 'track' ? id(msg, 'event') : undefined;
  if (type === 'track' && event === undefined) problems.add('event', 'is required on track');
  if (problems.list.length > 0 || clientId === undefined) return { ok: false, errors: problems.list };

  const base = baseOf(msg, type, clientId, at, messageId);
  const onPage = base.context.document.location.href !== NO_PAGE_URL && type !== 'screen';
  const events: MappedEvent[] = [];
  const c: Ctx = { currency: currencyOf(objAt(msg, 'properties'), opts.storeCurrency), problems };
  switch (type) {
    case 'page':
    case 'screen':
      events.push({ ...base, name: 'page_viewed', data: {} });
      break;
    case 'identify':
      events.push(...identifyEvents(msg, base, onPage));
      break;
    case 'alias':
      events.push(linkEvent(base, userId!, null));
      break;
    case 'group':
      // Accounts of B2B analytics: nothing the product attributes.
      break;
    case 'track': {
      const kind = Object.hasOwn(ECOMMERCE_KINDS, event!)
        ? ECOMMERCE_KINDS[event as keyof typeof ECOMMERCE_KINDS]
        : null;
      if (kind === null) {
        events.push({ ...base, name: 'custom_event', data: { event: event!, properties: objAt(msg, 'properties') } });
      } else {
        events.push({ ...base, name: kind, data: ecommerceData(kind, msg, messageId, c) });
      }
      break;
    }
  }
  // Any message that names its user links its client to that customer id (identify did so above, with the email).
  if (userId !== undefined && type !== 'identify' && type !== 'alias') events.push(linkEvent(base, userId, null));
  if (problems.list.length > 0) return { ok: false, errors: problems.list };
  return { ok: true, events };
}
