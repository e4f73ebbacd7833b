/**
 * Stored facts derived from validated input (pure). Amounts are converted to the store currency here,
 * once, so that every later recomputation uses the same numbers (docs/product.md, Conversions and goals: both amounts are kept).
 */
import { ORDER_CLIENT_PREFIX, orderClientId } from '../../../contracts/src/identity';
import type { EventName, ProductVariant, StorefrontEvent } from '../../../contracts/src/events';
import { checkoutLineTotal } from '../../../contracts/src/line-items';
import type { AdSpendRow, ShopOrder, ShopProduct } from '../../../contracts/src/pushes';
import type { Channel } from '../../../contracts/src/channels';
import { classifyChannel } from './channel';
import { convertToStore, decimal, type RateOf, toMicros } from './money';

/** [variant id, quantity] */
export type Line = [string, number];

/**
 * A product line of an event or an order: [product id, variant id, quantity, line amount in cents of the
 * currency as sent]. The amount only weighs a line against the others of the same purchase (docs/product.md,
 * Analytics), so it is not converted.
 */
export type ProductLine = [string, string, number, number];

/** What an event says about a product, for product names and images (latest event wins). */
export interface ProductInfo {
  productId: string;
  title: string;
  vendor: string;
  productType: string;
  imageSrc: string;
}

/** What one event says of a product, and when (ms since the epoch). */
export interface ProductSighting extends ProductInfo {
  at: number;
}

/** Orders texts as PostgreSQL's "C" collation does: by UTF-8 bytes, which is by code point. */
function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Whether sighting `a` replaces `b` as a product's latest: the later event wins, and at the same instant the
 * greater texts do, so the winner never depends on the order the events arrive in (docs/decisions.md,
 * Analytics). The product_info upsert compares the stored row the same way.
 */
export function supersedes(a: ProductSighting, b: ProductSighting): boolean {
  if (a.at !== b.at) return a.at > b.at;
  const order =
    byCodePoint(a.title, b.title) ||
    byCodePoint(a.vendor, b.vendor) ||
    byCodePoint(a.productType, b.productType) ||
    byCodePoint(a.imageSrc, b.imageSrc);
  return order > 0;
}

export interface EventFact {
  eventId: string;
  clientId: string;
  name: EventName;
  /** Event time, epoch ms. */
  at: number;
  pageUrl: string;
  referrer: string;
  email: string | null;
  customerId: string | null;
  orderId: string | null;
  checkoutToken: string | null;
  isFirstOrder: boolean | null;
  valueMicros: number | null;
  valueOrig: number | null;
  currencyOrig: string | null;
  lines: Line[];
  /** Product lines: the viewed variant, the added cart line, the checkout's line items. */
  items: ProductLine[];
}

export interface OrderFact {
  orderId: string;
  createdAt: number;
  cancelled: boolean;
  email: string | null;
  customerId: string | null;
  /** Order total less successful refunds, in store micro-units (never below 0). */
  valueMicros: number;
  refundedMicros: number;
  valueOrig: number;
  currencyOrig: string;
  landingSite: string;
  referringSite: string;
  checkoutToken: string | null;
  lines: Line[];
  /** Product lines (line items that name a product). */
  items: ProductLine[];
}

export interface VariantCost {
  variantId: string;
  productId: string;
  costMicros: number;
}

export interface AdSpendFact {
  day: string;
  platform: string;
  accountId: string;
  campaignId: string;
  adsetId: string;
  adId: string;
  channel: Channel;
  source: string;
  medium: string;
  campaign: string;
  spendMicros: number;
  impressions: number;
  clicks: number;
  convValueMicros: number;
}

export interface Derived<T> {
  fact: T;
  /** Conversion rates that were missing (1:1 assumed). */
  missingRates: string[];
}

/** Emails are compared trimmed and lower-cased (docs/product.md, Identity). */
export function normalizeEmail(email: string | null | undefined): string | null {
  const e = email?.trim().toLowerCase();
  return e ? e : null;
}

/** Whole cents of an amount, for line weights (never negative). */
const cents = (amount: number): number => Math.max(0, Math.round(amount * 100));

function productLine(v: ProductVariant, quantity: number, amount: number): ProductLine {
  return [v.product.id, v.id, quantity, cents(amount)];
}

/** A product text as stored: trimmed, at most 500 characters. */
const trim = (s: string | null | undefined): string => (s ?? '').trim().slice(0, 500);

