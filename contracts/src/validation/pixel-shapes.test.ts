/**
 * What real Shopify Web Pixels send that the reference types do not say (see docs/decisions.md, Ingestion):
 * each tolerated difference, the `/collect` envelope defaults, the normalization of Shopify global ids and of
 * lead emails, and the fields that stay strict.
 */
import { CHECKOUT_EVENT_NAMES, type StorefrontEvent } from '../events';
import { COLLECT_DEFAULTS, validateEvent, type ValidateEventOptions } from './event';
import { formatFieldError } from './result';
import { sampleEvent, withField, withoutField } from '../../../test/support/samples';

const NOW = new Date('2025-01-12T05:00:00Z');
const COLLECT: Partial<ValidateEventOptions> = { clientIpFallback: '198.51.100.4', collectDefaults: true };

function check(input: unknown, opts: Partial<ValidateEventOptions> = {}): ReturnType<typeof validateEvent> {
  return validateEvent(input, { now: NOW, ...opts });
}

function errorsOf(input: unknown, opts: Partial<ValidateEventOptions> = {}): string[] {
  const result = check(input, opts);
  if (result.ok) throw new Error('expected the input to be rejected, but it was accepted');
  return result.errors.map(formatFieldError);
}

function accept(
  input: unknown,
  opts: Partial<ValidateEventOptions> = {},
): { value: StorefrontEvent; warnings: string[] } {
  const result = check(input, opts);
  if (!result.ok) throw new Error(`expected a valid event, got: ${result.errors.map(formatFieldError).join('; ')}`);
  return result;
}

/** The validated output validates again, strictly (as the pipeline does), to itself. */
function expectStable(value: StorefrontEvent): void {
  const again = accept(JSON.parse(JSON.stringify(value)));
  expect(again.value).toEqual(value);
}

const NON_COMPLETED_CHECKOUT_KINDS = CHECKOUT_EVENT_NAMES.filter((name) => name !== 'checkout_completed');

describe('/collect envelope defaults', () => {
  const bare = () => withoutField(withoutField(withoutField(sampleEvent('page_viewed'), 'seq'), 'type'), 'clientIp');

  it('fills a missing seq with 0, type with standard and clientIp from the request, without warnings', () => {
    const { value, warnings } = accept(bare(), COLLECT);
    expect(COLLECT_DEFAULTS).toEqual({ seq: 0, type: 'standard' });
    expect([value.seq, value.type, value.clientIp]).toEqual([0, 'standard', '198.51.100.4']);
    expect(warnings).toEqual([]);
    expectStable(value);
  });

  it('keeps seq and type that are present', () => {
    const { value } = accept(sampleEvent('page_viewed', { seq: 7, type: 'custom' }), COLLECT);
    expect([value.seq, value.type]).toEqual([7, 'custom']);
  });

  it('still type-checks them: null is not absent', () => {
    expect(errorsOf(withField(bare(), 'seq', null), COLLECT)).toEqual(['seq: must be a number, got null']);
    expect(errorsOf(withField(bare(), 'type', ''), COLLECT)).toEqual(['type: must not be empty']);
  });

  it('/api/events (no collect defaults) still requires seq and type, even with a clientIp fallback', () => {
    expect(errorsOf(bare(), { clientIpFallback: '198.51.100.4' })).toEqual(['seq: is required', 'type: is required']);
  });
});

describe('page_viewed without data', () => {
  it('is accepted with data {} and no warning', () => {
    const { value, warnings } = accept(withoutField(sampleEvent('page_viewed'), 'data'));
    expect(value.data).toEqual({});
    expect(warnings).toEqual([]);
    expectStable(value);
  });

  it('other kinds still require data', () => {
    expect(errorsOf(withoutField(sampleEvent('cart_viewed'), 'data'))).toEqual(['data: is required']);
    expect(errorsOf(withField(sampleEvent('page_viewed'), 'data', null))).toEqual([
      'data: must be an object, got null',
    ]);
  });
});

describe('checkout.order before completion', () => {
  it.each(NON_COMPLETED_CHECKOUT_KINDS)('%s accepts {}, null, an absent order and a null id', (name) => {
    const input = sampleEvent(name);
    for (const order of [{}, null, { id: null }, { id: null, customer: null }]) {
      expect(accept(withField(input, 'data.checkout.order', order)).warnings).toEqual([]);
    }
    accept(withoutField(input, 'data.checkout.order'));
  });

  it('checkout_completed must carry the order id', () => {
    const input = sampleEvent('checkout_completed');
    expect(errorsOf(withField(input, 'data.checkout.order', {}))).toEqual(['data.checkout.order.id: is required']);
    expect(errorsOf(withField(input, 'data.checkout.order', { customer: { id: '1' } }))).toEqual([
      'data.checkout.order.id: is required',
    ]);
  });
});

