import fs from 'node:fs';
import path from 'node:path';
import { validateOrder } from '../../../../contracts/src/validation';
import { parseExactJson } from './exact-json';
import type { HookAction, JsonObject } from './types';
import { mapWooWebhook, wooAttribution } from './woocommerce-mapper';

const FIXTURES = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'woocommerce');
const sample = (file: string): JsonObject =>
  parseExactJson(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as JsonObject;

const orderOf = (action: HookAction): JsonObject => {
  if (action.kind !== 'order') throw new Error(`expected an order, got ${JSON.stringify(action)}`);
  return action.order;
};

/** WooCommerce's order attribution meta (keys as its OrderAttributionMeta trait writes them). */
const attribution = (fields: Record<string, string>): Map<string, string> =>
  new Map(Object.entries(fields).map(([k, v]) => [`_wc_order_attribution_${k}`, v]));

describe('mapWooWebhook', () => {
  it('maps the documented guest order: total, currency, UTC times, line items, no customer', () => {
    const action = mapWooWebhook('order.created', sample('order-727.json'));
    expect(action).toMatchObject({ kind: 'order', orderId: '727', restored: false });
    const order = orderOf(action);
    expect(order).toEqual({
      id: 727,
      name: '#727',
      email: 'john.doe@example.com',
      created_at: '2017-03-22T19:28:02Z',
      updated_at: '2017-03-22T19:28:08Z',
      processed_at: '2017-03-22T19:28:08Z',
      cancelled_at: null,
      currency: 'USD',
      total_price: '29.35',
      total_discounts: '0.00',
      total_tax: '1.35',
      financial_status: 'paid',
      landing_site: null,
      referring_site: null,
      customer: null,
      line_items: [
        // A simple product (variation 0) is its own variant; prices arrive as JSON numbers.
        { id: 315, product_id: '93', variant_id: '93', title: 'Woo Single #1', sku: null, quantity: 2, price: '3' },
        {
          id: 316,
          product_id: '22',
          variant_id: '23',
          title: 'Ship Your Idea &ndash; Color: Black, Size: M Test',
          sku: 'Bar3',
          quantity: 1,
          price: '12',
        },
      ],
      refunds: [],
    });
    expect(validateOrder(order).ok).toBe(true);
  });

  it('takes the refunds (negative totals) off as refund transactions, and names the customer', () => {
    const order = orderOf(mapWooWebhook('order.updated', sample('order-723-refunds.json')));
    expect(order).toMatchObject({
      total_price: '39.00',
      financial_status: 'paid',
      cancelled_at: null,
      customer: { id: '26', email: 'joao.silva@example.com', first_name: 'João', last_name: 'Silva' },
      refunds: [
        {
          id: 726,
          created_at: '2017-03-21T19:54:51Z',
          transactions: [{ amount: '10.00', kind: 'refund', status: 'success' }],
        },
        {
          id: 724,
          created_at: '2017-03-21T19:54:51Z',
          transactions: [{ amount: '9.00', kind: 'refund', status: 'success' }],
        },
      ],
    });
  });

  it('an order that is not a purchase is cancelled at its modification time', () => {
    const base = sample('order-727.json');
    for (const status of ['cancelled', 'failed', 'trash', 'checkout-draft'])
      expect(orderOf(mapWooWebhook('order.updated', { ...base, status }))).toMatchObject({
        cancelled_at: '2017-03-22T19:28:08Z',
      });
    for (const status of ['pending', 'on-hold', 'processing', 'completed', 'refunded'])
      expect(orderOf(mapWooWebhook('order.updated', { ...base, status })).cancelled_at).toBeNull();
    expect(orderOf(mapWooWebhook('order.updated', { ...base, status: 'refunded' })).financial_status).toBe('refunded');
  });

  it('keeps an id above 2^53 exact, the tracker client id as the cart attribute; deletion and restore', () => {
    const body = parseExactJson('{"id":9007199254740993,"number":"A-1","total":"5.00","currency":"EUR"}') as JsonObject;
    const order = orderOf(
      mapWooWebhook('order.restored', { ...body, meta_data: [{ id: 1, key: '_oa_client_id', value: ' c-42 ' }] }),
    );
    expect(order).toMatchObject({ id: '9007199254740993', name: '#A-1', currency: 'EUR' });
    expect(order.note_attributes).toEqual([{ name: '_oa_client_id', value: 'c-42' }]);
    expect(mapWooWebhook('order.restored', body)).toMatchObject({ orderId: '9007199254740993', restored: true });
    expect(mapWooWebhook('order.deleted', parseExactJson('{"id":9007199254740993}'))).toEqual({
      kind: 'delete',
      orderId: '9007199254740993',
    });
    expect(mapWooWebhook('order.deleted', { id: 'x' })).toMatchObject({ kind: 'invalid', field: 'order.id' });
    expect(mapWooWebhook('order.created', 'text')).toMatchObject({ kind: 'invalid', field: 'body' });
    expect(mapWooWebhook('product.created', {})).toEqual({ kind: 'ignore', topic: 'product.created' });
  });
});

describe('wooAttribution (WooCommerce order attribution meta)', () => {
  it('utm: the entry page with its UTMs, the referrer kept; UTMs of the entry page win', () => {
    expect(
      wooAttribution(
        attribution({
          source_type: 'utm',
          utm_source: 'google',
          utm_medium: 'cpc',
          utm_campaign: 'x',
          utm_content: '(none)',
          utm_term: 'shoes',
          referrer: 'https://www.google.com/',
          session_entry: 'https://shop.example/p/1?color=red',
        }),
      ),
    ).toEqual({
      landing_site: '/p/1?color=red&utm_source=google&utm_medium=cpc&utm_campaign=x&utm_term=shoes',
      referring_site: 'https://www.google.com/',
    });
    expect(
      wooAttribution(
        attribution({
          source_type: 'utm',
          utm_source: 'meta',
          session_entry: 'https://shop.example/?utm_source=newsletter',
        }),
      ),
    ).toEqual({ landing_site: '/?utm_source=newsletter', referring_site: null });
  });

  it('organic and referral: the referrer, else their source and medium', () => {
    expect(
      wooAttribution(
        attribution({
          source_type: 'organic',
          utm_source: 'google',
          utm_medium: 'organic',
          referrer: 'https://www.google.com/',
          session_entry: 'https://shop.example/',
        }),
      ),
    ).toEqual({ landing_site: '/', referring_site: 'https://www.google.com/' });
    expect(wooAttribution(attribution({ source_type: 'organic', utm_source: 'bing', utm_medium: 'organic' }))).toEqual({
      landing_site: '/?utm_source=bing&utm_medium=organic',
      referring_site: null,
    });
    expect(
      wooAttribution(
        attribution({
          source_type: 'referral',
          utm_source: 'blog.example.org',
          utm_medium: 'referral',
          referrer: 'https://blog.example.org/post',
          session_entry: '/sale',
        }),
      ),
    ).toEqual({ landing_site: '/sale', referring_site: 'https://blog.example.org/post' });
  });

  it('typein is the entry page alone (direct); admin, mobile_app and none are no touch', () => {
    expect(
      wooAttribution(
        attribution({ source_type: 'typein', utm_source: '(direct)', session_entry: 'https://shop.example/a' }),
      ),
    ).toEqual({ landing_site: '/a', referring_site: null });
    expect(wooAttribution(attribution({ source_type: 'typein' }))).toEqual({ landing_site: '/', referring_site: null });
    for (const type of ['admin', 'mobile_app', '(none)'])
      expect(
        wooAttribution(attribution({ source_type: type, utm_source: 'Web admin', referrer: 'https://x.example/' })),
      ).toEqual({ landing_site: null, referring_site: null });
    expect(wooAttribution(new Map())).toEqual({ landing_site: null, referring_site: null });
  });

  it('reads the meta of an order body under the keys WooCommerce writes', () => {
    const order = orderOf(
      mapWooWebhook('order.created', {
        ...sample('order-727.json'),
        meta_data: [
          { id: 1, key: '_wc_order_attribution_source_type', value: 'utm' },
          { id: 2, key: '_wc_order_attribution_utm_source', value: 'google' },
          { id: 3, key: '_wc_order_attribution_utm_medium', value: 'cpc' },
          { id: 4, key: '_wc_order_attribution_utm_campaign', value: 'x' },
          { id: 5, key: '_wc_order_attribution_session_entry', value: 'https://example.com/' },
          { id: 6, key: '_wc_order_attribution_referrer', value: 'https://www.google.com/' },
        ],
      }),
    );
    expect(order).toMatchObject({
      landing_site: '/?utm_source=google&utm_medium=cpc&utm_campaign=x',
      referring_site: 'https://www.google.com/',
    });
  });
});
