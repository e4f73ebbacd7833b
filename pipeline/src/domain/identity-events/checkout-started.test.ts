import type { Checkout, DiscountApplication, EventOf, Money } from '../../../../contracts/src/events';
import type { IdentityEventProfile } from '../../../../contracts/src/identity-events';
import {
  SAMPLE_CHECKOUT_TOKEN,
  SAMPLE_EMAIL,
  SAMPLE_TIMESTAMP,
  sampleCheckout,
  sampleEvent,
  sampleProduct,
  sampleProductVariant,
  withField,
  withoutField,
} from '../../../../test/support/samples';
import { buildCheckoutStarted, discountCodes, totalDiscounts } from './checkout-started';
import {
  badLeaves,
  blankPerson,
  LANDING_SITE,
  REFERRING_SITE,
  samplePerson,
  sampleIdentityEventContext,
  SOCKS_PRODUCT_ID,
} from '../../../../test/support/identity-event-fixtures';
import { specPathViolations } from './spec-paths';

type CheckoutStartedEvent = EventOf<'checkout_started'>;

const usd = (amount: number): Money => ({ amount, currencyCode: 'USD' });
const eur = (amount: number): Money => ({ amount, currencyCode: 'EUR' });

function checkoutEvent(checkout: Partial<Checkout> = {}): CheckoutStartedEvent {
  return sampleEvent('checkout_started', { data: { checkout: sampleCheckout({ email: null, ...checkout }) } });
}

/** The sample event without the members at `paths` (absent optional members). */
function without(event: CheckoutStartedEvent, paths: string[]): CheckoutStartedEvent {
  return paths.reduce<CheckoutStartedEvent>((e, path) => withoutField(e, path) as CheckoutStartedEvent, event);
}

function withValues(event: CheckoutStartedEvent, values: [string, unknown][]): CheckoutStartedEvent {
  return values.reduce<CheckoutStartedEvent>(
    (e, [path, value]) => withField(e, path, value) as CheckoutStartedEvent,
    event,
  );
}

const OPTIONAL_CHECKOUT = [
  'attributes',
  'billingAddress',
  'buyerAcceptsEmailMarketing',
  'buyerAcceptsSmsMarketing',
  'delivery',
  'discountApplications',
  'discountsAmount',
  'email',
  'localization',
  'order',
  'phone',
  'shippingAddress',
  'smsMarketingPhone',
  'transactions',
].map((member) => `data.checkout.${member}`);

const OPTIONAL_LINE = [0, 1].flatMap((i) =>
  [
    'discountAllocations',
    'properties',
    'sellingPlanAllocation',
    'variant.image',
    'variant.sku',
    'variant.title',
    'variant.untranslatedTitle',
    'variant.product.untranslatedTitle',
    'variant.product.vendor',
    'variant.product.type',
  ].map((member) => `data.checkout.lineItems[${i}].${member}`),
);

const NULLABLE_LINE: [string, unknown][] = [0, 1].flatMap((i): [string, unknown][] => [
  [`data.checkout.lineItems[${i}].id`, null],
  [`data.checkout.lineItems[${i}].title`, null],
  [`data.checkout.lineItems[${i}].variant.product.url`, null],
  [`data.checkout.lineItems[${i}].variant.image`, { src: null }],
]);

const socksProduct = sampleProduct({
  id: SOCKS_PRODUCT_ID,
  title: 'Wool Socks',
  handle: 'wool-socks',
  body_html: null,
  vendor: null,
  product_type: null,
  tags: '',
  images: [],
  variants: [{ id: '45737128689881', price: '8.50' }],
});

