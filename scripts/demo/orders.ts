/**
 * Orders: the order of a purchase session (payment, later refund or cancellation), its times and landing site,
 * its id and name in time order, and the versions of it the store pushes (server-side, so they come for
 * tracker-blocked devices too).
 */
import type { ShopOrder, ShopOrderLineItem } from '../../contracts/src/pushes';
import { CART_ATTRIBUTE } from '../../contracts/src/tracker';
import type { AdDef } from './campaigns';
import type { CartPlan } from './cart';
import type { PlannerContext } from './context';
import { DEMO_CURRENCY, decimal } from './format';
import { customerIdOf, type Person } from './persons';
import { Distribution, fmix32, type Rng, SALT } from './random';
import type { Session } from './sessions';
import { DAY, HOUR, isoSeconds, MINUTE, SECOND } from './time';

export interface OrderPlan {
  /** Assigned after planning, in time order. */
  id: string;
  name: string;
  n: number;
  person: Person;
  session: Session;
  customerId: string;
  isFirstOrder: boolean;
  email: string;
  cart: CartPlan;
  createdAt: number;
  landingSite: string;
  referringSite: string | null;
  gateway: { gateway: string; name: string; type: string };
  /** Until `settleOrder`, `refund.at` and `cancelledAt` are delays after the order's creation; then times. */
  refund: { at: number; cents: number; full: boolean } | null;
  cancelledAt: number | null;
  /** Ad credited by the platform (last paid click of the person in 7 days). */
  creditAd: { ad: AdDef; day: number } | null;
  /** False when the device blocks the tracker: no checkout_completed, only the pushed order. */
  hasEvent: boolean;
}

/** A version of an order to push, and when. */
export interface OrderVersion {
  at: number;
  order: ShopOrder;
}

const GATEWAYS = [
  { gateway: 'shopify_payments', name: 'Visa', type: 'creditCard', w: 45 },
  { gateway: 'shopify_payments', name: 'Mastercard', type: 'creditCard', w: 20 },
  { gateway: 'shopify_payments', name: 'Apple Pay', type: 'wallet', w: 18 },
  { gateway: 'paypal', name: 'PayPal', type: 'offsite', w: 12 },
  { gateway: 'shopify_payments', name: 'Shop Pay', type: 'wallet', w: 5 },
];
const GATEWAY_DIST = new Distribution(
  GATEWAYS,
  GATEWAYS.map((g) => g.w),
);

/**
 * The order of purchase session `s` (its cart); the person becomes a customer. About 1.2% of orders are cancelled
 * within 30 hours, about 7% refunded (fully or partly) within 12 days.
 */
export function planOrder(ctx: Pick<PlannerContext, 'keys'>, rng: Rng, s: Session): OrderPlan {
  const person = s.person;
  const isFirst = person.orders === 0;
  if (person.customerId === null) person.customerId = customerIdOf(ctx.keys, rng);
  const refundRoll = rng.next();
  const order: OrderPlan = {
    id: '',
    name: '',
    n: 0,
    person,
    session: s,
    customerId: person.customerId,
    isFirstOrder: isFirst,
    email: person.email,
    cart: s.cart!,
    createdAt: 0,
    landingSite: '',
    referringSite: null,
    gateway: GATEWAY_DIST.sample(rng),
    refund: null,
    cancelledAt: null,
    creditAd: null,
    hasEvent: !s.device.blocked,
  };
  if (refundRoll < 0.012) order.cancelledAt = rng.between(2 * HOUR, 30 * HOUR);
  else if (refundRoll < 0.082) {
    const cart = s.cart!;
    const full = cart.lines.length === 1 ? rng.chance(0.6) : rng.chance(0.3);
    const lineCents =
      cart.lines.length > 1 ? cart.gross[0]! - cart.alloc[0]! : Math.round(cart.total * rng.uniform(0.2, 0.5));
    order.refund = { at: rng.between(2 * DAY, 12 * DAY), cents: full ? cart.total : lineCents, full };
  }
  return order;
}

/**
 * Times an order once its session is built: created a few seconds before checkout_completed (`completedAt`), its
 * later version inside the window and strictly after the first one; the landing site is the device's first.
 */
export function settleOrder(
  o: OrderPlan,
  rng: Rng,
  completedAt: number,
  firstLanding: { site: string; referrer: string },
  endMs: number,
): void {
  o.createdAt = completedAt - rng.between(1500, 4000);
  o.landingSite = firstLanding.site;
  o.referringSite = firstLanding.referrer === '' ? null : firstLanding.referrer;
  if (o.cancelledAt !== null) o.cancelledAt = Math.min(o.createdAt + o.cancelledAt, endMs - MINUTE);
  if (o.refund) {
    o.refund.at = Math.min(o.createdAt + o.refund.at, endMs - MINUTE);
  }
  if (o.cancelledAt !== null) o.cancelledAt = Math.max(o.cancelledAt, o.createdAt + 10 * MINUTE);
  if (o.refund) o.refund.at = Math.max(o.refund.at, o.createdAt + 30 * MINUTE);
}

