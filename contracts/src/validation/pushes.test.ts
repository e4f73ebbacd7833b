import { validateAdSpendRow, validateCustomer, validateOrder, validateProduct } from './pushes';
import { formatFieldError, type ValidationResult } from './result';
import {
  sampleAdSpendRow,
  sampleCustomer,
  sampleOrder,
  sampleProduct,
  withField,
  withoutField,
} from '../../../test/support/samples';

function errorsOf<T>(result: ValidationResult<T>): string[] {
  if (result.ok) throw new Error('expected the input to be rejected, but it was accepted');
  return result.errors.map(formatFieldError);
}

function valueOf<T>(result: ValidationResult<T>): T {
  if (!result.ok) throw new Error(`expected a valid input, got: ${result.errors.map(formatFieldError).join('; ')}`);
  return result.value;
}

describe('validateOrder', () => {
  it('accepts the sample unchanged, with extra members kept', () => {
    const input = withField(sampleOrder(), 'source_name', 'web');
    const result = validateOrder(input);
    expect(result).toEqual({ ok: true, value: input, warnings: [] });
  });

  it('turns numeric ids into strings, everywhere', () => {
    let input = withField(sampleOrder(), 'id', 5512345678901);
    input = withField(input, 'customer.id', 7001234567890);
    input = withField(input, 'line_items[1].variant_id', 45737128689881);
    input = withField(input, 'line_items[1].product_id', null);
    const order = valueOf(validateOrder(input));
    expect(order.id).toBe('5512345678901');
    expect(order.customer?.id).toBe('7001234567890');
    expect(order.line_items[1]?.variant_id).toBe('45737128689881');
    expect(order.line_items[1]?.product_id).toBeNull();
  });

  it.each([
    ['a fraction', 1.5, 'id: must be an integer or a string of digits, got 1.5'],
    ['a negative number', -3, 'id: must not be negative, got -3'],
    ['an unsafe integer', 2 ** 60, 'id: must be at most 9007199254740991, got 1152921504606847000'],
    ['a non-digit string', 'gid://shopify/Order/1', 'id: must be a string of digits, got "gid://shopify/Order/1"'],
    ['a boolean', true, 'id: must be an integer or a string of digits, got true'],
  ])('rejects an id that is %s', (_label, id, message) => {
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'id', id)))).toEqual([message]);
  });

  it('accepts a large id sent as a string, up to 2^63 - 1', () => {
    expect(valueOf(validateOrder(withField(sampleOrder(), 'id', '9223372036854775807'))).id).toBe(
      '9223372036854775807',
    );
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'id', '9223372036854775808')))).toEqual([
      'id: must be at most 9223372036854775807, got "9223372036854775808"',
    ]);
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'id', '18446744073709551615')))).toEqual([
      'id: must be at most 9223372036854775807, got "18446744073709551615"',
    ]);
  });

  it.each(['id', 'created_at', 'updated_at', 'currency', 'total_price', 'line_items'])('requires %s', (field) => {
    expect(errorsOf(validateOrder(withoutField(sampleOrder(), field)))).toEqual([`${field}: is required`]);
  });

  it('accepts cart attributes (note_attributes), naming the field of a bad one', () => {
    const attributes = [
      { name: '_oa_client_id', value: 'c0ffee00-0000-4000-8000-000000000042' },
      { name: 'gift_note', value: null },
      { name: 'empty' },
    ];
    expect(valueOf(validateOrder(withField(sampleOrder(), 'note_attributes', attributes))).note_attributes).toEqual(
      attributes,
    );
    valueOf(validateOrder(withField(sampleOrder(), 'note_attributes', null)));
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'note_attributes', [{ name: 'x', value: 42 }])))).toEqual([
      'note_attributes[0].value: must be a string, got number',
    ]);
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'note_attributes', [{ value: 'x' }])))).toEqual([
      'note_attributes[0].name: is required',
    ]);
  });

  it('checks decimal strings', () => {
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'total_price', 68.18)))).toEqual([
      'total_price: must be a non-negative decimal string such as "19.99", got number',
    ]);
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'total_tax', '4,68')))).toEqual([
      'total_tax: must be a non-negative decimal string such as "19.99", got "4,68"',
    ]);
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'line_items[1].price', '-8.50')))).toEqual([
      'line_items[1].price: must be a non-negative decimal string such as "19.99", got "-8.50"',
    ]);
  });

  it('checks timestamps, and accepts a Shopify offset', () => {
    valueOf(validateOrder(withField(sampleOrder(), 'updated_at', '2025-01-11T23:31:12-05:00')));
    expect(errorsOf(validateOrder(withField(sampleOrder(), 'updated_at', '2025-01-12')))).toEqual([
      'updated_at: must be an ISO 8601 timestamp with a time zone (e.g. 2025-01-12T04:30:54.751Z), got "2025-01-12"',
    ]);
    valueOf(validateOrder(withField(sampleOrder(), 'cancelled_at', '2025-01-13T10:00:00Z')));
  });

  it('gives indexed paths in refunds', () => {
    const input = withField(sampleOrder(), 'refunds', [
      {
        id: 1,
        created_at: '2025-01-14T10:00:00Z',
        transactions: [{ amount: '8.50', kind: 'refund', status: 'success' }],
      },
      { id: 2, created_at: '2025-01-15T10:00:00Z', transactions: [{ amount: 8.5, kind: 'refund' }] },
    ]);
    expect(errorsOf(validateOrder(input))).toEqual([
      'refunds[1].transactions[0].amount: must be a non-negative decimal string such as "19.99", got number',
      'refunds[1].transactions[0].status: is required',
    ]);
  });

  it('rejects a non-object', () => {
    expect(errorsOf(validateOrder([sampleOrder()]))).toEqual(['order: must be an object, got array']);
  });
});