/** Product names and images an event carries (product views, cart lines, checkout lines). */
export function productInfoOfEvent(event: StorefrontEvent): ProductInfo[] {
  const variants: ProductVariant[] = [];
  switch (event.name) {
    case 'product_viewed':
      variants.push(event.data.productVariant);
      break;
    case 'product_added_to_cart':
      variants.push(event.data.cartLine.merchandise);
      break;
    case 'checkout_started':
    case 'checkout_completed':
      variants.push(...event.data.checkout.lineItems.map((li) => li.variant));
      break;
    // The other events repeat names these carry, or carry none.
    case 'page_viewed':
    case 'collection_viewed':
    case 'search_submitted':
    case 'cart_viewed':
    case 'product_removed_from_cart':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
    case 'lead_form_submitted':
    case 'custom_event':
    case 'user_identified':
    case 'order_refunded':
      break;
  }
  return variants.map((v) => ({
    productId: v.product.id,
    title: trim(v.product.title),
    vendor: trim(v.product.vendor),
    productType: trim(v.product.type),
    imageSrc: trim(v.image?.src),
  }));
}

/**
 * Sets an event fact's value from a money amount, noting a currency without a rate. The helpers of the per-event
 * and per-person paths are module functions, not closures made per call, which tsx would wrap each time
 * (docs/decisions.md, Shape of the code).
 */
function setValue(
  fact: EventFact,
  money: { amount: number; currencyCode: string },
  storeCurrency: string,
  rateOf: RateOf,
  missingRates: string[],
): void {
  const c = convertToStore(money.amount, money.currencyCode, storeCurrency, rateOf);
  if (c.rateMissing) missingRates.push(money.currencyCode);
  fact.valueMicros = c.micros;
  fact.valueOrig = money.amount;
  fact.currencyOrig = money.currencyCode;
}

export function toEventFact(event: StorefrontEvent, storeCurrency: string, rateOf: RateOf): Derived<EventFact> {
  const fact: EventFact = {
    eventId: event.id,
    clientId: event.clientId,
    name: event.name,
    at: Date.parse(event.timestamp),
    pageUrl: event.context.document.location.href,
    referrer: event.context.document.referrer ?? '',
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
  };
  const missingRates: string[] = [];

  switch (event.name) {
    case 'product_added_to_cart': {
      const line = event.data.cartLine;
      setValue(fact, line.cost.totalAmount, storeCurrency, rateOf, missingRates);
      fact.lines = [[line.merchandise.id, line.quantity]];
      fact.items = [productLine(line.merchandise, line.quantity, line.cost.totalAmount.amount)];
      break;
    }
    case 'lead_form_submitted':
      fact.email = normalizeEmail(event.data.lead.email);
      break;
    case 'user_identified':
      fact.email = normalizeEmail(event.data.email);
      fact.customerId = event.data.customerId;
      break;
    case 'order_refunded':
      // The order id joins the refund to the purchase's person; the value is what was refunded (null: all of it).
      fact.orderId = event.data.orderId;
      if (event.data.amount) setValue(fact, event.data.amount, storeCurrency, rateOf, missingRates);
      break;
    case 'checkout_started':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
    case 'checkout_completed': {
      const c = event.data.checkout;
      fact.email = normalizeEmail(c.email);
      fact.checkoutToken = c.token;
      fact.customerId = c.order?.customer?.id ?? null;
      fact.isFirstOrder = c.order?.customer?.isFirstOrder ?? null;
      fact.orderId = event.name === 'checkout_completed' ? event.data.checkout.order.id : null;
      setValue(fact, c.totalPrice, storeCurrency, rateOf, missingRates);
      fact.lines = c.lineItems.map((li): Line => [li.variant.id, li.quantity]);
      fact.items = c.lineItems.map((li) => productLine(li.variant, li.quantity, checkoutLineTotal(li).amount));
      break;
    }
    case 'product_viewed': {
      const v = event.data.productVariant;
      fact.items = [productLine(v, 1, v.price.amount)];
      break;
    }
    case 'page_viewed':
    case 'collection_viewed':
    case 'search_submitted':
    case 'product_removed_from_cart':
    case 'cart_viewed':
    case 'custom_event':
      break;
  }
  return { fact, missingRates };
}