describe('buildCheckoutStarted: every spec path present with the spec type', () => {
  it.each<[string, CheckoutStartedEvent, Parameters<typeof sampleIdentityEventContext>]>([
    ['realistic checkout, tee pushed, socks not', checkoutEvent(), [{}]],
    ['no product pushed', checkoutEvent(), [{}, []]],
    ['every product pushed', checkoutEvent(), [{}, [sampleProduct(), socksProduct]]],
    ['discount codes applied', checkoutEvent({ discountsAmount: usd(5.85) }), [{}]],
    ['no discountsAmount', without(checkoutEvent(), ['data.checkout.discountsAmount']), [{}]],
    ['null discountsAmount', checkoutEvent({ discountsAmount: null }), [{}]],
    [
      'no shipping or billing address',
      without(checkoutEvent(), ['data.checkout.shippingAddress', 'data.checkout.billingAddress']),
      [{ profile: blankPerson() }],
    ],
    [
      'null addresses, email and phone',
      checkoutEvent({ shippingAddress: null, billingAddress: null, email: null, phone: null }),
      [{ profile: blankPerson() }],
    ],
    [
      'every optional checkout member absent',
      without(checkoutEvent(), OPTIONAL_CHECKOUT),
      [{ profile: blankPerson() }],
    ],
    ['every optional line and variant member absent', without(checkoutEvent(), OPTIONAL_LINE), [{}, []]],
    ['nullable line members null', withValues(checkoutEvent(), NULLABLE_LINE), [{}, []]],
    [
      'address members null',
      withValues(checkoutEvent(), [
        [
          'data.checkout.shippingAddress',
          {
            address1: null,
            city: null,
            country: null,
            countryCode: null,
            firstName: null,
            lastName: null,
            province: null,
            provinceCode: null,
            zip: null,
          },
        ],
      ]),
      [{ profile: blankPerson() }],
    ],
    ['no line items', checkoutEvent({ lineItems: [] }), [{}]],
    [
      'blank context',
      checkoutEvent(),
      [{ profile: blankPerson(), landingSite: '', referringSite: '', collectionsOf: () => [] }, []],
    ],
  ])('%s', (_label, event, ctxArgs) => {
    const payload = buildCheckoutStarted(event, sampleIdentityEventContext(...ctxArgs));
    expect(specPathViolations(payload)).toEqual([]);
    expect(badLeaves(payload)).toEqual([]);
  });
});

