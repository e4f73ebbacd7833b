/**
 * The made-up store history the daemon rehearses before it takes messages (docs/decisions.md, Operations, "The
 * daemon rehearses before it takes messages"). Its persons do what a store's shoppers do, so that the batch path
 * meets the shapes a real store's batches hold: visits from paid, social, email, organic and direct sources over
 * several days, products, collections and searches viewed, carts, checkouts abandoned at each step and completed,
 * orders with their later refund, newsletter sign-ups, and a second device joined by the email given at checkout.
 * Events are what a storefront sends (the API's validators turn them into what is published); deterministic: the
 * same options give the same history.
 */
import {
  CHECKOUT_EVENT_NAMES,
  type CartLine,
  type Checkout,
  type Context,
  type EventDataMap,
  type EventName,
  type EventOf,
  type Location,
  type MailAddress,
  type Money,
  type ProductVariant,
  type StorefrontEvent,
} from '../../../contracts/src/events';
import type { ShopOrder } from '../../../contracts/src/pushes';

export type RehearsalItem = { kind: 'event'; event: StorefrontEvent } | { kind: 'order'; order: ShopOrder };

export interface RehearsalHistoryOptions {
  /** Shoppers in the history (each sends 3 to 31 events, 16 on average with their orders). */
  persons: number;
  /** Epoch ms of the history's last day; it spans `days` days before. */
  end: number;
  days: number;
}

const SHOP = 'https://shop.example';
const DAY_MS = 86_400_000;
const usd = (amount: number): Money => ({ amount, currencyCode: 'USD' });

/** Where a visit comes from: its landing page's query and its referrer. */
const SOURCES: ReadonlyArray<{ query: string; referrer: string }> = [
  {
    query: 'utm_source=google&utm_medium=cpc&utm_campaign=brand_search&gclid=Cj0KCQiA',
    referrer: 'https://www.google.com/',
  },
  {
    query: 'utm_source=facebook&utm_medium=paid_social&utm_campaign=spring_sale&utm_content=carousel_a&fbclid=IwAR0abc',
    referrer: 'https://m.facebook.com/',
  },
  { query: 'utm_source=klaviyo&utm_medium=email&utm_campaign=weekly_newsletter', referrer: '' },
  { query: '', referrer: 'https://www.google.com/' },
  { query: '', referrer: '' },
  { query: 'utm_source=tiktok&utm_medium=paid_social&utm_campaign=creator_push&ttclid=E.C.P.abc', referrer: '' },
  { query: 'utm_source=instagram&utm_medium=social&utm_campaign=reel_summer', referrer: 'https://l.instagram.com/' },
  { query: '', referrer: 'https://blog.outdoorweekly.example/best-tees' },
];

const USER_AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
];

interface CatalogEntry {
  productId: string;
  variantId: string;
  title: string;
  variantTitle: string;
  handle: string;
  type: string;
  price: number;
}

/** Seven products, the first with two variants. */
const CATALOG: readonly CatalogEntry[] = (
  [
    [0, 'Organic Cotton Tee', 'White / M', 'organic-cotton-tee', 'T-Shirts', 25],
    [0, 'Organic Cotton Tee', 'Black / L', 'organic-cotton-tee', 'T-Shirts', 25],
    [1, 'Wool Socks', 'Grey', 'wool-socks', 'Socks', 8.5],
    [2, 'Trail Runner', '42', 'trail-runner', 'Shoes', 119],
    [3, 'Canvas Tote', 'Natural', 'canvas-tote', 'Bags', 32],
    [4, 'Rain Shell', 'Olive / M', 'rain-shell', 'Jackets', 149.95],
    [5, 'Merino Beanie', 'Navy', 'merino-beanie', 'Hats', 29],
    [6, 'Linen Shirt', 'Sand / S', 'linen-shirt', 'Shirts', 68],
  ] as const
).map(([product, title, variantTitle, handle, type, price], i) => ({
  productId: String(8_950_316_000_000 + product * 17),
  variantId: String(45_737_128_000_000 + i * 31),
  title,
  variantTitle,
  handle,
  type,
  price,
}));

/** The browser's `Location` of an absolute URL. */
function location(href: string): Location {
  const { hash, host, hostname, origin, pathname, port, protocol, search } = new URL(href);
  return { hash, host, hostname, href, origin, pathname, port, protocol, search };
}

