/**
 * Realistic valid payloads for tests: `sampleEvent(name)` for each of the fourteen kinds (valid for
 * `validateEvent` with no warnings), sample store pushes, and `withField` / `withoutField` to derive invalid
 * ones. Deterministic: fixed ids and times (override them for uniqueness).
 */
import type {
  Cart,
  CartLine,
  Checkout,
  CheckoutLineItem,
  Collection,
  CompletedCheckout,
  Context,
  EventDataMap,
  EventEnvelopeBase,
  EventName,
  EventOf,
  Lead,
  Location,
  MailAddress,
  Money,
  ProductVariant,
  SearchResult,
} from '../../contracts/src/events';
import type { AdSpendRow, ShopCustomer, ShopCustomerAddress, ShopOrder, ShopProduct } from '../../contracts/src/pushes';

/** Default event time of the samples; validate samples with a `now` at or after it. */
export const SAMPLE_TIMESTAMP = '2025-01-12T04:30:54.751Z';
export const SAMPLE_CLIENT_ID = 'c0ffee00-0000-4000-8000-000000000001';
export const SAMPLE_CHECKOUT_TOKEN = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
export const SAMPLE_ORDER_ID = '5512345678901';
export const SAMPLE_EMAIL = 'jane.doe@example.com';
export const SAMPLE_SHOP_URL = 'https://shop.example';

const usd = (amount: number): Money => ({ amount, currencyCode: 'USD' });

/** `Location` of an absolute URL, as the browser reports it. */
export function sampleLocation(href: string): Location {
  const url = new URL(href);
  return {
    hash: url.hash,
    host: url.host,
    hostname: url.hostname,
    href: url.href,
    origin: url.origin,
    pathname: url.pathname,
    port: url.port,
    protocol: url.protocol,
    search: url.search,
  };
}

/** A full Shopify-like `Context` for a page (no shared sub-objects, so a sample can be edited in place). */
export function sampleContext(href: string, referrer = '', title = 'Shop Example'): Context {
  const location = sampleLocation(href);
  return {
    document: { characterSet: 'UTF-8', location, referrer, title },
    navigator: {
      cookieEnabled: true,
      language: 'en-US',
      languages: ['en-US', 'en'],
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    },
    window: {
      innerHeight: 900,
      innerWidth: 1440,
      outerHeight: 1000,
      outerWidth: 1440,
      pageXOffset: 0,
      pageYOffset: 0,
      scrollX: 0,
      scrollY: 0,
      screenX: 0,
      screenY: 0,
      screen: { height: 1117, width: 1728 },
      location: sampleLocation(href),
      origin: location.origin ?? SAMPLE_SHOP_URL,
    },
  };
}

export function sampleProductVariant(overrides: Partial<ProductVariant> = {}): ProductVariant {
  return {
    id: '45737128657113',
    image: { src: '//cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg' },
    price: usd(25),
    product: {
      id: '8950316581081',
      title: 'Organic Cotton Tee',
      untranslatedTitle: 'Organic Cotton Tee',
      url: '/products/organic-cotton-tee',
      vendor: 'Shop Example',
      type: 'T-Shirts',
    },
    sku: 'TEE-WHT-M',
    title: 'White / M',
    untranslatedTitle: 'White / M',
    ...overrides,
  };
}

/** A second product (wool socks), beside the default tee. */
export const socksVariant = (): ProductVariant =>
  sampleProductVariant({
    id: '45737128689881',
    image: { src: '//cdn.shopify.com/s/files/1/0000/0001/products/socks.jpg' },
    price: usd(8.5),
    product: {
      id: '8950316613849',
      title: 'Wool Socks',
      untranslatedTitle: 'Wool Socks',
      url: '/products/wool-socks',
      vendor: 'Shop Example',
      type: 'Socks',
    },
    sku: 'SOCK-GRY',
    title: 'Grey',
    untranslatedTitle: 'Grey',
  });

export function sampleCartLine(overrides: Partial<CartLine> = {}): CartLine {
  return { cost: { totalAmount: usd(50) }, merchandise: sampleProductVariant(), quantity: 2, ...overrides };
}

export function sampleCart(overrides: Partial<Cart> = {}): Cart {
  return {
    attributes: [],
    cost: { totalAmount: usd(58.5) },
    id: 'Z2NwLXVzLWVhc3QxOjAxSkhCNlc4',
    lines: [sampleCartLine(), { cost: { totalAmount: usd(8.5) }, merchandise: socksVariant(), quantity: 1 }],
    totalQuantity: 3,
    ...overrides,
  };
}

