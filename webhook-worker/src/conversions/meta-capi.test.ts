import { metaEventsBody, metaServerEvent } from './meta-capi';
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';

const purchase: QueuedPurchase = {
  orderId: '7000000000000000123',
  occurredAt: '2026-11-20T12:00:00.000Z',
  value: '120.50',
  currency: 'EUR',
  lines: [
    { productId: '8950316581081', variantId: '45737128657113', quantity: 2, price: '40.25' },
    { productId: '8950316581082', variantId: '', quantity: 1, price: '40.00' },
  ],
  pageUrl: 'https://shop.example/checkouts/c/abc/thank-you',
  email: 'John_Smith@gmail.com',
  phone: '+1 (650) 555-1212',
  firstName: 'Mary',
  lastName: '',
  clientIp: '203.0.113.9',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
  fbp: 'fb.1.1596403881668.1116446470',
  clickIds: { fbc: 'fb.1.1763553600000.IwAR2F4', google: null, ttclid: null },
};

describe('metaServerEvent', () => {
  it('is a website Purchase with the order id as event id, hashed user data and exact value', () => {
    expect(metaServerEvent(purchase)).toEqual({
      event_name: 'Purchase',
      event_time: 1795176000, // 2026-11-20T12:00:00Z in seconds
      event_id: '7000000000000000123',
      action_source: 'website',
      event_source_url: 'https://shop.example/checkouts/c/abc/thank-you',
      user_data: {
        // Meta's documented hashes of these normalised values (test/fixtures/meta/README.md).
        em: ['62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f'],
        ph: ['e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176'],
        fn: ['6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec'],
        client_ip_address: '203.0.113.9',
        client_user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
        fbc: 'fb.1.1763553600000.IwAR2F4',
        fbp: 'fb.1.1596403881668.1116446470',
      },
      custom_data: {
        currency: 'EUR',
        value: 120.5,
        order_id: '7000000000000000123',
        content_type: 'product',
        contents: [
          { id: '45737128657113', quantity: 2, item_price: 40.25 },
          { id: '8950316581082', quantity: 1, item_price: 40 },
        ],
      },
    });
  });

  it('sends nothing in clear and leaves out what the person has not given', () => {
    const bare = metaServerEvent({ ...purchase, phone: '', firstName: '', fbp: '', clientIp: '', pageUrl: '' });
    expect(Object.keys(bare.user_data).sort()).toEqual(['client_user_agent', 'em', 'fbc']);
    expect(bare.event_source_url).toBeUndefined();
    expect(JSON.stringify(metaServerEvent(purchase))).not.toMatch(/john_smith|650|Mary/i);
  });
});

describe('metaEventsBody', () => {
  it('carries the test event code when the destination has one', () => {
    expect(JSON.parse(metaEventsBody([purchase], 'TEST12345'))).toMatchObject({ test_event_code: 'TEST12345' });
    expect(JSON.parse(metaEventsBody([purchase]))).not.toHaveProperty('test_event_code');
  });

  it('refuses an empty batch and one over 1,000 events', () => {
    expect(() => metaEventsBody([])).toThrow(RangeError);
    expect(() => metaEventsBody(Array.from({ length: 1001 }, () => purchase))).toThrow(RangeError);
  });
});
