import { CHECKOUT_EVENT_NAMES, EVENT_NAMES, type StorefrontEvent } from '../events';
import { validateEvent, type ValidateEventOptions } from './event';
import { formatFieldError } from './result';
import {
  SAMPLE_TIMESTAMP,
  sampleCheckout,
  sampleEvent,
  sampleProductVariant,
  withField,
  withoutField,
} from '../../../test/support/samples';

const NOW = new Date('2025-01-12T05:00:00Z');

function check(input: unknown, opts: Partial<ValidateEventOptions> = {}): ReturnType<typeof validateEvent> {
  return validateEvent(input, { now: NOW, ...opts });
}

/** The errors of an invalid input, formatted `field: message`. */
function errorsOf(input: unknown, opts: Partial<ValidateEventOptions> = {}): string[] {
  const result = check(input, opts);
  if (result.ok) throw new Error('expected the input to be rejected, but it was accepted');
  return result.errors.map(formatFieldError);
}

/** The validated event and warnings of a valid input. */
function accept(
  input: unknown,
  opts: Partial<ValidateEventOptions> = {},
): { value: StorefrontEvent; warnings: string[] } {
  const result = check(input, opts);
  if (!result.ok) throw new Error(`expected a valid event, got: ${result.errors.map(formatFieldError).join('; ')}`);
  return result;
}

describe('validateEvent: valid events', () => {
  it.each(EVENT_NAMES)('accepts the sample %s without warnings', (name) => {
    const input = sampleEvent(name);
    const { value, warnings } = accept(input);
    expect(warnings).toEqual([]);
    expect(value).toEqual(input);
  });

  it('accepts a timestamp with an offset and one well in the past', () => {
    accept(sampleEvent('page_viewed', { timestamp: '2025-01-12T06:00:00+02:00' }));
    accept(sampleEvent('page_viewed', { timestamp: '2019-03-01T00:00:00.000000Z' }));
  });

  it('accepts a custom envelope type', () => {
    expect(accept(sampleEvent('page_viewed', { type: 'custom' })).value.type).toBe('custom');
  });

  it('keeps unknown members at every level', () => {
    let input = withField(sampleEvent('checkout_completed'), 'customData', { source: 'theme' });
    input = withField(input, 'data.checkout.newShopifyField', 42);
    input = withField(input, 'data.checkout.lineItems[0].variant.product.handle', 'organic-cotton-tee');
    input = withField(input, 'context.document.location.extra', 'x');
    expect(accept(input).value).toEqual(input);
  });

  it('narrows data on name', () => {
    const { value } = accept(sampleEvent('checkout_completed'));
    if (value.name !== 'checkout_completed') throw new Error('wrong kind');
    expect(value.data.checkout.order.id).toBe('5512345678901');
  });
});

describe('validateEvent: envelope', () => {
  it.each(['clientId', 'clientIp', 'context', 'data', 'id', 'name', 'seq', 'timestamp', 'type'])(
    'requires %s',
    (field) => {
      expect(errorsOf(withoutField(sampleEvent('product_viewed'), field))).toEqual([`${field}: is required`]);
    },
  );

  it.each([
    ['an array', [], 'event: must be an object, got array'],
    ['null', null, 'event: must be an object, got null'],
    ['a string', 'page_viewed', 'event: must be an object, got string'],
  ])('rejects %s', (_label, input, message) => {
    expect(errorsOf(input)).toEqual([message]);
  });

  it('rejects empty and over-long ids', () => {
    expect(errorsOf(sampleEvent('page_viewed', { clientId: '' }))).toEqual(['clientId: must not be empty']);
    expect(errorsOf(sampleEvent('page_viewed', { id: 'x'.repeat(257) }))).toEqual([
      'id: must be at most 256 characters (got 257)',
    ]);
    accept(sampleEvent('page_viewed', { id: 'x'.repeat(256) }));
  });

  it('rejects an unknown name and lists the kinds', () => {
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'name', 'page_view'))).toEqual([
      `name: must be one of ${EVENT_NAMES.join(', ')}, got "page_view"`,
    ]);
  });

  it('still checks that data is an object when the name is unknown', () => {
    const input = withField(withField(sampleEvent('page_viewed'), 'name', 'clicked'), 'data', 'x');
    expect(errorsOf(input)).toEqual([
      expect.stringMatching(/^name: must be one of page_viewed, /),
      'data: must be an object, got string',
    ]);
  });

  it.each([
    ['seq', 'seven', 'seq: must be a number, got string'],
    ['type', 1, 'type: must be a string, got number'],
    ['clientIp', null, 'clientIp: must be a string, got null'],
    ['context', 'ctx', 'context: must be an object, got string'],
    ['data', [], 'data: must be an object, got array'],
  ])('rejects a wrong type of %s', (field, value, message) => {
    expect(errorsOf(withField(sampleEvent('page_viewed'), field, value))).toEqual([message]);
  });

  it('reports every error, envelope and data together', () => {
    let input = withField(sampleEvent('checkout_started'), 'seq', '1');
    input = withoutField(input, 'clientId');
    input = withoutField(input, 'data.checkout.token');
    expect(errorsOf(input)).toEqual([
      'clientId: is required',
      'seq: must be a number, got string',
      'data.checkout.token: is required',
    ]);
  });
});