/** Sorts the orders by creation and gives them their ids and names (`#1001`, ...) in that order. */
export function numberOrders(orders: OrderPlan[], keys: readonly [number, number]): void {
  orders.sort((a, b) => a.createdAt - b.createdAt || a.session.idx - b.session.idx);
  const orderBase = 1_000_000_000_000 + (fmix32(keys[0] ^ keys[1] ^ SALT.order) % 8_000_000) * 1_000_000;
  for (const [n, o] of orders.entries()) {
    o.n = n;
    o.id = String(orderBase + n);
    o.name = `#${1001 + n}`;
  }
}

/** Every version of the (numbered) orders, in push order: time, then order number. */
export function orderPushes(ctx: Pick<PlannerContext, 'keys' | 'cat'>, orders: readonly OrderPlan[]): OrderVersion[] {
  const versions: OrderVersion[] = [];
  for (const o of orders) versions.push(...orderVersions(ctx, o));
  versions.sort((a, b) => a.at - b.at);
  return versions;
}

/** Members of Shopify's order that the service does not use but real pushes carry (kept by the validator). */
type DemoOrder = ShopOrder & {
  source_name?: string;
  discount_codes?: { code: string; amount: string; type: string }[];
  cancel_reason?: string | null;
};

/** The versions of an order the store pushes: the order just after checkout, then its cancellation or refund. */
function orderVersions(ctx: Pick<PlannerContext, 'keys' | 'cat'>, o: OrderPlan): { at: number; order: DemoOrder }[] {
  const cart = o.cart;
  const person = o.person;
  const lineItems: ShopOrderLineItem[] = cart.lines.map((l, i) => ({
    id: String(14_100_000_000_000 + o.n * 8 + i + (fmix32(ctx.keys[0] ^ 0x11) % 100_000) * 10_000_000),
    variant_id: l.variant.id,
    product_id: l.variant.product.id,
    title: l.variant.product.title,
    variant_title: l.variant.title,
    sku: l.variant.sku,
    vendor: ctx.cat.storeName,
    quantity: l.qty,
    price: decimal(l.variant.priceCents),
  }));
  const created = isoSeconds(o.createdAt);
  const first: DemoOrder = {
    id: o.id,
    name: o.name,
    email: o.email,
    created_at: created,
    updated_at: isoSeconds(o.createdAt + 5 * SECOND),
    processed_at: created,
    cancelled_at: null,
    currency: DEMO_CURRENCY,
    presentment_currency: DEMO_CURRENCY,
    total_price: decimal(cart.total),
    subtotal_price: decimal(cart.subtotal),
    total_discounts: decimal(cart.discount),
    total_tax: decimal(cart.tax),
    financial_status: 'paid',
    landing_site: o.landingSite,
    referring_site: o.referringSite,
    checkout_token: cart.token,
    // The tracker writes the visitor's clientId into the cart; a blocked device's cart has none.
    note_attributes: o.hasEvent ? [{ name: CART_ATTRIBUTE, value: o.session.device.clientId }] : [],
    customer: { id: o.customerId, email: o.email, first_name: person.first, last_name: person.last },
    line_items: lineItems,
    refunds: [],
    source_name: 'web',
    discount_codes: cart.discountCode
      ? [{ code: cart.discountCode, amount: decimal(cart.discount), type: 'percentage' }]
      : [],
  };
  // The first version is pushed just after checkout_completed (its updated_at).
  const out: { at: number; order: DemoOrder }[] = [{ at: o.createdAt + 5 * SECOND, order: first }];
  if (o.cancelledAt !== null) {
    out.push({
      at: o.cancelledAt,
      order: {
        ...first,
        updated_at: isoSeconds(o.cancelledAt),
        cancelled_at: isoSeconds(o.cancelledAt),
        financial_status: 'voided',
        cancel_reason: 'customer',
      },
    });
  } else if (o.refund) {
    const r = o.refund;
    out.push({
      at: r.at,
      order: {
        ...first,
        updated_at: isoSeconds(r.at),
        financial_status: r.full ? 'refunded' : 'partially_refunded',
        refunds: [
          {
            id: String(9_200_000_000_000 + o.n + (fmix32(ctx.keys[0] ^ 0x22) % 100_000) * 10_000_000),
            created_at: isoSeconds(r.at),
            transactions: [{ kind: 'refund', status: 'success', amount: decimal(r.cents) }],
          },
        ],
      },
    });
  }
  return out;
}
