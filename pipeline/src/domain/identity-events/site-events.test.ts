import type { EventOf } from '../../../../contracts/src/events';
import {
  SAMPLE_EMAIL,
  SAMPLE_TIMESTAMP,
  sampleCartLine,
  sampleEvent,
  sampleLead,
  sampleProduct,
  sampleProductVariant,
  withoutField,
} from '../../../../test/support/samples';
import {
  badLeaves,
  blankPerson,
  samplePerson,
  sampleIdentityEventContext,
} from '../../../../test/support/identity-event-fixtures';
import {
  buildActiveOnSite,
  buildAddedToCart,
  buildCollectionView,
  buildSubscribe,
  buildViewedProduct,
} from './site-events';
import { specPathViolations, type SpecPath } from './spec-paths';

/** The outer shape every identity event shares with Checkout Started. */
const OUTER: SpecPath[] = [
  ['type', 'string'],
  ['attributes.time', 'string'],
  ['attributes.value', 'number'],
  ['attributes.value_currency', 'string'],
  ['attributes.unique_id', 'string'],
  ['attributes.properties', 'object'],
  ['attributes.metric.data.type', 'string'],
  ['attributes.metric.data.attributes.name', 'string'],
  ['attributes.metric.data.attributes.service', 'string'],
  ['attributes.profile.data.type', 'string'],
  ...['email', 'phone_number', 'first_name', 'last_name'].map((m): SpecPath => [
    `attributes.profile.data.attributes.${m}`,
    'string',
  ]),
  ...['address1', 'address2', 'city', 'country', 'region', 'zip'].map((m): SpecPath => [
    `attributes.profile.data.attributes.location.${m}`,
    'string',
  ]),
];

const props = (paths: [string, SpecPath[1]][]): SpecPath[] =>
  paths.map(([path, type]): SpecPath => [`attributes.properties.${path}`, type]);

const PROPERTY_PATHS = {
  'Active On site': props([
    ['$is_session_activity', 'boolean'],
    ['$use_ip', 'boolean'],
    ['page', 'string'],
    ['$last_referrer', 'string'],
  ]),
  'Viewed Product': props([
    ['ProductName', 'string'],
    ['ProductID', 'string'],
    ['VariantID', 'string'],
    ['SKU', 'string'],
    ['Categories', 'string[]'],
    ['ImageURL', 'string'],
    ['URL', 'string'],
    ['Brand', 'string'],
    ['Price', 'number'],
    ['CompareAtPrice', 'number'],
  ]),
  'Collection View': props([
    ['CategoryID', 'string'],
    ['CategoryName', 'string'],
    ['CategoryURL', 'string'],
  ]),
  'Added to Cart': props([
    ['$value', 'number'],
    ['AddedItemProductName', 'string'],
    ['AddedItemProductID', 'string'],
    ['AddedItemSKU', 'string'],
    ['AddedItemCategories', 'string[]'],
    ['AddedItemImageURL', 'string'],
    ['AddedItemURL', 'string'],
    ['AddedItemPrice', 'number'],
    ['AddedItemQuantity', 'integer'],
    ['ItemNames', 'string[]'],
    ['CheckoutURL', 'string'],
    ['Items', 'array'],
    ['Items[].ProductID', 'string'],
    ['Items[].SKU', 'string'],
    ['Items[].ProductName', 'string'],
    ['Items[].Quantity', 'integer'],
    ['Items[].ItemPrice', 'number'],
    ['Items[].RowTotal', 'number'],
    ['Items[].ProductURL', 'string'],
    ['Items[].ImageURL', 'string'],
    ['Items[].ProductCategories', 'string[]'],
  ]),
  Subscribe: props([
    ['FormID', 'string'],
    ['PageURL', 'string'],
  ]),
} as const;

const bareVariant = () =>
  withoutField(
    withoutField(
      withoutField(withoutField(withoutField(sampleProductVariant(), 'image'), 'sku'), 'product.vendor'),
      'title',
    ),
    'product.type',
  ) as ReturnType<typeof sampleProductVariant>;