describe('validateEvent: fbp', () => {
  it("keeps Meta's _fbp cookie value when present, and accepts its absence", () => {
    const value = accept(sampleEvent('page_viewed', { fbp: 'fb.1.1596403881668.1116446470' })).value;
    expect(value.fbp).toBe('fb.1.1596403881668.1116446470');
    expect(accept(sampleEvent('page_viewed')).value.fbp).toBeUndefined();
  });

  it.each([
    ['1116446470', 'fbp: must be a _fbp cookie value (fb.1.<ms>.<random>), got "1116446470"'],
    ['fb.1.1596403881668.', 'fbp: must be a _fbp cookie value (fb.1.<ms>.<random>), got "fb.1.1596403881668."'],
  ])('rejects %s naming the field', (fbp, message) => {
    expect(errorsOf(sampleEvent('page_viewed', { fbp }))).toEqual([message]);
  });

  it('rejects a value that is not a string', () => {
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'fbp', 42))).toEqual(['fbp: must be a string, got number']);
  });
});

describe('validateEvent: timestamp', () => {
  it.each([
    '2025-01-12T04:30:54',
    '2025-01-12 04:30:54Z',
    '12/01/2025',
    '2025-02-30T00:00:00Z',
    '2025-01-12T04:30:54+0100',
  ])('rejects %s', (timestamp) => {
    expect(errorsOf(sampleEvent('page_viewed', { timestamp }))).toEqual([
      `timestamp: must be an ISO 8601 timestamp with a time zone (e.g. 2025-01-12T04:30:54.751Z), got "${timestamp}"`,
    ]);
  });

  it('rejects a number', () => {
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'timestamp', Date.parse(SAMPLE_TIMESTAMP)))).toEqual([
      'timestamp: must be an ISO 8601 timestamp with a time zone (e.g. 2025-01-12T04:30:54.751Z), got number',
    ]);
  });

  it('rejects more than 24 h in the future and accepts up to 24 h', () => {
    expect(errorsOf(sampleEvent('page_viewed', { timestamp: '2025-01-13T05:00:00.001Z' }))).toEqual([
      'timestamp: is more than 24 h in the future',
    ]);
    accept(sampleEvent('page_viewed', { timestamp: '2025-01-13T05:00:00.000Z' }));
  });

  it('honours maxFutureMs', () => {
    expect(
      errorsOf(sampleEvent('page_viewed', { timestamp: '2025-01-12T06:00:01Z' }), { maxFutureMs: 3_600_000 }),
    ).toEqual(['timestamp: is more than 1 h in the future']);
    expect(
      errorsOf(sampleEvent('page_viewed', { timestamp: '2025-01-12T05:06:00Z' }), { maxFutureMs: 300_000 }),
    ).toEqual(['timestamp: is more than 5 min in the future']);
  });
});

describe('validateEvent: clientIp fallback', () => {
  it('takes a missing clientIp from the fallback', () => {
    const input = withoutField(sampleEvent('page_viewed'), 'clientIp');
    expect(accept(input, { clientIpFallback: '198.51.100.4' }).value.clientIp).toBe('198.51.100.4');
  });

  it('keeps a clientIp that is present', () => {
    expect(accept(sampleEvent('page_viewed'), { clientIpFallback: '198.51.100.4' }).value.clientIp).toBe('203.0.113.7');
  });
});