function contextOf(href: string, referrer: string, title: string, device: number): Context {
  const mobile = device % USER_AGENTS.length !== 0;
  const [width, height] = mobile ? [412, 915] : [1440, 900];
  return {
    document: { characterSet: 'UTF-8', location: location(href), referrer, title },
    navigator: {
      cookieEnabled: true,
      language: 'en-US',
      languages: ['en-US', 'en'],
      userAgent: USER_AGENTS[device % USER_AGENTS.length],
    },
    window: {
      innerHeight: height - 100,
      innerWidth: width,
      outerHeight: height,
      outerWidth: width,
      pageXOffset: 0,
      pageYOffset: 0,
      scrollX: 0,
      scrollY: 0,
      screenX: 0,
      screenY: 0,
      screen: { height, width },
      location: location(href),
      origin: SHOP,
    },
  };
}

function variantOf(p: CatalogEntry): ProductVariant {
  return {
    id: p.variantId,
    image: { src: `//cdn.shopify.com/s/files/1/0000/0001/products/${p.handle}.jpg` },
    price: usd(p.price),
    product: {
      id: p.productId,
      title: p.title,
      untranslatedTitle: p.title,
      url: `/products/${p.handle}`,
      vendor: 'Shop Example',
      type: p.type,
    },
    sku: `${p.handle.toUpperCase()}-${p.variantId.slice(-3)}`,
    title: p.variantTitle,
    untranslatedTitle: p.variantTitle,
  };
}

const cents = (amount: number): number => Math.round(amount * 100) / 100;

const cartLineOf = (p: CatalogEntry, quantity: number): CartLine => ({
  cost: { totalAmount: usd(cents(p.price * quantity)) },
  merchandise: variantOf(p),
  quantity,
});

/** A cart's amounts: shipping from the step that chooses it (the shipping step, 3) on, tax at 8 %. */
function totalsOf(lines: readonly CartLine[], step: number) {
  const subtotal = cents(lines.reduce((s, l) => s + l.cost.totalAmount.amount, 0));
  const shipping = step >= 3 ? 5.95 : 0;
  const tax = cents(subtotal * 0.08);
  return { subtotal, shipping, tax, total: cents(subtotal + shipping + tax) };
}

function address(): MailAddress {
  return {
    address1: '1 Main Street',
    address2: null,
    city: 'Portland',
    country: 'United States',
    countryCode: 'US',
    firstName: 'Sam',
    lastName: 'Rivera',
    phone: null,
    province: 'Oregon',
    provinceCode: 'OR',
    zip: '97201',
  };
}

/** A checkout at a step: the contact, address and shipping it holds so far. */
function checkoutOf(
  token: string,
  lines: readonly CartLine[],
  step: number,
  email: string,
  orderId: string | null,
): Checkout {
  const { subtotal, shipping, tax, total } = totalsOf(lines, step);
  return {
    attributes: [],
    billingAddress: step >= 2 ? address() : null,
    buyerAcceptsEmailMarketing: step >= 1,
    buyerAcceptsSmsMarketing: false,
    currencyCode: 'USD',
    delivery:
      step >= 3
        ? {
            selectedDeliveryOptions: [
              {
                cost: usd(shipping),
                costAfterDiscounts: usd(shipping),
                description: null,
                handle: 'standard-shipping',
                title: 'Standard',
                type: 'shipping',
              },
            ],
          }
        : null,
    discountApplications: [],
    discountsAmount: usd(0),
    email: step >= 1 ? email : null,
    lineItems: lines.map((l) => ({
      discountAllocations: [],
      finalLinePrice: l.cost.totalAmount,
      id: l.merchandise.id,
      properties: [],
      quantity: l.quantity,
      sellingPlanAllocation: null,
      title: l.merchandise.product.title,
      variant: l.merchandise,
    })),
    localization: {
      country: { isoCode: 'US' },
      language: { isoCode: 'en' },
      market: { handle: 'us', id: 'gid://shopify/Market/1234567' },
    },
    order: orderId ? { id: orderId, customer: { id: null, isFirstOrder: true } } : null,
    phone: null,
    shippingAddress: step >= 2 ? address() : null,
    shippingLine: step >= 3 ? { price: usd(shipping) } : null,
    smsMarketingPhone: null,
    subtotalPrice: usd(subtotal),
    token,
    totalPrice: usd(total),
    totalTax: usd(tax),
    transactions:
      step >= 5
        ? [{ amount: usd(total), gateway: 'shopify_payments', paymentMethod: { name: 'Visa', type: 'creditCard' } }]
        : [],
  };
}