export function sampleCollection(overrides: Partial<Collection> = {}): Collection {
  return {
    id: '301234567890',
    title: 'Summer Essentials',
    productVariants: [sampleProductVariant(), socksVariant()],
    ...overrides,
  };
}

export function sampleSearchResult(overrides: Partial<SearchResult> = {}): SearchResult {
  return { query: 'cotton tee', productVariants: [sampleProductVariant()], ...overrides };
}

function sampleLineItems(): CheckoutLineItem[] {
  return [
    {
      discountAllocations: [],
      finalLinePrice: usd(50),
      id: '45737128657113',
      properties: [],
      quantity: 2,
      sellingPlanAllocation: null,
      title: 'Organic Cotton Tee',
      variant: sampleProductVariant(),
    },
    {
      discountAllocations: [],
      finalLinePrice: usd(8.5),
      id: '45737128689881',
      properties: [],
      quantity: 1,
      sellingPlanAllocation: null,
      title: 'Wool Socks',
      variant: socksVariant(),
    },
  ];
}

/** A checkout before completion (`order` null), totals consistent with its two lines. */
export function sampleCheckout(overrides: Partial<Checkout> = {}): Checkout {
  const address = (): MailAddress => ({
    address1: '1 Main Street',
    address2: null,
    city: 'Springfield',
    country: 'United States',
    countryCode: 'US',
    firstName: 'Jane',
    lastName: 'Doe',
    phone: null,
    province: 'Oregon',
    provinceCode: 'OR',
    zip: '97477',
  });
  return {
    attributes: [],
    billingAddress: address(),
    buyerAcceptsEmailMarketing: true,
    buyerAcceptsSmsMarketing: false,
    currencyCode: 'USD',
    delivery: {
      selectedDeliveryOptions: [
        {
          cost: usd(5),
          costAfterDiscounts: usd(5),
          description: null,
          handle: 'standard-shipping',
          title: 'Standard',
          type: 'shipping',
        },
      ],
    },
    discountApplications: [],
    discountsAmount: usd(0),
    email: SAMPLE_EMAIL,
    lineItems: sampleLineItems(),
    localization: {
      country: { isoCode: 'US' },
      language: { isoCode: 'en' },
      market: { handle: 'us', id: 'gid://shopify/Market/1234567' },
    },
    order: null,
    phone: null,
    shippingAddress: address(),
    shippingLine: { price: usd(5) },
    smsMarketingPhone: null,
    subtotalPrice: usd(58.5),
    token: SAMPLE_CHECKOUT_TOKEN,
    totalPrice: usd(68.18),
    totalTax: usd(4.68),
    transactions: [],
    ...overrides,
  };
}

/** A completed checkout: `order` carries the order id and the customer. */
export function sampleCompletedCheckout(overrides: Partial<CompletedCheckout> = {}): CompletedCheckout {
  return {
    ...sampleCheckout(),
    order: { id: SAMPLE_ORDER_ID, customer: { id: '7001234567890', isFirstOrder: true } },
    transactions: [
      { amount: usd(68.18), gateway: 'shopify_payments', paymentMethod: { name: 'Visa', type: 'creditCard' } },
    ],
    ...overrides,
  };
}

export function sampleLead(overrides: Partial<Lead> = {}): Lead {
  return {
    email: SAMPLE_EMAIL,
    phone: '+15415550100',
    firstName: 'Jane',
    lastName: 'Doe',
    formId: 'newsletter-footer',
    ...overrides,
  };
}

const checkoutUrl = `${SAMPLE_SHOP_URL}/checkouts/cn/${SAMPLE_CHECKOUT_TOKEN}`;