describe('validateEvent: context', () => {
  it('requires document.location.href', () => {
    const input = sampleEvent('page_viewed');
    expect(errorsOf(withoutField(input, 'context.document'))).toEqual(['context.document: is required']);
    expect(errorsOf(withoutField(input, 'context.document.location'))).toEqual([
      'context.document.location: is required',
    ]);
    expect(errorsOf(withoutField(input, 'context.document.location.href'))).toEqual([
      'context.document.location.href: is required',
    ]);
  });

  it.each(['/products/tee', 'not a url', 'ftp://shop.example/'])('rejects the href %s', (href) => {
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'context.document.location.href', href))).toEqual([
      `context.document.location.href: must be an absolute http(s) URL, got "${href}"`,
    ]);
  });

  it('defaults referrer and title to "" with warnings', () => {
    let input = withoutField(sampleEvent('page_viewed'), 'context.document.referrer');
    input = withField(input, 'context.document.title', null);
    const { value, warnings } = accept(input);
    expect(value.context.document.referrer).toBe('');
    expect(value.context.document.title).toBe('');
    expect(warnings).toEqual(['context.document.referrer missing']);
  });

  it('tolerates a minimal context (document.location.href alone)', () => {
    const input = withField(sampleEvent('page_viewed'), 'context', {
      document: { location: { href: 'https://shop.example/' }, referrer: '', title: 'Home' },
    });
    expect(accept(input).warnings).toEqual([]);
  });

  it('type-checks the members that are present', () => {
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'context.window.innerWidth', '1440'))).toEqual([
      'context.window.innerWidth: must be a number, got string',
    ]);
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'context.navigator.languages[1]', 7))).toEqual([
      'context.navigator.languages[1]: must be a string, got number',
    ]);
  });
});