describe('buildCheckoutStarted: values', () => {
  it('builds the realistic checkout in full (tee pushed by the store, socks not)', () => {
    const payload = buildCheckoutStarted(checkoutEvent(), sampleIdentityEventContext());
    const checkoutUrl = `https://shop.example/checkouts/${SAMPLE_CHECKOUT_TOKEN}`;
    expect(payload).toEqual({
      type: 'event',
      attributes: {
        time: SAMPLE_TIMESTAMP,
        value: 68.18,
        value_currency: 'USD',
        unique_id: SAMPLE_CHECKOUT_TOKEN,
        properties: {
          Collections: ['Accessories', 'Summer Essentials', 'Tees'],
          $currency_code: 'USD',
          Items: ['Organic Cotton Tee', 'Wool Socks'],
          'Item Count': 3,
          presentment_currency: 'USD',
          $value: 68.18,
          'Discount Codes': [],
          'Total Discounts': 0,
          $extra: {
            full_landing_site: LANDING_SITE,
            referring_site: REFERRING_SITE,
            checkout_url: checkoutUrl,
            responsive_checkout_url: checkoutUrl,
            line_items: [
              {
                key: '45737128657113',
                presentment_title: 'Organic Cotton Tee',
                parent_relationship: '',
                grams: '180',
                product_id: '8950316581081',
                variant_id: '45737128657113',
                vendor: 'Shop Example',
                sku: 'TEE-WHT-M',
                variant_title: 'White / M',
                presentment_variant_title: 'White / M',
                title: 'Organic Cotton Tee',
                compare_at_price: 0,
                line_price: 50,
                variant_price: 25,
                price: 25,
                quantity: 2,
                line_price_set: { shop_money: { amount: 50 }, presentment_money: { amount: 50 } },
                product: {
                  body_html: '<p>Soft organic cotton.</p>',
                  tags: 'cotton, summer',
                  handle: 'organic-cotton-tee',
                  id: '8950316581081',
                  title: 'Organic Cotton Tee',
                  product_type: 'T-Shirts',
                  url: 'https://shop.example/products/organic-cotton-tee',
                  vendor: 'Shop Example',
                  images: [{ src: 'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg' }],
                  variant: {
                    sku: 'TEE-WHT-M',
                    title: 'White / M',
                    id: '45737128657113',
                    images: [{ src: 'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg' }],
                  },
                },
              },
              {
                key: '45737128689881',
                presentment_title: 'Wool Socks',
                parent_relationship: '',
                grams: '',
                product_id: '8950316613849',
                variant_id: '45737128689881',
                vendor: 'Shop Example',
                sku: 'SOCK-GRY',
                variant_title: 'Grey',
                presentment_variant_title: 'Grey',
                title: 'Wool Socks',
                compare_at_price: 0,
                line_price: 8.5,
                variant_price: 8.5,
                price: 8.5,
                quantity: 1,
                line_price_set: { shop_money: { amount: 8.5 }, presentment_money: { amount: 8.5 } },
                product: {
                  body_html: '',
                  tags: '',
                  handle: 'wool-socks',
                  id: '8950316613849',
                  title: 'Wool Socks',
                  product_type: 'Socks',
                  url: 'https://shop.example/products/wool-socks',
                  vendor: 'Shop Example',
                  images: [{ src: 'https://cdn.shopify.com/s/files/1/0000/0001/products/socks.jpg' }],
                  variant: {
                    sku: 'SOCK-GRY',
                    title: 'Grey',
                    id: '45737128689881',
                    images: [{ src: 'https://cdn.shopify.com/s/files/1/0000/0001/products/socks.jpg' }],
                  },
                },
              },
            ],
          },
        },
        metric: { data: { type: 'metric', attributes: { name: 'Checkout Started', service: 'open-attribution' } } },
        profile: {
          data: {
            type: 'profile',
            attributes: {
              email: SAMPLE_EMAIL,
              phone_number: '+15415550100',
              first_name: 'Jane',
              last_name: 'Doe',
              location: {
                address1: '1 Main Street',
                address2: '',
                city: 'Springfield',
                country: 'United States',
                region: 'Oregon',
                zip: '97477',
              },
            },
          },
        },
      },
    });
  });

  it('takes catalogue members from the pushed product and the buyer-facing ones from the event', () => {
    const event = checkoutEvent({
      lineItems: [
        {
          finalLinePrice: usd(50),
          id: 'line-1',
          quantity: 2,
          title: 'T-shirt en coton bio',
          variant: sampleProductVariant({
            title: 'Blanc / M',
            untranslatedTitle: 'White / M',
            product: {
              id: '8950316581081',
              title: 'T-shirt en coton bio',
              untranslatedTitle: 'Organic Cotton Tee',
              url: '/fr/products/organic-cotton-tee',
            },
          }),
        },
      ],
    });
    const pushed = sampleProduct({
      title: 'Organic Cotton Tee (2025)',
      variants: [
        {
          id: '45737128657113',
          title: 'White / Medium',
          sku: 'TEE-WHT-M-25',
          price: '25.00',
          compare_at_price: '30.00',
          grams: 185,
        },
      ],
    });
    const [known] = buildCheckoutStarted(event, sampleIdentityEventContext({}, [pushed])).attributes.properties.$extra
      .line_items;
    expect(known).toMatchObject({
      key: 'line-1',
      title: 'Organic Cotton Tee (2025)',
      presentment_title: 'T-shirt en coton bio',
      variant_title: 'White / Medium',
      presentment_variant_title: 'Blanc / M',
      sku: 'TEE-WHT-M-25',
      grams: '185',
      compare_at_price: 30,
      product: {
        title: 'Organic Cotton Tee (2025)',
        handle: 'organic-cotton-tee',
        url: 'https://shop.example/fr/products/organic-cotton-tee',
      },
    });
    const [unknown] = buildCheckoutStarted(event, sampleIdentityEventContext({}, [])).attributes.properties.$extra
      .line_items;
    expect(unknown).toMatchObject({
      title: 'Organic Cotton Tee',
      presentment_title: 'T-shirt en coton bio',
      variant_title: 'White / M',
      presentment_variant_title: 'Blanc / M',
      sku: 'TEE-WHT-M',
      grams: '',
      compare_at_price: 0,
      product: { body_html: '', tags: '', handle: 'organic-cotton-tee', title: 'Organic Cotton Tee' },
    });
  });

  it('fills a line without id, titles, url or image with strings', () => {
    const event = withValues(checkoutEvent(), NULLABLE_LINE);
    const [line] = buildCheckoutStarted(event, sampleIdentityEventContext({}, [])).attributes.properties.$extra
      .line_items;
    expect(line).toMatchObject({
      key: '45737128657113:0',
      presentment_title: 'Organic Cotton Tee',
      title: 'Organic Cotton Tee',
      product: { url: '', handle: '', images: [], variant: { images: [] } },
    });
  });

  const code = (title: string, type = 'DISCOUNT_CODE'): DiscountApplication => ({
    allocationMethod: 'ACROSS',
    targetSelection: 'ALL',
    targetType: 'LINE_ITEM',
    title,
    type,
    value: { percentage: 10 },
  });

  it.each<[string, Partial<Checkout>, string[], number]>([
    ['no discount', {}, [], 0],
    ['one code', { discountApplications: [code('SUMMER10')], discountsAmount: usd(5.85) }, ['SUMMER10'], 6],
    [
      'codes only, not automatic, manual or script discounts',
      {
        discountApplications: [
          code('Buy 2 save 5', 'AUTOMATIC'),
          code('WELCOME'),
          code('Staff', 'MANUAL'),
          code('Bundle', 'SCRIPT'),
        ],
        discountsAmount: usd(12),
      },
      ['WELCOME'],
      12,
    ],
    [
      'repeated code once, checkout order kept',
      { discountApplications: [code('ZED'), code('ALPHA'), code('ZED')], discountsAmount: usd(3) },
      ['ZED', 'ALPHA'],
      3,
    ],
    ['half rounds up', { discountsAmount: usd(4.5) }, [], 5],
    ['below half rounds down', { discountsAmount: usd(4.49) }, [], 4],
    ['null discountsAmount and no allocations', { discountsAmount: null }, [], 0],
    ['no discountApplications member', { discountApplications: undefined }, [], 0],
  ])('discounts: %s', (_label, checkout, codes, total) => {
    const { properties } = buildCheckoutStarted(checkoutEvent(checkout), sampleIdentityEventContext()).attributes;
    expect(properties['Discount Codes']).toEqual(codes);
    expect(properties['Total Discounts']).toBe(total);
    expect(Number.isInteger(properties['Total Discounts'])).toBe(true);
  });

  it('sums line discount allocations when discountsAmount is absent', () => {
    const allocation = (amount: number) => ({ amount: usd(amount), discountApplication: code('SUMMER10') });
    const checkout = sampleCheckout({ discountsAmount: undefined });
    checkout.lineItems[0]!.discountAllocations = [allocation(2.25)];
    checkout.lineItems[1]!.discountAllocations = [allocation(1.5)];
    expect(totalDiscounts(checkout)).toBe(4);
    expect(discountCodes(sampleCheckout({ discountApplications: [code('SUMMER10')] }))).toEqual(['SUMMER10']);
  });

  const location = (overrides: Partial<IdentityEventProfile['data']['attributes']['location']> = {}) => ({
    address1: '',
    address2: '',
    city: '',
    country: '',
    region: '',
    zip: '',
    ...overrides,
  });
  const shipping = location({
    address1: '1 Main Street',
    city: 'Springfield',
    country: 'United States',
    region: 'Oregon',
    zip: '97477',
  });

  it.each<
    [
      string,
      Partial<Checkout>,
      Parameters<typeof samplePerson>[0] | 'blank',
      IdentityEventProfile['data']['attributes'],
    ]
  >([
    [
      'the context person wins over the checkout',
      { email: 'other@example.com', phone: '+15415550199' },
      {},
      {
        email: SAMPLE_EMAIL,
        phone_number: '+15415550100',
        first_name: 'Jane',
        last_name: 'Doe',
        location: { ...shipping },
      },
    ],
    [
      'blank person: checkout email and phone, names and location of the shipping address',
      { email: SAMPLE_EMAIL, phone: '+15415550199' },
      'blank',
      { email: SAMPLE_EMAIL, phone_number: '+15415550199', first_name: 'Jane', last_name: 'Doe', location: shipping },
    ],
    [
      'blank person, no shipping address: the billing address',
      {
        email: SAMPLE_EMAIL,
        shippingAddress: null,
        billingAddress: {
          address1: '9 Elm Road',
          city: 'Portland',
          country: null,
          countryCode: 'US',
          firstName: 'J.',
          lastName: 'D.',
          province: null,
          provinceCode: 'OR',
          zip: '97201',
          phone: '+15035550123',
        },
      },
      'blank',
      {
        email: SAMPLE_EMAIL,
        phone_number: '+15035550123',
        first_name: 'J.',
        last_name: 'D.',
        location: location({ address1: '9 Elm Road', city: 'Portland', country: 'US', region: 'OR', zip: '97201' }),
      },
    ],
    [
      'blank person, nothing in the checkout: empty strings',
      { email: null, phone: null, shippingAddress: undefined, billingAddress: null },
      'blank',
      { email: '', phone_number: '', first_name: '', last_name: '', location: location() },
    ],
    [
      'a partly known context location is kept whole, never mixed with the checkout address',
      {},
      { location: location({ city: 'Lyon', country: 'France' }) },
      {
        email: SAMPLE_EMAIL,
        phone_number: '+15415550100',
        first_name: 'Jane',
        last_name: 'Doe',
        location: location({ city: 'Lyon', country: 'France' }),
      },
    ],
    [
      'sms marketing phone when the checkout has no phone',
      { phone: null, smsMarketingPhone: '+15415550177' },
      { phone: '' },
      {
        email: SAMPLE_EMAIL,
        phone_number: '+15415550177',
        first_name: 'Jane',
        last_name: 'Doe',
        location: { ...shipping },
      },
    ],
  ])('profile: %s', (_label, checkout, person, expected) => {
    const ctx = sampleIdentityEventContext({ profile: person === 'blank' ? blankPerson() : samplePerson(person) });
    expect(buildCheckoutStarted(checkoutEvent(checkout), ctx).attributes.profile).toEqual({
      data: { type: 'profile', attributes: expected },
    });
  });

  it('keeps the checkout currency for value and presentment, and converts shop money when a rate is given', () => {
    const eurCheckout = sampleCheckout({
      currencyCode: 'EUR',
      totalPrice: eur(62),
      subtotalPrice: eur(53.5),
      totalTax: eur(4.3),
    });
    eurCheckout.lineItems[0]!.finalLinePrice = eur(46);
    const event = checkoutEvent(eurCheckout);
    const withRate = buildCheckoutStarted(
      event,
      sampleIdentityEventContext({ rateOf: (c) => (c === 'EUR' ? 1.1 : undefined) }),
    );
    expect(withRate.attributes).toMatchObject({ value: 62, value_currency: 'EUR' });
    expect(withRate.attributes.properties).toMatchObject({
      $currency_code: 'EUR',
      presentment_currency: 'EUR',
      $value: 62,
    });
    expect(withRate.attributes.properties.$extra.line_items[0]!.line_price_set).toEqual({
      shop_money: { amount: 50.6 },
      presentment_money: { amount: 46 },
    });
    const noRate = buildCheckoutStarted(event, sampleIdentityEventContext());
    expect(noRate.attributes.properties.$extra.line_items[0]!.line_price_set.shop_money.amount).toBe(46);
  });

  it.each([
    ['https://shop.example', 'https://shop.example/checkouts/tok_1'],
    ['https://shop.example/', 'https://shop.example/checkouts/tok_1'],
    ['https://shop.example//', 'https://shop.example/checkouts/tok_1'],
  ])('checkout URLs on shop %s', (shopUrl, url) => {
    const { $extra } = buildCheckoutStarted(checkoutEvent({ token: 'tok_1' }), sampleIdentityEventContext({ shopUrl }))
      .attributes.properties;
    expect($extra.checkout_url).toBe(url);
    expect($extra.responsive_checkout_url).toBe(url);
  });

  it('writes the event time in UTC and counts quantities as integers', () => {
    const event = { ...checkoutEvent(), timestamp: '2025-01-12T06:30:54.751+02:00' };
    const payload = buildCheckoutStarted(event, sampleIdentityEventContext());
    expect(payload.attributes.time).toBe('2025-01-12T04:30:54.751Z');
    expect(payload.attributes.properties['Item Count']).toBe(3);
  });
});

describe('buildCheckoutStarted: determinism', () => {
  function deepFreeze<T>(value: T): T {
    if (typeof value === 'object' && value !== null) {
      Object.values(value).forEach(deepFreeze);
      Object.freeze(value);
    }
    return value;
  }

  it('gives deep-equal payloads for the same input and does not touch the event', () => {
    const event = deepFreeze(checkoutEvent({ discountsAmount: usd(5.85) }));
    const first = buildCheckoutStarted(event, sampleIdentityEventContext());
    const second = buildCheckoutStarted(structuredClone(event), sampleIdentityEventContext());
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('gives the same payload for a redelivery of the checkout under another envelope id', () => {
    const first = buildCheckoutStarted(checkoutEvent(), sampleIdentityEventContext());
    const again = buildCheckoutStarted(
      { ...checkoutEvent(), id: 'sh-checkout-started-redelivered' },
      sampleIdentityEventContext(),
    );
    expect(again).toEqual(first);
    expect(again.attributes.unique_id).toBe(SAMPLE_CHECKOUT_TOKEN);
  });
});