describe('addresses before the shopper typed them', () => {
  it.each(['billingAddress', 'shippingAddress'])('%s may be {}, null, absent or partial', (member) => {
    const input = sampleEvent('checkout_address_info_submitted');
    const partial = { country: 'IN', countryCode: 'IN', province: 'TS', provinceCode: 'TS' };
    for (const address of [{}, null, partial]) {
      const { value, warnings } = accept(withField(input, `data.checkout.${member}`, address));
      expect(warnings).toEqual([]);
      expectStable(value);
    }
    accept(withoutField(input, `data.checkout.${member}`));
  });

  it('type-checks the members that are present', () => {
    expect(
      errorsOf(withField(sampleEvent('checkout_started'), 'data.checkout.shippingAddress', { zip: 501510 })),
    ).toEqual(['data.checkout.shippingAddress.zip: must be a string, got number']);
  });
});

describe('shippingLine.price before a rate is chosen', () => {
  it('accepts {}', () => {
    const { warnings } = accept(
      withField(sampleEvent('checkout_started'), 'data.checkout.shippingLine', { price: {} }),
    );
    expect(warnings).toEqual([]);
  });

  it('refuses a half Money object', () => {
    expect(
      errorsOf(withField(sampleEvent('checkout_started'), 'data.checkout.shippingLine.price', { amount: 5 })),
    ).toEqual([
      'data.checkout.shippingLine.price: must be a Money object {amount, currencyCode}, or {} before a shipping rate is chosen, got object',
    ]);
  });
});

describe('members Shopify added later, absent from older pixels', () => {
  it('lineItems[].finalLinePrice: accepted with a warning; checked when present', () => {
    let input = withoutField(sampleEvent('checkout_completed'), 'data.checkout.lineItems[0].finalLinePrice');
    input = withoutField(input, 'data.checkout.lineItems[1].finalLinePrice');
    expect(accept(input).warnings).toEqual(['data.checkout.lineItems[*].finalLinePrice missing']);
    expect(
      errorsOf(withField(sampleEvent('checkout_started'), 'data.checkout.lineItems[1].finalLinePrice', { amount: 1 })),
    ).toEqual(['data.checkout.lineItems[1].finalLinePrice.currencyCode: is required']);
  });

  it('transactions[].paymentMethod: accepted with a warning', () => {
    const input = withoutField(sampleEvent('checkout_completed'), 'data.checkout.transactions[0].paymentMethod');
    expect(accept(input).warnings).toEqual(['data.checkout.transactions[*].paymentMethod missing']);
  });

  it('product.url: accepted with a warning wherever a variant appears', () => {
    const cases: [unknown, string][] = [
      [withoutField(sampleEvent('product_viewed'), 'data.productVariant.product.url'), 'data.productVariant'],
      [
        withoutField(sampleEvent('collection_viewed'), 'data.collection.productVariants[0].product.url'),
        'data.collection.productVariants[*]',
      ],
      [
        withoutField(sampleEvent('product_added_to_cart'), 'data.cartLine.merchandise.product.url'),
        'data.cartLine.merchandise',
      ],
      [
        withoutField(sampleEvent('checkout_started'), 'data.checkout.lineItems[0].variant.product.url'),
        'data.checkout.lineItems[*].variant',
      ],
    ];
    for (const [input, path] of cases) expect(accept(input).warnings).toEqual([`${path}.product.url missing`]);
    // null stays a valid "no URL".
    expect(accept(withField(sampleEvent('product_viewed'), 'data.productVariant.product.url', null)).warnings).toEqual(
      [],
    );
  });

  it('order.customer.isFirstOrder: accepted with a warning; no warning without a customer', () => {
    const input = sampleEvent('checkout_completed');
    expect(accept(withoutField(input, 'data.checkout.order.customer.isFirstOrder')).warnings).toEqual([
      'data.checkout.order.customer.isFirstOrder missing',
    ]);
    expect(accept(withField(input, 'data.checkout.order.customer', null)).warnings).toEqual([]);
    expect(accept(withoutField(input, 'data.checkout.order.customer')).warnings).toEqual([]);
  });
});

describe('the all-products collection', () => {
  it('has an empty id', () => {
    const { value } = accept(withField(sampleEvent('collection_viewed'), 'data.collection.id', ''));
    if (value.name !== 'collection_viewed') throw new Error('wrong kind');
    expect(value.data.collection.id).toBe('');
  });

  it('the id must still be a string', () => {
    expect(errorsOf(withField(sampleEvent('collection_viewed'), 'data.collection.id', null))).toEqual([
      'data.collection.id: must be a string, got null',
    ]);
  });
});