/** Data and page of each kind. */
const KIND_SAMPLES: { [N in EventName]: () => { data: EventDataMap[N]; href: string; referrer?: string } } = {
  page_viewed: () => ({
    data: {},
    href: `${SAMPLE_SHOP_URL}/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring_sale&fbclid=IwAR0abc`,
    referrer: 'https://l.facebook.com/',
  }),
  product_viewed: () => ({
    data: { productVariant: sampleProductVariant() },
    href: `${SAMPLE_SHOP_URL}/products/organic-cotton-tee?variant=45737128657113`,
  }),
  collection_viewed: () => ({
    data: { collection: sampleCollection() },
    href: `${SAMPLE_SHOP_URL}/collections/summer-essentials`,
  }),
  search_submitted: () => ({
    data: { searchResult: sampleSearchResult() },
    href: `${SAMPLE_SHOP_URL}/search?q=cotton+tee`,
  }),
  product_added_to_cart: () => ({
    data: { cartLine: sampleCartLine() },
    href: `${SAMPLE_SHOP_URL}/products/organic-cotton-tee`,
  }),
  product_removed_from_cart: () => ({
    data: { cartLine: { cost: { totalAmount: usd(8.5) }, merchandise: socksVariant(), quantity: 1 } },
    href: `${SAMPLE_SHOP_URL}/cart`,
  }),
  cart_viewed: () => ({ data: { cart: sampleCart() }, href: `${SAMPLE_SHOP_URL}/cart` }),
  lead_form_submitted: () => ({ data: { lead: sampleLead() }, href: `${SAMPLE_SHOP_URL}/pages/contact` }),
  checkout_started: () => ({ data: { checkout: sampleCheckout({ email: null }) }, href: checkoutUrl }),
  checkout_contact_info_submitted: () => ({ data: { checkout: sampleCheckout() }, href: checkoutUrl }),
  checkout_address_info_submitted: () => ({ data: { checkout: sampleCheckout() }, href: checkoutUrl }),
  checkout_shipping_info_submitted: () => ({ data: { checkout: sampleCheckout() }, href: checkoutUrl }),
  payment_info_submitted: () => ({ data: { checkout: sampleCheckout() }, href: checkoutUrl }),
  checkout_completed: () => ({ data: { checkout: sampleCompletedCheckout() }, href: `${checkoutUrl}/thank-you` }),
  custom_event: () => ({
    data: { event: 'Size Guide Opened', properties: { product_id: '8123456789012' } },
    href: `${SAMPLE_SHOP_URL}/products/organic-cotton-tee`,
  }),
  user_identified: () => ({
    data: { customerId: '7001234567890', email: SAMPLE_EMAIL },
    href: `${SAMPLE_SHOP_URL}/account`,
  }),
  order_refunded: () => ({
    data: { orderId: SAMPLE_ORDER_ID, amount: usd(10) },
    href: `${SAMPLE_SHOP_URL}/account`,
  }),
};

/** Overrides of `sampleEvent`: envelope members replace the sample's; `data` members replace the sample data's. */
export type SampleEventOverrides<N extends EventName> = Partial<EventEnvelopeBase> & {
  data?: Partial<EventDataMap[N]>;
};

/**
 * A realistic valid envelope of kind `name` (no warnings). `data` overrides are merged shallowly into the
 * sample data, e.g. `sampleEvent('checkout_started', { data: { checkout: sampleCheckout({ token: 't2' }) } })`.
 */
export function sampleEvent<N extends EventName>(name: N, overrides: SampleEventOverrides<N> = {}): EventOf<N> {
  const kind = KIND_SAMPLES[name]();
  const { data: dataOverrides, ...envelopeOverrides } = overrides;
  const data: EventDataMap[N] = { ...kind.data, ...dataOverrides };
  const base: EventEnvelopeBase = {
    clientId: SAMPLE_CLIENT_ID,
    clientIp: '203.0.113.7',
    context: sampleContext(kind.href, kind.referrer ?? `${SAMPLE_SHOP_URL}/`),
    id: `sh-${name.replaceAll('_', '-')}-0001`,
    seq: 1,
    timestamp: SAMPLE_TIMESTAMP,
    type: 'standard',
  };
  return { ...base, ...envelopeOverrides, name, data };
}

// ---------------------------------------------------------------------------------------------------------------
// Store pushes
// ---------------------------------------------------------------------------------------------------------------

/** An order matching `sampleEvent('checkout_completed')` (same id, token, totals). */
export function sampleOrder(overrides: Partial<ShopOrder> = {}): ShopOrder {
  return {
    id: SAMPLE_ORDER_ID,
    name: '#1001',
    email: SAMPLE_EMAIL,
    created_at: '2025-01-12T04:31:10Z',
    updated_at: '2025-01-12T04:31:12Z',
    processed_at: '2025-01-12T04:31:10Z',
    cancelled_at: null,
    currency: 'USD',
    presentment_currency: 'USD',
    total_price: '68.18',
    subtotal_price: '58.50',
    total_discounts: '0.00',
    total_tax: '4.68',
    financial_status: 'paid',
    landing_site: '/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring_sale&fbclid=IwAR0abc',
    referring_site: 'https://l.facebook.com/',
    checkout_token: SAMPLE_CHECKOUT_TOKEN,
    customer: { id: '7001234567890', email: SAMPLE_EMAIL, first_name: 'Jane', last_name: 'Doe' },
    line_items: [
      {
        id: '13712345678901',
        variant_id: '45737128657113',
        product_id: '8950316581081',
        title: 'Organic Cotton Tee',
        variant_title: 'White / M',
        sku: 'TEE-WHT-M',
        vendor: 'Shop Example',
        quantity: 2,
        price: '25.00',
      },
      {
        id: '13712345678902',
        variant_id: '45737128689881',
        product_id: '8950316613849',
        title: 'Wool Socks',
        variant_title: 'Grey',
        sku: 'SOCK-GRY',
        vendor: 'Shop Example',
        quantity: 1,
        price: '8.50',
      },
    ],
    refunds: [],
    ...overrides,
  };
}

