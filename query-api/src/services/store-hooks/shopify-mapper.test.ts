import fs from 'node:fs';
import path from 'node:path';
import { validateOrder } from '../../../../contracts/src/validation';
import { parseExactJson } from './exact-json';
import { mapShopifyWebhook } from './shopify-mapper';
import type { HookAction, JsonObject } from './types';

const FIXTURES = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'shopify');
const sample = (file: string): unknown => parseExactJson(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));

const orderOf = (action: HookAction): JsonObject => {
  if (action.kind !== 'order') throw new Error(`expected an order, got ${JSON.stringify(action)}`);
  return action.order;
};

describe('mapShopifyWebhook', () => {
  it("keeps the recorded order's ids above 2^53 as their exact digits, its totals, currency and test flag", () => {
    const action = mapShopifyWebhook('orders/create', sample('orders-create.json'));
    expect(action).toMatchObject({ kind: 'order', orderId: '820982911946154508', restored: false });
    const order = orderOf(action);
    // 820982911946154508 as a JavaScript number would be 820982911946154500.
    expect(order.id).toBe('820982911946154508');
    expect(order.customer).toEqual({
      id: '115310627314723954',
      email: 'john@example.com',
      first_name: 'John',
      last_name: 'Smith',
    });
    expect(order).toMatchObject({
      name: '#9999',
      email: 'jon@example.com',
      currency: 'USD',
      total_price: '404.95',
      total_discounts: '20.00',
      financial_status: 'voided',
      cancelled_at: '2021-12-31T19:00:00-05:00',
      test: true,
      refunds: [],
      note_attributes: [],
    });
    const lines = order.line_items as JsonObject[];
    expect(lines).toHaveLength(5);
    expect(lines[0]).toEqual({
      id: '487817672276298554',
      variant_id: null,
      product_id: '788032119674292922',
      title: 'Aviator sunglasses',
      variant_title: null,
      sku: 'SKU2006-001',
      vendor: null,
      quantity: 1,
      price: '89.99',
    });
    // What it keeps is a valid order push.
    expect(validateOrder(order).ok).toBe(true);
  });

  it('keeps a safe integer id as the number it is, and reads contact_email, an empty email and note values', () => {
    const order = orderOf(
      mapShopifyWebhook('orders/updated', {
        id: 450789469,
        contact_email: '',
        customer: { id: null, email: 'x@example.com' },
        note_attributes: [
          { name: '_oa_client_id', value: 'c-1' },
          { name: 'n', value: 7 },
        ],
        unknown_member: 'dropped',
      }),
    );
    expect(order).toEqual({
      id: 450789469,
      email: null,
      line_items: [],
      refunds: [],
      note_attributes: [
        { name: '_oa_client_id', value: 'c-1' },
        { name: 'n', value: '7' },
      ],
    });
  });

  it('maps a refund to its money movements, the order named exactly', () => {
    const body = parseExactJson(
      '{"id":9100000000000000777,"order_id":9100000000000000002,"processed_at":"2022-01-03T10:00:00-05:00",' +
        '"note":"x","transactions":[{"id":9100000000000000888,"kind":"refund","status":"success","amount":"75.00","gateway":"bogus"}]}',
    );
    expect(mapShopifyWebhook('refunds/create', body)).toEqual({
      kind: 'refund',
      orderId: '9100000000000000002',
      refund: {
        id: '9100000000000000777',
        created_at: '2022-01-03T10:00:00-05:00',
        transactions: [{ amount: '75.00', kind: 'refund', status: 'success' }],
      },
    });
  });

  it('names the field of a body that does not have the shape of its topic', () => {
    expect(mapShopifyWebhook('orders/create', [1])).toEqual({
      kind: 'invalid',
      field: 'body',
      message: 'must be a JSON object (an Order)',
    });
    expect(mapShopifyWebhook('orders/paid', { id: 1.5 })).toMatchObject({ kind: 'invalid', field: 'order.id' });
    expect(mapShopifyWebhook('orders/paid', { id: -3 })).toMatchObject({ kind: 'invalid', field: 'order.id' });
    expect(mapShopifyWebhook('refunds/create', { id: 1 })).toMatchObject({ kind: 'invalid', field: 'refund.order_id' });
    expect(mapShopifyWebhook('refunds/create', { order_id: 1 })).toMatchObject({ kind: 'invalid', field: 'refund.id' });
    expect(mapShopifyWebhook('orders/delete', {})).toMatchObject({ kind: 'invalid', field: 'order.id' });
  });

  it('deletion, the privacy topics and the topics it does not use', () => {
    expect(mapShopifyWebhook('orders/delete', parseExactJson('{"id":9007199254740993}'))).toEqual({
      kind: 'delete',
      orderId: '9007199254740993',
    });
    const customer = { emails: ['john@example.com'], customerIds: ['191167'], clientIds: [] };
    expect(mapShopifyWebhook('customers/data_request', sample('customers-data_request.json'))).toEqual({
      kind: 'privacy',
      topic: 'customers/data_request',
      request: { kind: 'export', subject: { ...customer, orderIds: ['299938', '280263', '220458'] } },
    });
    expect(mapShopifyWebhook('customers/redact', sample('customers-redact.json'))).toEqual({
      kind: 'privacy',
      topic: 'customers/redact',
      request: { kind: 'erase', subject: { ...customer, orderIds: ['299938', '280263', '220458'] } },
    });
    expect(mapShopifyWebhook('shop/redact', sample('shop-redact.json'))).toEqual({
      kind: 'privacy',
      topic: 'shop/redact',
      request: { kind: 'delete_store' },
    });
    expect(mapShopifyWebhook('products/create', {})).toEqual({ kind: 'ignore', topic: 'products/create' });
  });
});