export function toOrderFact(order: ShopOrder, storeCurrency: string, rateOf: RateOf): Derived<OrderFact> {
  const total = decimal(order.total_price);
  const refunded = (order.refunds ?? [])
    .flatMap((r) => r.transactions)
    .filter((t) => t.kind === 'refund' && t.status === 'success')
    .reduce((sum, t) => sum + decimal(t.amount), 0);
  const totalC = convertToStore(total, order.currency, storeCurrency, rateOf);
  const refundedC = convertToStore(refunded, order.currency, storeCurrency, rateOf);
  return {
    fact: {
      orderId: order.id,
      createdAt: Date.parse(order.created_at),
      // A test order is stored like any other and converts nothing, as a cancelled one.
      cancelled: Boolean(order.cancelled_at) || order.test === true,
      email: normalizeEmail(order.email ?? order.customer?.email),
      customerId: order.customer?.id ?? null,
      valueMicros: Math.max(0, totalC.micros - refundedC.micros),
      refundedMicros: refundedC.micros,
      valueOrig: total,
      currencyOrig: order.currency,
      landingSite: order.landing_site ?? '',
      referringSite: order.referring_site ?? '',
      checkoutToken: order.checkout_token ?? null,
      lines: order.line_items.filter((li) => li.variant_id).map((li): Line => [String(li.variant_id), li.quantity]),
      items: order.line_items
        .filter((li) => li.product_id)
        .map((li): ProductLine => [
          String(li.product_id),
          li.variant_id ? String(li.variant_id) : '',
          li.quantity,
          cents(decimal(li.price) * li.quantity),
        ]),
    },
    missingRates: totalC.rateMissing ? [order.currency] : [],
  };
}

/** Unit costs of goods of a product's variants (in the store currency, as Shopify keeps them). */
export function toVariantCosts(product: ShopProduct): VariantCost[] {
  return product.variants
    .filter((v) => v.cost !== undefined && v.cost !== null)
    .map((v) => ({ variantId: v.id, productId: product.id, costMicros: toMicros(decimal(v.cost)) }));
}

const lc = (s: string): string => s.trim().toLowerCase();

/** The key of an ad spend row within its store: one row per day, platform, account, campaign, ad set and ad. */
export function adSpendKey(
  f: Pick<AdSpendFact, 'day' | 'platform' | 'accountId' | 'campaignId' | 'adsetId' | 'adId'>,
): string {
  return [f.day, f.platform, f.accountId, f.campaignId, f.adsetId, f.adId].join('\u0000');
}

export function toAdSpendFact(row: AdSpendRow, storeCurrency: string, rateOf: RateOf): Derived<AdSpendFact> {
  const spend = convertToStore(row.spend, row.currency, storeCurrency, rateOf);
  const value = convertToStore(row.conversion_value, row.currency, storeCurrency, rateOf);
  const source = lc(row.source) || '(not set)';
  const medium = lc(row.medium) || '(not set)';
  const campaign = lc(row.campaign) || '(not set)';
  return {
    fact: {
      day: row.date,
      platform: lc(row.platform),
      accountId: row.account_id,
      campaignId: row.campaign_id,
      adsetId: row.adset_id,
      adId: row.ad_id,
      channel: classifyChannel({ source, medium, campaign }),
      source,
      medium,
      campaign,
      spendMicros: spend.micros,
      impressions: row.impressions,
      clicks: row.clicks,
      convValueMicros: value.micros,
    },
    missingRates: spend.rateMissing ? [row.currency] : [],
  };
}

/**
 * Identity keys a client carries from one event (docs/product.md, Identity): the normalized email and the customer id,
 * plus the order id and checkout token, which tie an order push and the checkout events of one purchase
 * to the same person (one conversion key never belongs to two persons).
 */
export function identityKeysOfEvent(fact: EventFact): string[] {
  const keys: string[] = [];
  if (fact.email) keys.push(`e:${fact.email}`);
  if (fact.customerId) keys.push(`c:${fact.customerId}`);
  if (fact.orderId) keys.push(`o:${fact.orderId}`);
  if (fact.checkoutToken) keys.push(`k:${fact.checkoutToken}`);
  return keys;
}

/** Orders pushed by the store are pseudo-clients, linked by their email, customer id and order id. */
export { ORDER_CLIENT_PREFIX, orderClientId };

export function identityKeysOfOrder(fact: OrderFact): string[] {
  const keys = [`o:${fact.orderId}`];
  if (fact.email) keys.push(`e:${fact.email}`);
  if (fact.customerId) keys.push(`c:${fact.customerId}`);
  if (fact.checkoutToken) keys.push(`k:${fact.checkoutToken}`);
  return keys;
}

/**
 * The identity key an order shares with the browser client it names: both the order's pseudo-client and
 * that client get a link with it, once, when the order is processed (see docs/decisions.md, Identity).
 */
export const handoffKey = (browserClientId: string): string => `b:${browserClientId}`;
