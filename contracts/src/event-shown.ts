/**
 * What the facts keep of a storefront event for what is shown of it: the order journey's page title, IP, user agent
 * and event-kind objects, the identity events' profile (names, phone, address), the ad platforms' buyer (IP, user
 * agent, `_fbp`), and a person's export. With these in `event_facts`, no read needs the raw payload, which a store
 * may keep for a while or not at all (docs/decisions.md, Storage, "Raw payloads off the hot path").
 * Pure: the pipeline derives it, the query API maps it.
 */
import type { CartLine, Checkout, EventDataMap, EventName, ProductVariant, StorefrontEvent } from './events';
import { checkoutLineTotal } from './line-items';
import type { CheckoutCompletedInfo, CheckoutInfo, EventItem, ProductItem } from './reports';

/** An event's kind and data, as the facts keep them (`event_facts.data`) for the kinds in `KINDS_WITH_DATA`. */
export type EventKindData = { [N in EventName]: { name: N; data: EventDataMap[N] } }[EventName];

/**
 * The kinds whose data the facts keep: those the journey shows an object for, the checkout steps and the lead
 * form (a profile's names, phone and address). A page view, custom event, identify call or refund shows none.
 */
export const KINDS_WITH_DATA: ReadonlySet<string> = new Set<EventName>([
  'product_viewed',
  'collection_viewed',
  'product_added_to_cart',
  'product_removed_from_cart',
  'cart_viewed',
  'search_submitted',
  'lead_form_submitted',
  'checkout_started',
  'checkout_contact_info_submitted',
  'checkout_address_info_submitted',
  'checkout_shipping_info_submitted',
  'payment_info_submitted',
  'checkout_completed',
]);

/** The columns of `event_facts` that hold what is shown of the event (empty strings stored as null). */
export interface EventShown {
  pageTitle: string;
  clientIp: string;
  userAgent: string;
  fbp: string;
  /** The event's `data` as JSON, for the kinds in `KINDS_WITH_DATA`; else null. */
  dataJson: string | null;
}

export function eventShownOf(e: StorefrontEvent): EventShown {
  return {
    pageTitle: e.context.document.title ?? '',
    clientIp: e.clientIp,
    userAgent: e.context.navigator?.userAgent ?? '',
    fbp: e.fbp ?? '',
    dataJson: KINDS_WITH_DATA.has(e.name) ? JSON.stringify(e.data) : null,
  };
}

function productItem(v: ProductVariant, quantity: number, linePrice?: number): ProductItem {
  return {
    product_id: v.product.id,
    variant_id: v.id,
    title: v.product.title,
    variant_title: v.title ?? '',
    sku: v.sku ?? '',
    price: linePrice ?? v.price.amount,
    currency: v.price.currencyCode,
    quantity,
    url: v.product.url ?? '',
    image_url: v.image?.src ?? '',
  };
}

const cartLineItem = (l: CartLine): ProductItem => productItem(l.merchandise, l.quantity, l.cost.totalAmount.amount);

function checkoutInfo(c: Checkout): CheckoutInfo {
  return {
    checkout_token: c.token,
    total_price: c.totalPrice.amount,
    subtotal_price: c.subtotalPrice?.amount ?? 0,
    currency: c.totalPrice.currencyCode,
    item_count: c.lineItems.reduce((n, li) => n + li.quantity, 0),
    email: c.email ?? '',
    discount_codes: (c.discountApplications ?? [])
      .filter((d) => d.type.toUpperCase() === 'DISCOUNT_CODE')
      .map((d) => d.title),
    items: c.lineItems.map((li) => productItem(li.variant, li.quantity, checkoutLineTotal(li).amount)),
  };
}

/** The journey's event-kind objects (spec "Event item"). */
export type KindObjects = Pick<
  EventItem,
  'products' | 'cart_viewed' | 'checkout_started' | 'checkout_completed' | 'payment_info_submitted' | 'search_submitted'
>;

/** The event-kind objects of an event item: the one matching its kind filled, the others null. */
export function kindObjectsOf(e: EventKindData | null): KindObjects {
  const none: KindObjects = {
    products: null,
    cart_viewed: null,
    checkout_started: null,
    checkout_completed: null,
    payment_info_submitted: null,
    search_submitted: null,
  };
  if (!e) return none;
  switch (e.name) {
    case 'product_viewed':
      return { ...none, products: { collection: '', items: [productItem(e.data.productVariant, 1)] } };
    case 'collection_viewed':
      return {
        ...none,
        products: {
          collection: e.data.collection.title,
          items: e.data.collection.productVariants.map((v) => productItem(v, 1)),
        },
      };
    case 'product_added_to_cart':
      return { ...none, products: { collection: '', items: [cartLineItem(e.data.cartLine)] } };
    case 'product_removed_from_cart':
      return {
        ...none,
        products: { collection: '', items: e.data.cartLine ? [cartLineItem(e.data.cartLine)] : [] },
      };
    case 'cart_viewed': {
      const cart = e.data.cart;
      return {
        ...none,
        cart_viewed: {
          cart_id: cart?.id ?? '',
          total_quantity: cart?.totalQuantity ?? 0,
          total_amount: cart?.cost.totalAmount.amount ?? 0,
          currency: cart?.cost.totalAmount.currencyCode ?? '',
          items: cart?.lines.map(cartLineItem) ?? [],
        },
      };
    }
    case 'checkout_started':
      return { ...none, checkout_started: checkoutInfo(e.data.checkout) };
    case 'payment_info_submitted':
      return { ...none, payment_info_submitted: checkoutInfo(e.data.checkout) };
    case 'checkout_completed': {
      const c = e.data.checkout;
      const completed: CheckoutCompletedInfo = {
        ...checkoutInfo(c),
        order_id: c.order.id,
        is_first_order: c.order.customer?.isFirstOrder ?? null,
      };
      return { ...none, checkout_completed: completed };
    }
    case 'search_submitted':
      return {
        ...none,
        search_submitted: {
          query: e.data.searchResult.query,
          result_count: e.data.searchResult.productVariants.length,
        },
      };
    // A custom event shows as its kind (`custom_event`); the spec's event item has no member for its name.
    case 'custom_event':
    case 'page_viewed':
    case 'lead_form_submitted':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'user_identified':
    case 'order_refunded':
      return none;
  }
}