/** Builds one person's events and orders in time order. */
class Shopper {
  /** Each item with its time, for the history's order. */
  readonly items: Array<{ at: number; item: RehearsalItem }> = [];
  private seq = 0;

  constructor(
    private readonly n: number,
    readonly email: string,
  ) {}

  event<N extends EventName>(
    name: N,
    at: number,
    device: number,
    page: { href: string; referrer: string; title: string },
    data: EventDataMap[N],
  ): void {
    this.seq++;
    const event = {
      clientId: `rehearsal-${this.n}-${device}`,
      clientIp: `203.0.113.${(this.n + device) % 250}`,
      context: contextOf(page.href, page.referrer, page.title, this.n + device),
      id: `rehearsal-${this.n}-${this.seq}`,
      seq: this.seq,
      timestamp: new Date(at).toISOString(),
      type: 'standard',
      name,
      data,
    } as EventOf<N>;
    this.items.push({ at, item: { kind: 'event', event: event as StorefrontEvent } });
  }

  order(order: ShopOrder, at: number): void {
    this.items.push({ at, item: { kind: 'order', order } });
  }
}

/** One visit: a landing page from a source, a few pages, and as far into the funnel as `depth` says. */
function visit(s: Shopper, n: number, v: number, start: number, depth: number, device: number, end: number): void {
  const source = SOURCES[(n + v * 3) % SOURCES.length]!;
  const product = CATALOG[(n + v) % CATALOG.length]!;
  const other = CATALOG[(n * 7 + v + 3) % CATALOG.length]!;
  let at = start;
  const next = (): number => (at += 20_000 + ((n * 13 + v * 7 + s.items.length) % 9) * 15_000);
  const landing = `${SHOP}/${source.query ? `?${source.query}` : ''}`;
  s.event('page_viewed', at, device, { href: landing, referrer: source.referrer, title: 'Shop Example' }, {});
  let referrer = landing;
  const page = (path: string, title: string): { href: string; referrer: string; title: string } => {
    const p = { href: `${SHOP}${path}`, referrer, title };
    referrer = p.href;
    return p;
  };
  s.event('collection_viewed', next(), device, page('/collections/new-arrivals', 'New arrivals'), {
    collection: {
      id: '288230376151711',
      title: 'New arrivals',
      productVariants: [variantOf(product), variantOf(other)],
    },
  });
  s.event('product_viewed', next(), device, page(`/products/${product.handle}`, product.title), {
    productVariant: variantOf(product),
  });
  if ((n + v) % 3 === 0) {
    s.event('search_submitted', next(), device, page(`/search?q=${other.handle.split('-')[0]}`, 'Search'), {
      searchResult: { query: other.handle.split('-')[0]!, productVariants: [variantOf(other)] },
    });
    s.event('product_viewed', next(), device, page(`/products/${other.handle}`, other.title), {
      productVariant: variantOf(other),
    });
  }
  // A newsletter sign-up gives the email on the first device: a later checkout on another device joins them.
  if ((n % 7 === 3 || n % 5 === 0) && v === 0) {
    s.event('lead_form_submitted', next(), device, page('/pages/newsletter', 'Newsletter'), {
      lead: { email: s.email, phone: null, firstName: 'Sam', lastName: 'Rivera', formId: 'newsletter-footer' },
    });
  }
  if (depth < 1) return;
  const lines = [cartLineOf(product, 1 + (n % 2))];
  s.event('product_added_to_cart', next(), device, page(`/products/${product.handle}`, product.title), {
    cartLine: lines[0]!,
  });
  if ((n + v) % 4 === 1) {
    s.event('product_added_to_cart', next(), device, page(`/products/${other.handle}`, other.title), {
      cartLine: cartLineOf(other, 1),
    });
    s.event('product_removed_from_cart', next(), device, page('/cart', 'Your cart'), {
      cartLine: cartLineOf(other, 1),
    });
  }
  // The amounts once shipping is chosen: the cart shows the subtotal, an order all of them.
  const totals = totalsOf(lines, CHECKOUT_EVENT_NAMES.length - 1);
  s.event('cart_viewed', next(), device, page('/cart', 'Your cart'), {
    cart: {
      attributes: [],
      cost: { totalAmount: usd(totals.subtotal) },
      id: `cart-${n}-${v}`,
      lines,
      totalQuantity: lines.reduce((q, l) => q + l.quantity, 0),
    },
  });
  if (depth < 2) return;
  const token = `${(n * 1_000 + v).toString(16).padStart(8, '0')}a1b2c3d4e5f6a7b8c9d0e1f2`;
  const completed = depth >= 3;
  const orderId = completed ? String(5_512_300_000_000 + n * 10 + v) : null;
  const lastStep = completed ? CHECKOUT_EVENT_NAMES.length - 1 : 1 + ((n + v) % 3);
  for (let step = 0; step <= lastStep; step++) {
    const name = CHECKOUT_EVENT_NAMES[step]!;
    const path = name === 'checkout_completed' ? `/checkouts/cn/${token}/thank-you` : `/checkouts/cn/${token}`;
    const checkout = checkoutOf(token, lines, step, s.email, name === 'checkout_completed' ? orderId : null);
    s.event(name, next(), device, page(path, 'Checkout'), { checkout });
  }
  if (!orderId) return;
  const created = new Date(at).toISOString();
  const order: ShopOrder = {
    id: orderId,
    name: `#${1000 + n}`,
    email: s.email,
    created_at: created,
    updated_at: created,
    processed_at: created,
    cancelled_at: null,
    currency: 'USD',
    total_price: totals.total.toFixed(2),
    subtotal_price: totals.subtotal.toFixed(2),
    total_discounts: '0.00',
    total_tax: totals.tax.toFixed(2),
    financial_status: 'paid',
    landing_site: landing.slice(SHOP.length),
    referring_site: source.referrer || null,
    checkout_token: token,
    customer: { id: String(7_001_200_000_000 + n), email: s.email, first_name: 'Sam', last_name: 'Rivera' },
    line_items: lines.map((l, i) => ({
      id: String(13_000_000_000_000 + n * 100 + v * 10 + i),
      variant_id: l.merchandise.id,
      product_id: l.merchandise.product.id,
      title: l.merchandise.product.title,
      variant_title: l.merchandise.title ?? null,
      sku: l.merchandise.sku ?? null,
      vendor: 'Shop Example',
      quantity: l.quantity,
      price: l.merchandise.price.amount.toFixed(2),
    })),
    note_attributes: [{ name: 'attribution_client_id', value: `rehearsal-${n}-${device}` }],
  };
  s.order(order, at);
  if (n % 8 === 7) {
    // A return a week later (or at the history's end): the order's next version holds the refund.
    const refundedAt = Math.max(at + 1, Math.min(at + 7 * DAY_MS, end));
    const refunded = new Date(refundedAt).toISOString();
    s.order(
      {
        ...order,
        updated_at: refunded,
        financial_status: 'partially_refunded',
        refunds: [
          {
            id: String(9_100_000_000 + n),
            created_at: refunded,
            transactions: [
              { amount: lines[0]!.merchandise.price.amount.toFixed(2), kind: 'refund', status: 'success' },
            ],
          },
        ],
      },
      refundedAt,
    );
  }
}

/**
 * The history of `persons` shoppers over `days` days to `end`, in time order. Shopper n visits 1 to 4 times
 * on different days; a third of the visits that go further add to the cart, some of those check out, and every
 * second purchase is partly refunded. Every fifth shopper's last visit is on a second device, joined to the first
 * by the email of its checkout.
 */
export function rehearsalHistory(opts: RehearsalHistoryOptions): RehearsalItem[] {
  const start = opts.end - opts.days * DAY_MS;
  const all: Shopper['items'] = [];
  for (let n = 0; n < opts.persons; n++) {
    const s = new Shopper(n, `sam.rivera.${n}@example.com`);
    const visits = 1 + (n % 4);
    let day = (n * 11) % Math.max(1, opts.days - visits * 3);
    for (let v = 0; v < visits; v++) {
      const last = v === visits - 1;
      const depth = last ? n % 4 : (n + v) % 2;
      const device = last && n % 5 === 0 ? 1 : 0;
      visit(s, n, v, start + day * DAY_MS + ((n * 37 + v * 53) % 720) * 60_000, depth, device, opts.end);
      day += 1 + ((n + v) % 3);
    }
    all.push(...s.items);
  }
  return all.sort((a, b) => a.at - b.at).map((t) => t.item);
}