export function sampleProduct(overrides: Partial<ShopProduct> = {}): ShopProduct {
  return {
    id: '8950316581081',
    title: 'Organic Cotton Tee',
    handle: 'organic-cotton-tee',
    body_html: '<p>Soft organic cotton.</p>',
    vendor: 'Shop Example',
    product_type: 'T-Shirts',
    tags: 'cotton, summer',
    created_at: '2024-11-02T10:00:00Z',
    updated_at: '2025-01-05T09:30:00Z',
    images: [{ src: 'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg' }],
    variants: [
      {
        id: '45737128657113',
        title: 'White / M',
        sku: 'TEE-WHT-M',
        price: '25.00',
        compare_at_price: null,
        grams: 180,
        cost: '9.40',
      },
    ],
    ...overrides,
  };
}

export function sampleCustomer(overrides: Partial<ShopCustomer> = {}): ShopCustomer {
  const address = (): ShopCustomerAddress => ({
    id: '9101234567890',
    customer_id: '7001234567890',
    first_name: 'Jane',
    last_name: 'Doe',
    company: null,
    address1: '1 Main Street',
    address2: null,
    city: 'Springfield',
    province: 'Oregon',
    country: 'United States',
    zip: '97477',
    phone: null,
    name: 'Jane Doe',
    province_code: 'OR',
    country_code: 'US',
    country_name: 'United States',
    default: true,
  });
  return {
    id: '7001234567890',
    email: SAMPLE_EMAIL,
    phone: null,
    first_name: 'Jane',
    last_name: 'Doe',
    state: 'enabled',
    created_at: '2025-01-12T04:31:10Z',
    updated_at: '2025-01-12T04:31:12Z',
    orders_count: 1,
    total_spent: '68.18',
    last_order_id: SAMPLE_ORDER_ID,
    last_order_name: '#1001',
    currency: 'USD',
    note: null,
    tags: '',
    tax_exempt: false,
    tax_exemptions: [],
    verified_email: true,
    multipass_identifier: null,
    email_marketing_consent: {
      state: 'subscribed',
      opt_in_level: 'single_opt_in',
      consent_updated_at: '2025-01-12T04:31:10Z',
    },
    sms_marketing_consent: null,
    addresses: [address()],
    default_address: address(),
    admin_graphql_api_id: 'gid://shopify/Customer/7001234567890',
    ...overrides,
  };
}

export function sampleAdSpendRow(overrides: Partial<AdSpendRow> = {}): AdSpendRow {
  return {
    date: '2025-01-12',
    platform: 'facebook',
    account_id: 'act_1234567890',
    campaign_id: '120210000000000001',
    campaign_name: 'Spring Sale',
    adset_id: '120210000000000101',
    adset_name: 'Lookalike 1%',
    ad_id: '120210000000001001',
    ad_name: 'Tee carousel',
    source: 'facebook',
    medium: 'paid_social',
    campaign: 'spring_sale',
    spend: 123.45,
    impressions: 10000,
    clicks: 250,
    conversion_value: 340.9,
    currency: 'USD',
    updated_at: '2025-01-13T02:00:00Z',
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Deriving invalid payloads
// ---------------------------------------------------------------------------------------------------------------

/** `data.checkout.lineItems[2].quantity` -> `['data', 'checkout', 'lineItems', 2, 'quantity']`. */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) out.push(Number(match[2]));
    else if (match[1] !== undefined) out.push(match[1]);
  }
  return out;
}

type Container = Record<string | number, unknown>;

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function edit(input: unknown, path: string, apply: (parent: Container, key: string | number) => void): unknown {
  const copy = structuredClone(input);
  const keys = parsePath(path);
  const last = keys.pop();
  let node: unknown = copy;
  for (const key of keys) {
    if (!isContainer(node)) throw new Error(`withField: ${path} does not exist`);
    node = node[key];
  }
  if (last === undefined || !isContainer(node)) throw new Error(`withField: ${path} does not exist`);
  apply(node, last);
  return copy;
}

/** A deep copy of `input` with the member at `path` (dotted, `[n]` for indexes) set to `value`. */
export function withField(input: unknown, path: string, value: unknown): unknown {
  return edit(input, path, (parent, key) => {
    parent[key] = value;
  });
}

/** A deep copy of `input` without the member at `path`. */
export function withoutField(input: unknown, path: string): unknown {
  return edit(input, path, (parent, key) => {
    delete parent[key];
  });
}