describe('validateEvent: checkout kinds', () => {
  it.each(CHECKOUT_EVENT_NAMES)('%s requires checkout, token and totalPrice', (name) => {
    const input = sampleEvent(name);
    expect(errorsOf(withoutField(input, 'data.checkout'))).toEqual(['data.checkout: is required']);
    expect(errorsOf(withoutField(input, 'data.checkout.token'))).toEqual(['data.checkout.token: is required']);
    expect(errorsOf(withField(input, 'data.checkout.token', ''))).toEqual(['data.checkout.token: must not be empty']);
    expect(errorsOf(withoutField(input, 'data.checkout.totalPrice'))).toEqual([
      'data.checkout.totalPrice: is required',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.totalPrice', null))).toEqual([
      'data.checkout.totalPrice: must be an object, got null',
    ]);
  });

  it('rejects a numeric string amount and a bad currency', () => {
    const input = sampleEvent('payment_info_submitted');
    expect(errorsOf(withField(input, 'data.checkout.totalPrice.amount', '68.18'))).toEqual([
      'data.checkout.totalPrice.amount: must be a number, got string',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.totalPrice.currencyCode', 'usd'))).toEqual([
      'data.checkout.totalPrice.currencyCode: must be a 3-letter ISO 4217 currency code such as USD, got "usd"',
    ]);
    expect(errorsOf(withoutField(input, 'data.checkout.currencyCode'))).toEqual([
      'data.checkout.currencyCode: is required',
    ]);
  });

  it('gives indexed paths inside line items', () => {
    const checkout = sampleCheckout();
    const third = sampleCheckout().lineItems[0];
    if (!third) throw new Error('sample has line items');
    const input = sampleEvent('checkout_started', {
      data: { checkout: { ...checkout, lineItems: [...checkout.lineItems, third] } },
    });
    accept(input);
    expect(errorsOf(withField(input, 'data.checkout.lineItems[2].quantity', '2'))).toEqual([
      'data.checkout.lineItems[2].quantity: must be a number, got string',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.lineItems[2].quantity', 1.5))).toEqual([
      'data.checkout.lineItems[2].quantity: must be an integer, got 1.5',
    ]);
    expect(errorsOf(withoutField(input, 'data.checkout.lineItems[1].variant.id'))).toEqual([
      'data.checkout.lineItems[1].variant.id: is required',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.lineItems[0].variant', null))).toEqual([
      'data.checkout.lineItems[0].variant: must be an object, got null',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.lineItems[2].finalLinePrice.amount', null))).toEqual([
      'data.checkout.lineItems[2].finalLinePrice.amount: must be a number, got null',
    ]);
  });

  it('requires lineItems to be an array', () => {
    expect(errorsOf(withField(sampleEvent('checkout_started'), 'data.checkout.lineItems', {}))).toEqual([
      'data.checkout.lineItems: must be an array, got object',
    ]);
  });

  it('accepts a null or absent email, rejects a non-string one', () => {
    const input = sampleEvent('checkout_contact_info_submitted');
    expect(accept(withField(input, 'data.checkout.email', null)).warnings).toEqual([]);
    expect(accept(withoutField(input, 'data.checkout.email')).warnings).toEqual(['data.checkout.email missing']);
    expect(errorsOf(withField(input, 'data.checkout.email', 42))).toEqual([
      'data.checkout.email: must be a string, got number',
    ]);
  });

  it('accepts a null or absent order before completion', () => {
    const input = sampleEvent('checkout_started');
    accept(withField(input, 'data.checkout.order', null));
    accept(withoutField(input, 'data.checkout.order'));
    accept(withField(input, 'data.checkout.order', { id: null, customer: null }));
  });

  it('requires the order id on checkout_completed', () => {
    const input = sampleEvent('checkout_completed');
    expect(errorsOf(withField(input, 'data.checkout.order', null))).toEqual([
      'data.checkout.order: must be the order {id, customer} on checkout_completed, got null',
    ]);
    expect(errorsOf(withoutField(input, 'data.checkout.order'))).toEqual(['data.checkout.order: is required']);
    expect(errorsOf(withField(input, 'data.checkout.order.id', null))).toEqual([
      'data.checkout.order.id: must be the order id (a string) on checkout_completed, got null',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.order.id', ''))).toEqual([
      'data.checkout.order.id: must not be empty',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.order.customer.isFirstOrder', 'yes'))).toEqual([
      'data.checkout.order.customer.isFirstOrder: must be a boolean, got string',
    ]);
  });

  it.each([
    ['buyerAcceptsEmailMarketing'],
    ['buyerAcceptsSmsMarketing'],
    ['discountsAmount'],
    ['localization'],
    ['delivery'],
    ['transactions'],
  ])('tolerates a missing %s with a warning', (member) => {
    const { warnings } = accept(withoutField(sampleEvent('checkout_completed'), `data.checkout.${member}`));
    expect(warnings).toEqual([`data.checkout.${member} missing`]);
  });

  it('type-checks tolerated members when present', () => {
    const input = sampleEvent('checkout_started');
    expect(errorsOf(withField(input, 'data.checkout.buyerAcceptsEmailMarketing', 'true'))).toEqual([
      'data.checkout.buyerAcceptsEmailMarketing: must be a boolean, got string',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.transactions[0]', { gateway: 'x' }))).toEqual([
      'data.checkout.transactions[0].amount: is required',
    ]);
    const completed = sampleEvent('checkout_completed');
    expect(errorsOf(withField(completed, 'data.checkout.transactions[0].paymentMethod', { name: 'VISA' }))).toEqual([
      'data.checkout.transactions[0].paymentMethod.type: is required',
    ]);
  });

  it('warns once per missing variant member, with [*] for the index', () => {
    let input = withoutField(sampleEvent('checkout_started'), 'data.checkout.lineItems[0].variant.sku');
    input = withoutField(input, 'data.checkout.lineItems[1].variant.sku');
    input = withoutField(input, 'data.checkout.lineItems[1].variant.image');
    input = withoutField(input, 'data.checkout.lineItems[1].variant.product.vendor');
    expect(accept(input).warnings).toEqual([
      'data.checkout.lineItems[*].variant.sku missing',
      'data.checkout.lineItems[*].variant.image.src missing',
      'data.checkout.lineItems[*].variant.product.vendor missing',
    ]);
  });
});