describe('Shopify global ids of orders and customers', () => {
  const completed = (orderId: unknown, customerId: unknown = '7001234567890') =>
    withField(
      withField(sampleEvent('checkout_completed'), 'data.checkout.order.id', orderId),
      'data.checkout.order.customer.id',
      customerId,
    );

  function orderOf(input: unknown): { id: string; customer: string | null | undefined } {
    const { value } = accept(input);
    if (value.name !== 'checkout_completed') throw new Error('wrong kind');
    return { id: value.data.checkout.order.id, customer: value.data.checkout.order.customer?.id };
  }

  it.each([
    ['gid://shopify/OrderIdentity/5396439498987', '5396439498987'],
    ['gid://shopify/Order/5396439498987', '5396439498987'],
    ['5396439498987', '5396439498987'],
  ])('order id %s is the number %s', (sent, id) => {
    expect(orderOf(completed(sent)).id).toBe(id);
    const { value } = accept(completed(sent));
    expectStable(value);
  });

  it('customer id gid://shopify/Customer/<n> is the number', () => {
    expect(orderOf(completed('1', 'gid://shopify/Customer/6800000000001')).customer).toBe('6800000000001');
    expect(orderOf(completed('1', null)).customer).toBeNull();
  });

  it('an order id that is there before completion is normalized too', () => {
    const { value } = accept(
      withField(sampleEvent('checkout_started'), 'data.checkout.order', {
        id: 'gid://shopify/OrderIdentity/42',
        customer: { id: 'gid://shopify/Customer/7' },
      }),
    );
    if (value.name !== 'checkout_started') throw new Error('wrong kind');
    expect(value.data.checkout.order).toEqual({ id: '42', customer: { id: '7' } });
  });

  it('keeps an id that is not a global id as sent (other storefronts)', () => {
    expect(orderOf(completed('ord_29xk3')).id).toBe('ord_29xk3');
  });

  it.each([
    ['gid://shopify/Product/5396439498987', 'order id'],
    ['gid://shopify/Order/abc', 'order id'],
    ['gid://shopify/Order/', 'order id'],
    ['gid://shopify/OrderIdentity/12?key=x', 'order id'],
  ])('refuses the order id %s by name', (sent) => {
    expect(errorsOf(completed(sent))).toEqual([
      `data.checkout.order.id: must be an order id (digits or gid://shopify/Order|OrderIdentity/<digits>), got "${sent}"`,
    ]);
  });

  it('refuses an order gid where the customer id is expected', () => {
    expect(errorsOf(completed('1', 'gid://shopify/Order/9'))).toEqual([
      'data.checkout.order.customer.id: must be a customer id (digits or gid://shopify/Customer/<digits>), got "gid://shopify/Order/9"',
    ]);
  });

  it('still requires a non-empty string order id on checkout_completed', () => {
    expect(errorsOf(completed(''))).toEqual(['data.checkout.order.id: must not be empty']);
    expect(errorsOf(completed(5396439498987))).toEqual([
      'data.checkout.order.id: must be the order id (a string) on checkout_completed, got number',
    ]);
  });
});

describe('lead-form emails', () => {
  const lead = (email: unknown) => withField(sampleEvent('lead_form_submitted'), 'data.lead.email', email);

  it('are trimmed and lower-cased, like checkout emails for identity', () => {
    const { value } = accept(lead('  Jane.Doe@Example.COM\n'));
    if (value.name !== 'lead_form_submitted') throw new Error('wrong kind');
    expect(value.data.lead.email).toBe('jane.doe@example.com');
    expectStable(value);
  });

  it('must still look like an address once trimmed', () => {
    expect(errorsOf(lead('   '))).toEqual(['data.lead.email: must be an email address, got ""']);
    expect(errorsOf(lead('jane at example'))).toEqual([
      'data.lead.email: must be an email address, got "jane at example"',
    ]);
    expect(errorsOf(lead(null))).toEqual(['data.lead.email: must be a string, got null']);
  });
});

describe('still strict where the product depends on a field', () => {
  it.each(CHECKOUT_EVENT_NAMES)('%s: checkout token, amounts, currencies and line items', (name) => {
    const input = withoutField(sampleEvent(name), 'seq');
    const opts = COLLECT;
    expect(errorsOf(withoutField(input, 'data.checkout.token'), opts)).toEqual(['data.checkout.token: is required']);
    expect(errorsOf(withoutField(input, 'data.checkout.lineItems'), opts)).toEqual([
      'data.checkout.lineItems: is required',
    ]);
    expect(errorsOf(withoutField(input, 'data.checkout.lineItems[0].variant.id'), opts)).toEqual([
      'data.checkout.lineItems[0].variant.id: is required',
    ]);
    expect(errorsOf(withField(input, 'data.checkout.totalPrice', {}), opts)).toEqual([
      'data.checkout.totalPrice.amount: is required',
      'data.checkout.totalPrice.currencyCode: is required',
    ]);
  });

  it('product and variant ids may not be empty', () => {
    expect(errorsOf(withField(sampleEvent('product_viewed'), 'data.productVariant.product.id', ''))).toEqual([
      'data.productVariant.product.id: must not be empty',
    ]);
  });
});