describe('validateProduct', () => {
  it('accepts the sample, with ids normalized', () => {
    const input = withField(withField(sampleProduct(), 'id', 8950316581081), 'variants[0].id', 45737128657113);
    const product = valueOf(validateProduct(input));
    expect(product.id).toBe('8950316581081');
    expect(product.variants[0]?.id).toBe('45737128657113');
    expect(product.variants[0]?.cost).toBe('9.40');
  });

  it('checks the cost extension and variant prices', () => {
    valueOf(validateProduct(withField(sampleProduct(), 'variants[0].cost', null)));
    expect(errorsOf(validateProduct(withField(sampleProduct(), 'variants[0].cost', 'n/a')))).toEqual([
      'variants[0].cost: must be a non-negative decimal string such as "19.99", got "n/a"',
    ]);
    expect(errorsOf(validateProduct(withoutField(sampleProduct(), 'variants[0].price')))).toEqual([
      'variants[0].price: is required',
    ]);
  });

  it('requires updated_at', () => {
    expect(errorsOf(validateProduct(withoutField(sampleProduct(), 'updated_at')))).toEqual(['updated_at: is required']);
  });
});

describe('validateCustomer', () => {
  it('accepts the sample and a minimal customer', () => {
    expect(validateCustomer(sampleCustomer())).toEqual({ ok: true, value: sampleCustomer(), warnings: [] });
    const minimal = { id: 42, created_at: '2025-01-12T04:31:10Z', updated_at: '2025-01-12T04:31:10Z' };
    expect(valueOf(validateCustomer(minimal))).toEqual({ ...minimal, id: '42' });
  });

  it('normalizes address ids', () => {
    let input = withField(sampleCustomer(), 'addresses[0].id', 9101234567890);
    input = withField(input, 'addresses[0].customer_id', 7001234567890);
    input = withField(input, 'last_order_id', 5512345678901);
    const customer = valueOf(validateCustomer(input));
    expect(customer.addresses?.[0]?.id).toBe('9101234567890');
    expect(customer.addresses?.[0]?.customer_id).toBe('7001234567890');
    expect(customer.last_order_id).toBe('5512345678901');
  });

  it('checks state, counts and consent', () => {
    expect(errorsOf(validateCustomer(withField(sampleCustomer(), 'state', 'active')))).toEqual([
      'state: must be one of disabled, enabled, invited, declined, got "active"',
    ]);
    expect(errorsOf(validateCustomer(withField(sampleCustomer(), 'orders_count', '1')))).toEqual([
      'orders_count: must be a number, got string',
    ]);
    expect(errorsOf(validateCustomer(withoutField(sampleCustomer(), 'email_marketing_consent.state')))).toEqual([
      'email_marketing_consent.state: is required',
    ]);
  });

  it('requires created_at and updated_at', () => {
    expect(
      errorsOf(validateCustomer(withoutField(withoutField(sampleCustomer(), 'created_at'), 'updated_at'))),
    ).toEqual(['created_at: is required', 'updated_at: is required']);
  });
});

describe('validateAdSpendRow', () => {
  it('accepts the sample and normalizes numeric ids', () => {
    expect(validateAdSpendRow(sampleAdSpendRow())).toEqual({ ok: true, value: sampleAdSpendRow(), warnings: [] });
    const row = valueOf(
      validateAdSpendRow(withField(sampleAdSpendRow({ platform: 'google' }), 'campaign_id', 21034567890)),
    );
    expect(row.campaign_id).toBe('21034567890');
  });

  it('accepts a campaign-level row with empty ad set and ad', () => {
    valueOf(validateAdSpendRow(sampleAdSpendRow({ adset_id: '', adset_name: '', ad_id: '', ad_name: '' })));
  });

  it.each([
    ['date', '2025-1-12', 'date: must be a date in the form YYYY-MM-DD, got "2025-1-12"'],
    ['date', '2025-02-30', 'date: must be a date in the form YYYY-MM-DD, got "2025-02-30"'],
    ['spend', -1, 'spend: must not be negative, got -1'],
    ['spend', '12.50', 'spend: must be a number, got string'],
    ['impressions', 10.5, 'impressions: must be an integer, got 10.5'],
    ['clicks', -2, 'clicks: must not be negative, got -2'],
    ['conversion_value', null, 'conversion_value: must be a number, got null'],
    ['currency', 'US', 'currency: must be a 3-letter ISO 4217 currency code such as USD, got "US"'],
    ['account_id', '', 'account_id: must not be empty'],
    ['source', '', 'source: must not be empty'],
    [
      'updated_at',
      'yesterday',
      'updated_at: must be an ISO 8601 timestamp with a time zone (e.g. 2025-01-12T04:30:54.751Z), got "yesterday"',
    ],
  ])('rejects %s = %p', (field, value, message) => {
    expect(errorsOf(validateAdSpendRow(withField(sampleAdSpendRow(), field, value)))).toEqual([message]);
  });

  it('makes updated_at optional', () => {
    valueOf(validateAdSpendRow(withoutField(sampleAdSpendRow(), 'updated_at')));
  });

  it('warns about an unknown platform', () => {
    const result = validateAdSpendRow(sampleAdSpendRow({ platform: 'reddit' }));
    expect(result.ok && result.warnings).toEqual(['platform unknown']);
  });
});