describe('validateEvent: catalogue and cart kinds', () => {
  it('product_viewed: strict on ids and price, tolerant on untranslated titles', () => {
    const input = sampleEvent('product_viewed');
    expect(errorsOf(withoutField(input, 'data.productVariant.id'))).toEqual(['data.productVariant.id: is required']);
    expect(errorsOf(withField(input, 'data.productVariant.product.id', null))).toEqual([
      'data.productVariant.product.id: must be a string, got null',
    ]);
    expect(errorsOf(withField(input, 'data.productVariant.price.amount', '25'))).toEqual([
      'data.productVariant.price.amount: must be a number, got string',
    ]);
    let tolerant = withoutField(input, 'data.productVariant.untranslatedTitle');
    tolerant = withoutField(tolerant, 'data.productVariant.product.untranslatedTitle');
    tolerant = withoutField(tolerant, 'data.productVariant.image.src');
    expect(accept(tolerant).warnings).toEqual([
      'data.productVariant.image.src missing',
      'data.productVariant.untranslatedTitle missing',
      'data.productVariant.product.untranslatedTitle missing',
    ]);
  });

  it('accepts the nulls Shopify sends', () => {
    const variant = sampleProductVariant({ image: null, sku: null, title: null, untranslatedTitle: null });
    const { warnings } = accept(sampleEvent('product_viewed', { data: { productVariant: variant } }));
    expect(warnings).toEqual([]);
  });

  it('collection_viewed: indexed errors, [*] warnings', () => {
    const input = sampleEvent('collection_viewed');
    expect(errorsOf(withoutField(input, 'data.collection.productVariants[1].price'))).toEqual([
      'data.collection.productVariants[1].price: is required',
    ]);
    expect(accept(withoutField(input, 'data.collection.productVariants[1].sku')).warnings).toEqual([
      'data.collection.productVariants[*].sku missing',
    ]);
  });

  it('search_submitted: query must be a string', () => {
    expect(errorsOf(withField(sampleEvent('search_submitted'), 'data.searchResult.query', 7))).toEqual([
      'data.searchResult.query: must be a string, got number',
    ]);
  });

  it('product_added_to_cart: needs a cart line with its total', () => {
    const input = sampleEvent('product_added_to_cart');
    expect(errorsOf(withoutField(input, 'data.cartLine.cost.totalAmount'))).toEqual([
      'data.cartLine.cost.totalAmount: is required',
    ]);
    expect(errorsOf(withField(input, 'data.cartLine', null))).toEqual([
      'data.cartLine: must be a cart line object (null is allowed on product_removed_from_cart only), got null',
    ]);
    expect(errorsOf(withoutField(input, 'data.cartLine'))).toEqual(['data.cartLine: is required']);
  });

  it('product_removed_from_cart: accepts a null cart line, checks a present one', () => {
    const input = sampleEvent('product_removed_from_cart');
    accept(withField(input, 'data.cartLine', null));
    expect(errorsOf(withField(input, 'data.cartLine.cost.totalAmount.currencyCode', 'EURO'))).toEqual([
      'data.cartLine.cost.totalAmount.currencyCode: must be a 3-letter ISO 4217 currency code such as USD, got "EURO"',
    ]);
  });

  it('cart_viewed: null cart is accepted, bad lines are reported by index', () => {
    const input = sampleEvent('cart_viewed');
    accept(withField(input, 'data.cart', null));
    expect(errorsOf(withField(input, 'data.cart.lines[1].quantity', -1))).toEqual([
      'data.cart.lines[1].quantity: must not be negative, got -1',
    ]);
    expect(accept(withoutField(input, 'data.cart.lines[0].merchandise.sku')).warnings).toEqual([
      'data.cart.lines[*].merchandise.sku missing',
    ]);
  });

  it('lead_form_submitted: requires lead.email', () => {
    const input = sampleEvent('lead_form_submitted');
    expect(errorsOf(withoutField(input, 'data.lead.email'))).toEqual(['data.lead.email: is required']);
    expect(errorsOf(withField(input, 'data.lead.email', 'jane at example'))).toEqual([
      'data.lead.email: must be an email address, got "jane at example"',
    ]);
    accept(withField(withField(input, 'data.lead.phone', null), 'data.lead.formId', null));
  });

  it('page_viewed: any data object', () => {
    accept(withField(sampleEvent('page_viewed'), 'data', { anything: true }));
  });
});
