import fs from 'node:fs';
import path from 'node:path';
import { validateEvent } from '../../../contracts/src/validation';
import { ECOMMERCE_KINDS, mapSegmentMessage, NO_PAGE_URL, type MappedEvent, type MapOptions } from './map-message';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'segment');
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

const RECEIVED = Date.parse('2025-03-01T12:00:00.000Z');
const opts = (extra: Partial<MapOptions> = {}): MapOptions => ({
  receivedAt: RECEIVED,
  storeCurrency: 'EUR',
  ...extra,
});

function mapped(msg: unknown, extra: Partial<MapOptions> = {}): MappedEvent[] {
  const r = mapSegmentMessage(msg, opts(extra));
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.errors)}`);
  // Every event the mapper gives passes the validators of POST /{version}/api/events.
  for (const e of r.events) {
    const v = validateEvent(e, { now: new Date(RECEIVED) });
    if (!v.ok) throw new Error(`${e.name} invalid: ${JSON.stringify(v.errors)}`);
  }
  return r.events;
}

const errorsOf = (msg: unknown, extra: Partial<MapOptions> = {}) => {
  const r = mapSegmentMessage(msg, opts(extra));
  return r.ok ? [] : r.errors;
};

const browser = {
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
  page: {
    url: 'https://shop.example/products/tee',
    referrer: 'https://www.google.com/',
    title: 'Tee',
    path: '/products/tee',
  },
};

describe('page', () => {
  it('is a page view at the page of its context, with the campaign added as UTM parameters', () => {
    const [e, ...rest] = mapped({
      type: 'page',
      anonymousId: 'anon-1',
      messageId: 'm-1',
      timestamp: '2025-03-01T10:00:00+01:00',
      context: { ...browser, campaign: { source: 'Newsletter', medium: 'email', name: 'spring', content: 'hero' } },
    });
    expect(rest).toEqual([]);
    expect(e).toEqual({
      clientId: 'anon-1',
      clientIp: '203.0.113.7',
      context: {
        document: {
          location: {
            href: 'https://shop.example/products/tee?utm_source=Newsletter&utm_medium=email&utm_campaign=spring&utm_content=hero',
          },
          referrer: 'https://www.google.com/',
          title: 'Tee',
        },
        navigator: { userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
      },
      id: 'm-1',
      seq: 0,
      // +01:00 normalized to UTC.
      timestamp: '2025-03-01T09:00:00.000Z',
      type: 'page',
      name: 'page_viewed',
      data: {},
    });
  });

  it("keeps the URL's own UTM parameters rather than the campaign's", () => {
    const [e] = mapped({
      type: 'page',
      anonymousId: 'a',
      messageId: 'm',
      context: { page: { url: 'https://shop.example/?utm_source=fb&utm_medium=cpc' }, campaign: { source: 'other' } },
    });
    expect(e!.context.document.location.href).toBe('https://shop.example/?utm_source=fb&utm_medium=cpc');
  });

  it('falls back to properties.url (the spec example), then to the no-page URL; the time to sentAt, then receipt', () => {
    const page = fixture('page.json');
    const [e] = mapped(page);
    expect(e).toMatchObject({
      clientId: '507f191e810c19729de860ea',
      clientIp: '8.8.8.8',
      id: '022bb90c-bbac-11e4-8dfc-aa07a5b093db',
      timestamp: '2015-02-23T22:28:55.111Z',
      context: { document: { location: { href: 'http://www.example.com' }, title: 'Welcome | Initech' } },
    });
    const [server] = mapped({ type: 'page', userId: 'u-9', messageId: 'm2', sentAt: '2025-03-01T11:59:00.000Z' });
    expect(server).toMatchObject({
      clientId: 'u-9',
      timestamp: '2025-03-01T11:59:00.000Z',
      context: { document: { location: { href: NO_PAGE_URL } } },
    });
    const [bare] = mapped({ type: 'page', anonymousId: 'a', messageId: 'm3' });
    expect(bare!.timestamp).toBe('2025-03-01T12:00:00.000Z');
  });

  it("takes the route's type for a message that names none, and the message's own over the route's", () => {
    expect(mapped({ anonymousId: 'a', messageId: 'm' }, { type: 'page' }).map((e) => e.name)).toEqual(['page_viewed']);
    expect(mapped({ type: 'page', anonymousId: 'a', messageId: 'm' }, { type: 'track' }).map((e) => e.name)).toEqual([
      'page_viewed',
    ]);
    expect(errorsOf({ anonymousId: 'a' })).toEqual([
      { field: 'type', message: 'must be one of track, page, screen, identify, alias, group' },
    ]);
  });

  it('maps a screen to a page view named after the screen', () => {
    const [e] = mapped({ type: 'screen', anonymousId: 'a', messageId: 'm', name: 'Home Feed' });
    expect(e).toMatchObject({
      name: 'page_viewed',
      context: { document: { location: { href: `${NO_PAGE_URL}screen/Home%20Feed` }, title: 'Home Feed' } },
    });
  });
});

describe('e-commerce spec v2', () => {
  const track = (event: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    mapped({
      type: 'track',
      event,
      anonymousId: 'anon-1',
      messageId: `m-${event}`,
      context: browser,
      properties,
      ...extra,
    });

  it('Product Added: the line at price x quantity, the SKU as variant id, amounts without float noise', () => {
    const [e] = track('Product Added', {
      product_id: 'p-1',
      sku: 'SKU-1',
      name: 'Tee',
      brand: 'Acme',
      category: 'Shirts',
      variant: 'Blue',
      price: 19.99,
      quantity: 3,
      currency: 'usd',
    });
    expect(e!.name).toBe('product_added_to_cart');
    expect(e!.data).toEqual({
      cartLine: {
        cost: { totalAmount: { amount: 59.97, currencyCode: 'USD' } },
        merchandise: {
          id: 'SKU-1',
          image: null,
          price: { amount: 19.99, currencyCode: 'USD' },
          product: { id: 'p-1', title: 'Tee', url: null, vendor: 'Acme', type: 'Shirts' },
          sku: 'SKU-1',
          title: 'Blue',
        },
        quantity: 3,
      },
    });
  });

  it("Order Completed: the order id, total (else revenue) in the message's currency, the products and the user", () => {
    const events = track(
      'Order Completed',
      {
        order_id: 'o-77',
        checkout_id: 'ck-1',
        revenue: 40,
        total: 45.5,
        tax: 3.5,
        shipping: 2,
        currency: 'GBP',
        products: [
          { product_id: 'p-1', price: 10, quantity: 2 },
          { product_id: 'p-2', sku: 'S2', price: 21.5 },
        ],
      },
      { userId: 'cust-5' },
    );
    expect(events.map((e) => e.name)).toEqual(['checkout_completed', 'user_identified']);
    const completed = events[0] as MappedEvent<'checkout_completed'>;
    expect(completed.data.checkout).toMatchObject({
      currencyCode: 'GBP',
      token: 'ck-1',
      totalPrice: { amount: 45.5, currencyCode: 'GBP' },
      totalTax: { amount: 3.5, currencyCode: 'GBP' },
      shippingLine: { price: { amount: 2, currencyCode: 'GBP' } },
      order: { id: 'o-77', customer: { id: 'cust-5' } },
    });
    expect(
      completed.data.checkout.lineItems.map((li) => [li.variant.id, li.quantity, li.finalLinePrice!.amount]),
    ).toEqual([
      ['p-1', 2, 20],
      ['S2', 1, 21.5],
    ]);
    // Without total, revenue; without either, value; then the sum of the lines.
    const [byRevenue] = track('Order Completed', { order_id: 'o-1', revenue: 12 });
    expect((byRevenue as MappedEvent<'checkout_completed'>).data.checkout.totalPrice).toEqual({
      amount: 12,
      currencyCode: 'EUR',
    });
  });

  it('Order Completed without an order id is refused, naming the property', () => {
    expect(errorsOf({ type: 'track', event: 'Order Completed', anonymousId: 'a', properties: { total: 5 } })).toEqual([
      { field: 'properties.order_id', message: 'is required on Order Completed' },
    ]);
  });

  it('Order Refunded: the amount refunded, or the whole order without one', () => {
    const [part] = track('Order Refunded', { order_id: 'o-1', total: 7.25, currency: 'USD' });
    expect(part).toMatchObject({
      name: 'order_refunded',
      data: { orderId: 'o-1', amount: { amount: 7.25, currencyCode: 'USD' } },
    });
    const [all] = track('Order Refunded', { order_id: 'o-1' });
    expect(all!.data).toEqual({ orderId: 'o-1', amount: null });
  });

  it('Checkout Started and Payment Info Entered share the checkout key', () => {
    const [started] = track('Checkout Started', {
      checkout_id: 'ck-9',
      value: 30,
      products: [{ product_id: 'p', price: 30 }],
    });
    const [payment] = track('Payment Info Entered', { checkout_id: 'ck-9' });
    expect(started!.name).toBe('checkout_started');
    expect(payment!.name).toBe('payment_info_submitted');
    expect((started as MappedEvent<'checkout_started'>).data.checkout.token).toBe('ck-9');
    expect((payment as MappedEvent<'payment_info_submitted'>).data.checkout.token).toBe('ck-9');
    expect((started as MappedEvent<'checkout_started'>).data.checkout.totalPrice.amount).toBe(30);
  });

  it.each(Object.entries(ECOMMERCE_KINDS))("maps the spec's own %s example to %s", (event, kind) => {
    const properties = fixture('ecommerce-v2.json')[event] as Record<string, unknown>;
    const events = track(event, properties);
    expect(events.map((e) => e.name)).toEqual([kind]);
  });

  it("takes the spec example's Order Completed total of 27.50 USD and its two products", () => {
    const properties = fixture('ecommerce-v2.json')['Order Completed'] as Record<string, unknown>;
    const [e] = track('Order Completed', properties) as [MappedEvent<'checkout_completed'>];
    expect(e.data.checkout.totalPrice).toEqual({ amount: 27.5, currencyCode: 'USD' });
    expect(e.data.checkout.order.id).toBe('50314b8e9bcf000000000000');
    expect(e.data.checkout.lineItems.map((li) => [li.variant.product.id, li.quantity])).toEqual([
      ['507f1f77bcf86cd799439011', 1],
      ['505bd76785ebb509fc183733', 2],
    ]);
    expect(e.data.checkout.discountApplications).toEqual([
      expect.objectContaining({ title: 'hasbros', type: 'DISCOUNT_CODE' }),
    ]);
  });

  it('keeps any other track as a custom event, with the user linked (the spec track example)', () => {
    const events = mapped(fixture('track.json'));
    expect(events.map((e) => [e.name, e.clientId, e.id])).toEqual([
      ['custom_event', '23adfd82-aa0f-45a7-a756-24f2a7a4c895', 'ajs-f8ca1e4de5024d9430b3928bd8ac6b96'],
      ['user_identified', '23adfd82-aa0f-45a7-a756-24f2a7a4c895', expect.stringMatching(/^seg-link:/)],
    ]);
    expect(events[0]!.data).toEqual({ event: 'Course Clicked', properties: { title: 'Intro to Analytics' } });
    expect(events[1]!.data).toEqual({ customerId: 'AiUGstSDIg', email: null });
  });
});

describe('identity', () => {
  it('identify on a page links the user id and email and gives the lead of the email, once per email', () => {
    const msg = {
      type: 'identify',
      anonymousId: 'anon-1',
      userId: 'u-1',
      messageId: 'm-1',
      context: browser,
      traits: { email: ' Jane@Example.com ', firstName: 'Jane', last_name: 'Doe' },
    };
    const events = mapped(msg);
    expect(events.map((e) => [e.name, e.data])).toEqual([
      ['user_identified', { customerId: 'u-1', email: 'jane@example.com' }],
      [
        'lead_form_submitted',
        {
          lead: {
            email: 'jane@example.com',
            firstName: 'Jane',
            lastName: 'Doe',
            phone: null,
            formId: 'segment-identify',
          },
        },
      ],
    ]);
    // Another identify of the same email, from another device: the same lead id (stored once), another link id.
    const again = mapped({ ...msg, anonymousId: 'anon-2', messageId: 'm-2' });
    expect(again[1]!.id).toBe(events[1]!.id);
    expect(again[0]!.id).not.toBe(events[0]!.id);
  });

  it('a server-side identify (no page) links without a lead; one without user or email maps to nothing', () => {
    expect(mapped(fixture('identify.json')).map((e) => [e.name, e.data])).toEqual([
      ['user_identified', { customerId: '97980cfea0067', email: 'peter@example.com' }],
    ]);
    expect(mapped({ type: 'identify', anonymousId: 'a', messageId: 'm', traits: { plan: 'pro' } })).toEqual([]);
  });

  it('alias links previousId to userId; group maps to nothing but the link of its user', () => {
    expect(mapped(fixture('alias.json')).map((e) => [e.name, e.clientId, e.data])).toEqual([
      ['user_identified', '39239-239239-239239-23923', { customerId: '507f191e81', email: null }],
    ]);
    expect(errorsOf({ type: 'alias', userId: 'u' })).toEqual([{ field: 'previousId', message: 'is required' }]);
    expect(mapped(fixture('group.json')).map((e) => [e.name, e.data])).toEqual([
      ['user_identified', { customerId: '97980cfea0067', email: null }],
    ]);
    expect(mapped({ type: 'group', anonymousId: 'a', messageId: 'm', groupId: 'g' })).toEqual([]);
  });

  it('links a client to a user once: the link id depends on the pair only', () => {
    const a = mapped({ type: 'track', event: 'X', anonymousId: 'c', userId: 'u', messageId: 'm1' });
    const b = mapped({ type: 'track', event: 'Y', anonymousId: 'c', userId: 'u', messageId: 'm2' });
    expect(a[1]!.id).toBe(b[1]!.id);
  });
});

describe('the batch example of the HTTP API', () => {
  it('maps every message, its non-ISO "2015-2-02" timestamps included', () => {
    const batch = fixture('batch.json')['batch'] as unknown[];
    const names = batch.map((m) => mapped(m).map((e) => `${e.name}@${e.timestamp}`));
    expect(names).toEqual([
      ['user_identified@2012-12-02T00:30:08.276Z'],
      ['custom_event@2012-12-02T00:30:12.984Z', 'user_identified@2012-12-02T00:30:12.984Z'],
      ['user_identified@2015-02-02T00:30:08.276Z'],
      ['custom_event@2015-02-02T00:30:12.984Z', 'user_identified@2015-02-02T00:30:12.984Z'],
    ]);
  });
});

describe('refusals name the field', () => {
  it.each<[string, unknown, string]>([
    ['not an object', 'hello', 'message'],
    ['no identity', { type: 'page', messageId: 'm' }, 'anonymousId'],
    ['unknown type', { type: 'bogus', anonymousId: 'a' }, 'type'],
    ['track without event', { type: 'track', anonymousId: 'a' }, 'event'],
    ['bad timestamp', { type: 'page', anonymousId: 'a', timestamp: 'yesterday' }, 'timestamp'],
    ['long anonymousId', { type: 'page', anonymousId: 'x'.repeat(257) }, 'anonymousId'],
    ['long messageId', { type: 'page', anonymousId: 'a', messageId: 'x'.repeat(257) }, 'messageId'],
    [
      'product without id',
      { type: 'track', event: 'Product Viewed', anonymousId: 'a', properties: {} },
      'properties.product_id',
    ],
  ])('%s', (_what, msg, field) => {
    expect(errorsOf(msg).map((e) => e.field)).toContain(field);
  });

  it('identifies a message without messageId by its content, so that a retry is the same event', () => {
    const msg = { type: 'page', anonymousId: 'a', timestamp: '2025-03-01T10:00:00.000Z' };
    expect(mapped(msg)[0]!.id).toBe(mapped({ ...msg })[0]!.id);
    expect(mapped(msg)[0]!.id).not.toBe(mapped({ ...msg, anonymousId: 'b' })[0]!.id);
  });
});