type Builder = () => unknown;

describe('the five other identity events: outer shape and declared properties', () => {
  const full = sampleIdentityEventContext();
  const bare = sampleIdentityEventContext(
    { profile: blankPerson(), landingSite: '', referringSite: '', collectionsOf: () => [] },
    [],
  );
  it.each<[string, keyof typeof PROPERTY_PATHS, Builder]>([
    ['Active On site', 'Active On site', () => buildActiveOnSite(sampleEvent('page_viewed'), full)],
    ['Active On site, nothing known', 'Active On site', () => buildActiveOnSite(sampleEvent('page_viewed'), bare)],
    ['Viewed Product', 'Viewed Product', () => buildViewedProduct(sampleEvent('product_viewed'), full)],
    [
      'Viewed Product, unknown bare variant',
      'Viewed Product',
      () => buildViewedProduct(sampleEvent('product_viewed', { data: { productVariant: bareVariant() } }), bare),
    ],
    ['Collection View', 'Collection View', () => buildCollectionView(sampleEvent('collection_viewed'), full)],
    [
      'Collection View, nothing known',
      'Collection View',
      () => buildCollectionView(sampleEvent('collection_viewed'), bare),
    ],
    ['Added to Cart', 'Added to Cart', () => buildAddedToCart(sampleEvent('product_added_to_cart'), full)],
    [
      'Added to Cart, unknown bare variant',
      'Added to Cart',
      () =>
        buildAddedToCart(
          sampleEvent('product_added_to_cart', { data: { cartLine: sampleCartLine({ merchandise: bareVariant() }) } }),
          bare,
        ),
    ],
    ['Subscribe', 'Subscribe', () => buildSubscribe(sampleEvent('lead_form_submitted'), full)],
    [
      'Subscribe, bare lead',
      'Subscribe',
      () =>
        buildSubscribe(
          sampleEvent('lead_form_submitted', { data: { lead: { email: SAMPLE_EMAIL } } }),
          sampleIdentityEventContext({ profile: blankPerson() }),
        ),
    ],
  ])('%s', (_label, name, build) => {
    const payload = build();
    expect(specPathViolations(payload, [...OUTER, ...PROPERTY_PATHS[name]])).toEqual([]);
    expect(badLeaves(payload)).toEqual([]);
    expect(payload).toMatchObject({
      type: 'event',
      attributes: { metric: { data: { type: 'metric', attributes: { name, service: 'open-attribution' } } } },
    });
    // Exactly the declared properties.
    const declared = PROPERTY_PATHS[name].map(([path]) => path.replace('attributes.properties.', '').split(/[.[]/)[0]);
    expect(Object.keys((payload as { attributes: { properties: object } }).attributes.properties).sort()).toEqual(
      [...new Set(declared)].sort(),
    );
  });
});

describe('the five other identity events: values', () => {
  const profile = {
    data: {
      type: 'profile',
      attributes: {
        email: SAMPLE_EMAIL,
        phone_number: '+15415550100',
        first_name: 'Jane',
        last_name: 'Doe',
        location: samplePerson().location,
      },
    },
  };

  it('Active On site: the landing page and its referrer, no value', () => {
    const event = sampleEvent('page_viewed');
    expect(buildActiveOnSite(event, sampleIdentityEventContext())).toEqual({
      type: 'event',
      attributes: {
        time: SAMPLE_TIMESTAMP,
        value: 0,
        value_currency: 'USD',
        unique_id: 'sh-page-viewed-0001',
        properties: {
          $is_session_activity: true,
          $use_ip: true,
          page: event.context.document.location.href,
          $last_referrer: 'https://l.facebook.com/',
        },
        metric: { data: { type: 'metric', attributes: { name: 'Active On site', service: 'open-attribution' } } },
        profile,
      },
    });
  });

  it('Viewed Product: pushed product and collections, variant price as value', () => {
    const pushed = sampleProduct({
      variants: [
        { id: '45737128657113', title: 'White / M', sku: 'TEE-WHT-M', price: '25.00', compare_at_price: '32.00' },
      ],
    });
    const payload = buildViewedProduct(sampleEvent('product_viewed'), sampleIdentityEventContext({}, [pushed]));
    expect(payload.attributes).toMatchObject({ value: 25, value_currency: 'USD', unique_id: 'sh-product-viewed-0001' });
    expect(payload.attributes.properties).toEqual({
      ProductName: 'Organic Cotton Tee',
      ProductID: '8950316581081',
      VariantID: '45737128657113',
      SKU: 'TEE-WHT-M',
      Categories: ['Summer Essentials', 'Tees'],
      ImageURL: 'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg',
      URL: 'https://shop.example/products/organic-cotton-tee',
      Brand: 'Shop Example',
      Price: 25,
      CompareAtPrice: 32,
    });
  });

  it('Viewed Product: an unknown bare variant gives strings, and the page URL when the product has none', () => {
    const variant = { ...bareVariant(), product: { ...bareVariant().product, url: null } };
    const event = sampleEvent('product_viewed', { data: { productVariant: variant } });
    expect(buildViewedProduct(event, sampleIdentityEventContext({}, [])).attributes.properties).toEqual({
      ProductName: 'Organic Cotton Tee',
      ProductID: '8950316581081',
      VariantID: '45737128657113',
      SKU: '',
      Categories: ['Summer Essentials', 'Tees'],
      ImageURL: '',
      URL: event.context.document.location.href,
      Brand: '',
      Price: 25,
      CompareAtPrice: 0,
    });
  });

  it('Collection View: the collection and the page it was seen on', () => {
    const event = sampleEvent('collection_viewed');
    const payload = buildCollectionView(event, sampleIdentityEventContext());
    expect(payload.attributes).toMatchObject({
      value: 0,
      value_currency: 'USD',
      unique_id: 'sh-collection-viewed-0001',
      profile,
    });
    expect(payload.attributes.properties).toEqual({
      CategoryID: '301234567890',
      CategoryName: 'Summer Essentials',
      CategoryURL: 'https://shop.example/collections/summer-essentials',
    });
  });

  it('Added to Cart: the added line, its total as value', () => {
    const payload = buildAddedToCart(sampleEvent('product_added_to_cart'), sampleIdentityEventContext());
    expect(payload.attributes).toMatchObject({
      value: 50,
      value_currency: 'USD',
      unique_id: 'sh-product-added-to-cart-0001',
    });
    const item = {
      ProductID: '8950316581081',
      SKU: 'TEE-WHT-M',
      ProductName: 'Organic Cotton Tee',
      Quantity: 2,
      ItemPrice: 25,
      RowTotal: 50,
      ProductURL: 'https://shop.example/products/organic-cotton-tee',
      ImageURL: 'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg',
      ProductCategories: ['Summer Essentials', 'Tees'],
    };
    expect(payload.attributes.properties).toEqual({
      $value: 50,
      AddedItemProductName: 'Organic Cotton Tee',
      AddedItemProductID: '8950316581081',
      AddedItemSKU: 'TEE-WHT-M',
      AddedItemCategories: ['Summer Essentials', 'Tees'],
      AddedItemImageURL: 'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg',
      AddedItemURL: 'https://shop.example/products/organic-cotton-tee',
      AddedItemPrice: 25,
      AddedItemQuantity: 2,
      ItemNames: ['Organic Cotton Tee'],
      CheckoutURL: 'https://shop.example/cart',
      Items: [item],
    });
  });

  it.each<[string, Parameters<typeof sampleLead>[0], ReturnType<typeof blankPerson>, object]>([
    ['the context person wins', { email: 'typed@example.com' }, samplePerson(), profile.data.attributes],
    [
      'the lead fills a blank person',
      {},
      blankPerson(),
      {
        email: SAMPLE_EMAIL,
        phone_number: '+15415550100',
        first_name: 'Jane',
        last_name: 'Doe',
        location: blankPerson().location,
      },
    ],
    [
      'a bare lead gives its email and empty strings',
      { phone: null, firstName: null, lastName: null, formId: null },
      blankPerson(),
      { email: SAMPLE_EMAIL, phone_number: '', first_name: '', last_name: '', location: blankPerson().location },
    ],
  ])('Subscribe profile: %s', (_label, lead, person, attributes) => {
    const event = sampleEvent('lead_form_submitted', { data: { lead: sampleLead(lead) } });
    const payload = buildSubscribe(event, sampleIdentityEventContext({ profile: person }));
    expect(payload.attributes.profile).toEqual({ data: { type: 'profile', attributes } });
    expect(payload.attributes.properties).toEqual({
      FormID: lead?.formId === null ? '' : 'newsletter-footer',
      PageURL: 'https://shop.example/pages/contact',
    });
    expect(payload.attributes).toMatchObject({
      value: 0,
      value_currency: 'USD',
      unique_id: 'sh-lead-form-submitted-0001',
    });
  });

  describe('is deterministic: the same facts give the same bytes, whatever the clock, chance or key order', () => {
    /** A deep copy of `value` with the keys of every object in reverse insertion order. */
    function reversedKeys<T>(value: T): T {
      if (Array.isArray(value)) return value.map(reversedKeys) as T;
      if (value === null || typeof value !== 'object') return value;
      const entries = Object.entries(value).reverse();
      return Object.fromEntries(entries.map(([k, v]) => [k, reversedKeys(v)])) as T;
    }
    /** The context's facts built afresh, each object's keys reversed on `reversed`. */
    const contextOf = (reversed: boolean) => {
      const order = reversed ? reversedKeys : <T>(v: T): T => v;
      return sampleIdentityEventContext({ profile: order(samplePerson()) }, [order(sampleProduct())]);
    };

    afterEach(() => {
      jest.useRealTimers();
      jest.restoreAllMocks();
    });

    it.each<[string, (reversed: boolean) => unknown]>([
      ['Active On site', (r) => buildActiveOnSite(maybeReversed(sampleEvent('page_viewed'), r), contextOf(r))],
      ['Viewed Product', (r) => buildViewedProduct(maybeReversed(sampleEvent('product_viewed'), r), contextOf(r))],
      ['Collection View', (r) => buildCollectionView(maybeReversed(sampleEvent('collection_viewed'), r), contextOf(r))],
      ['Added to Cart', (r) => buildAddedToCart(maybeReversed(sampleEvent('product_added_to_cart'), r), contextOf(r))],
      ['Subscribe', (r) => buildSubscribe(maybeReversed(sampleEvent('lead_form_submitted'), r), contextOf(r))],
    ])('%s', (_label, build) => {
      jest.useFakeTimers({ now: Date.parse('2020-01-01T00:00:00Z') });
      const random = jest.spyOn(Math, 'random').mockReturnValue(0.1);
      const first = JSON.stringify(build(false));
      // Another instant, other random numbers, and inputs equal in value whose objects list their keys the other way.
      jest.setSystemTime(Date.parse('2031-06-15T12:34:56Z'));
      random.mockReturnValue(0.9);
      expect(JSON.stringify(build(true))).toBe(first);
    });

    function maybeReversed<T>(value: T, reversed: boolean): T {
      return reversed ? reversedKeys(value) : value;
    }
  });

  it('uses the source event id as unique_id, so a redelivery gives the same payload', () => {
    const event: EventOf<'product_viewed'> = sampleEvent('product_viewed', { id: 'ev-42' });
    expect(buildViewedProduct(event, sampleIdentityEventContext()).attributes.unique_id).toBe('ev-42');
    expect(buildViewedProduct(structuredClone(event), sampleIdentityEventContext())).toEqual(
      buildViewedProduct(event, sampleIdentityEventContext()),
    );
  });
});
