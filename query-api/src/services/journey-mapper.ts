/**
 * Maps a stored event and its session to the order journey's event item (spec "Event item", docs/product.md, API conventions):
 * a session's landing event gets the touch type (`ad`, `email`, `social_media`, `organic_search`,
 * `referral`, `direct`) with the matching object filled; every other event gets its kind name and the kind
 * object that matches it. Pure: the caller supplies the rows and the store's time zone.
 */
import type { CartLine, Checkout, ProductVariant, StorefrontEvent } from '../../../contracts/src/events';
import type {
  AdInfo,
  CheckoutCompletedInfo,
  CheckoutInfo,
  EventItem,
  ProductItem,
} from '../../../contracts/src/reports';
import { checkoutLineTotal } from '../../../contracts/src/line-items';
import { localDateTime } from '../../../contracts/src/time';

/** The session an event belongs to, as stored by the pipeline. */
export interface JourneySession {
  startedAt: number;
  landingEventId: string;
  origin: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  platform: string;
  content: string;
  term: string;
  linkCode: string;
  /** Referrer of the landing event. */
  referrer: string;
}

export interface JourneyEvent {
  eventId: string;
  name: string;
  at: number;
  pageUrl: string;
  referrer: string;
  /** The raw event, when retention has not pruned it. */
  raw: StorefrontEvent | null;
}

export interface JourneyLookups {
  timezone: string;
  /** Ad account/campaign/ad set/ad of a paid touch, from the store's ad spend rows. */
  adOf: (platform: string, campaign: string) => Omit<AdInfo, 'ad_platform' | 'keyword'> | undefined;
  /** Creator and short link of a tracking-link code. */
  linkOf: (code: string) => { creator: string; tracking_link: string } | undefined;
}

const PAID_CHANNELS = new Set([
  'paid_search',
  'paid_social',
  'paid_shopping',
  'paid_video',
  'paid_other',
  'display',
  'cross_network',
]);

/** The touch type of a session's landing event (docs/product.md, API conventions). */
export function touchType(
  s: JourneySession,
): 'ad' | 'email' | 'social_media' | 'organic_search' | 'referral' | 'direct' {
  if (PAID_CHANNELS.has(s.channel)) return 'ad';
  if (s.channel === 'email') return 'email';
  if (s.channel === 'organic_social') return 'social_media';
  if (s.channel === 'organic_search') return 'organic_search';
  if (s.channel === 'direct') return 'direct';
  return 'referral';
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

type KindObjects = Pick<
  EventItem,
  'products' | 'cart_viewed' | 'checkout_started' | 'checkout_completed' | 'payment_info_submitted' | 'search_submitted'
>;

function kindObjects(raw: StorefrontEvent | null): KindObjects {
  const none: KindObjects = {
    products: null,
    cart_viewed: null,
    checkout_started: null,
    checkout_completed: null,
    payment_info_submitted: null,
    search_submitted: null,
  };
  if (!raw) return none;
  switch (raw.name) {
    case 'product_viewed':
      return { ...none, products: { collection: '', items: [productItem(raw.data.productVariant, 1)] } };
    case 'collection_viewed':
      return {
        ...none,
        products: {
          collection: raw.data.collection.title,
          items: raw.data.collection.productVariants.map((v) => productItem(v, 1)),
        },
      };
    case 'product_added_to_cart':
      return { ...none, products: { collection: '', items: [cartLineItem(raw.data.cartLine)] } };
    case 'product_removed_from_cart':
      return {
        ...none,
        products: { collection: '', items: raw.data.cartLine ? [cartLineItem(raw.data.cartLine)] : [] },
      };
    case 'cart_viewed': {
      const cart = raw.data.cart;
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
      return { ...none, checkout_started: checkoutInfo(raw.data.checkout) };
    case 'payment_info_submitted':
      return { ...none, payment_info_submitted: checkoutInfo(raw.data.checkout) };
    case 'checkout_completed': {
      const c = raw.data.checkout;
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
          query: raw.data.searchResult.query,
          result_count: raw.data.searchResult.productVariants.length,
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

export function toEventItem(e: JourneyEvent, session: JourneySession | null, look: JourneyLookups): EventItem {
  const landing = session !== null && session.landingEventId === e.eventId;
  const type = landing ? touchType(session) : e.name;
  const item: EventItem = {
    event_id: e.eventId,
    event_at: localDateTime(e.at, look.timezone),
    event_page_url: e.pageUrl,
    event_page_title: e.raw?.context.document.title ?? '',
    event_page_referrer: e.referrer,
    event_page_ip: e.raw?.clientIp ?? '',
    event_page_user_agent: e.raw?.context.navigator?.userAgent ?? '',
    event_campaign: session?.campaign ?? '',
    event_source: session?.source ?? '',
    event_medium: session?.medium ?? '',
    event_type: type,
    creator: null,
    ad: null,
    email: null,
    social_media: null,
    organic_search: null,
    ...kindObjects(e.raw),
  };
  if (!landing || !session) return item;
  if (session.linkCode) {
    const link = look.linkOf(session.linkCode);
    if (link && link.creator)
      item.creator = { creator: link.creator, code: session.linkCode, tracking_link: link.tracking_link };
  }
  switch (type) {
    case 'ad': {
      const known = look.adOf(session.platform, session.campaign);
      item.ad = {
        account_id: known?.account_id ?? '',
        account_name: known?.account_name ?? '',
        campaign_id: known?.campaign_id ?? '',
        campaign_name: known?.campaign_name ?? session.campaign,
        set_id: known?.set_id ?? '',
        set_name: known?.set_name ?? '',
        ad_id: known?.ad_id ?? '',
        ad_name: known?.ad_name ?? session.content,
        ad_platform: session.platform,
        keyword: session.term,
      };
      break;
    }
    case 'email':
      item.email = { source: session.source, campaign: session.campaign, content: session.content, term: session.term };
      break;
    case 'social_media':
      item.social_media = { network: session.source, referrer: session.referrer, campaign: session.campaign };
      break;
    case 'organic_search':
      item.organic_search = { engine: session.source, referrer: session.referrer, keyword: session.term };
      break;
    default:
      break;
  }
  return item;
}
