import { AD_CONVERSION_WINDOW_MS, decidePurchase, newPurchases, type BuyerContext } from './ad-conversions';
import type { ConversionView, PersonFacts, PersonView } from './recompute-person';
import { makeEvent } from '../../../test/support/fact-builders';

const T = Date.parse('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

const conversion = (over: Partial<ConversionView> = {}): ConversionView =>
  ({
    goal: 'purchase',
    key: '7000000000000000123',
    clientId: 'c1',
    at: T,
    valueMicros: 1_234_560_000,
    valueOrig: 1234.56,
    currencyOrig: 'EUR',
    orderId: '7000000000000000123',
    eventId: 'done',
    ...over,
  }) as ConversionView;

const facts: PersonFacts = {
  personId: 'p1',
  clientIds: ['c1'],
  events: [
    makeEvent({ eventId: 'l1', at: T - 50 * HOUR, pageUrl: 'https://shop.example/?fbclid=FB1' }),
    makeEvent({ eventId: 'l2', at: T - 26 * HOUR, pageUrl: 'https://shop.example/?gclid=G1' }),
    makeEvent({ eventId: 'l3', at: T - 2 * HOUR, pageUrl: 'https://shop.example/?ttclid=TT1' }),
    makeEvent({
      eventId: 'done',
      name: 'checkout_completed',
      at: T,
      pageUrl: 'https://shop.example/thank-you',
      email: 'Jane@Example.com',
      orderId: '7000000000000000123',
      items: [['8950316581081', '45737128657113', 2, 24000]],
    }),
  ],
  orders: [],
  resolveLink: () => null,
  variantCost: () => undefined,
} as unknown as PersonFacts;

const session = (id: string, at: number) => ({ landingEventId: id, startedAt: at, clientId: 'c1' });
const view = {
  personId: 'p1',
  sessions: [session('l1', T - 50 * HOUR), session('l2', T - 26 * HOUR), session('l3', T - 2 * HOUR)],
  conversions: [conversion()],
  unchanged: new Set(),
} as unknown as PersonView;

const buyer: BuyerContext = {
  phone: '+1 650 555 1212',
  firstName: 'Jane',
  lastName: 'Doe',
  clientIp: '203.0.113.9',
  userAgent: 'Mozilla/5.0',
  fbp: 'fb.1.1596403881668.1116446470',
  consentWithheld: false,
};

describe('newPurchases', () => {
  it('takes only purchases not stored before', () => {
    const two = { ...view, conversions: [conversion(), conversion({ key: 'old', orderId: 'old' })] };
    expect(newPurchases([two], (_g, key) => key === 'old').map((p) => p.conversion.key)).toEqual([
      '7000000000000000123',
    ]);
    const cart = { ...view, conversions: [conversion({ goal: 'add_to_cart', key: 'x' })] };
    expect(newPurchases([cart], () => false)).toEqual([]);
  });
});

describe('decidePurchase', () => {
  it("sends the order id, the exact value in the order's currency, the lines, the click ids of three sessions", () => {
    const d = decidePurchase(conversion(), view, facts, buyer, T + HOUR);
    expect(d).toEqual({
      kind: 'send',
      purchase: {
        orderId: '7000000000000000123',
        occurredAt: '2026-11-20T12:00:00.000Z',
        value: '1234.56',
        currency: 'EUR',
        lines: [{ productId: '8950316581081', variantId: '45737128657113', quantity: 2, price: '120.00' }],
        pageUrl: 'https://shop.example/thank-you',
        email: 'Jane@Example.com',
        phone: '+1 650 555 1212',
        firstName: 'Jane',
        lastName: 'Doe',
        clientIp: '203.0.113.9',
        userAgent: 'Mozilla/5.0',
        fbp: 'fb.1.1596403881668.1116446470',
        clickIds: { fbc: `fb.1.${T - 50 * HOUR}.FB1`, google: { kind: 'gclid', value: 'G1' }, ttclid: 'TT1' },
      },
    });
  });

  it('sends nothing older than 7 days, nor for a buyer who withheld consent', () => {
    expect(decidePurchase(conversion(), view, facts, buyer, T + AD_CONVERSION_WINDOW_MS + 1)).toEqual({
      kind: 'skip',
      reason: 'too_old',
    });
    expect(decidePurchase(conversion(), view, facts, buyer, T + AD_CONVERSION_WINDOW_MS).kind).toBe('send');
    expect(decidePurchase(conversion(), view, facts, { ...buyer, consentWithheld: true }, T)).toEqual({
      kind: 'skip',
      reason: 'consent_withheld',
    });
  });
});
