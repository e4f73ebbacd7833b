/**
 * The events recorded from real Shopify Web Pixels (test/fixtures/shopify-pixel) against the validator: all
 * accepted on `/collect`, normalized as documented (docs/decisions.md, Ingestion), and stable when validated again.
 */
import { loadAllPixelRecordings, loadPixelRecordings, type PixelProducer } from '../../../test/support/shopify-pixel';
import type { StorefrontEvent } from '../events';
import { validateEvent, type ValidateEventOptions } from './event';
import { formatFieldError } from './result';

// Recordings are from 2023 and 2024: any later "now" is fine.
const NOW = new Date('2026-01-01T00:00:00Z');
const COLLECT: ValidateEventOptions = { now: NOW, clientIpFallback: '198.51.100.4', collectDefaults: true };

function acceptOnCollect(event: unknown): { value: StorefrontEvent; warnings: string[] } {
  const r = validateEvent(event, COLLECT);
  if (!r.ok) throw new Error(r.errors.map(formatFieldError).join('; '));
  return r;
}

const recordings = loadAllPixelRecordings();
const byKind = (producer: PixelProducer, name: string) => {
  const found = loadPixelRecordings(producer).find((r) => r.name === name);
  if (!found) throw new Error(`no ${name} recorded for ${producer}`);
  return acceptOnCollect(found.event).value;
};

const JOURNEY = [
  'product_viewed',
  'collection_viewed',
  'search_submitted',
  'product_added_to_cart',
  'cart_viewed',
  'checkout_started',
  'checkout_contact_info_submitted',
  'checkout_address_info_submitted',
  'checkout_shipping_info_submitted',
  'payment_info_submitted',
  'checkout_completed',
];

describe('recorded Shopify pixel events', () => {
  it('cover the checkout journey of two producers (page_viewed recorded for one)', () => {
    const kinds = (producer: PixelProducer) => loadPixelRecordings(producer).map((r) => r.name);
    expect(kinds('valmi-app-pixel')).toEqual(expect.arrayContaining(['page_viewed', ...JOURNEY]));
    expect(kinds('customerlabs-custom-pixel')).toEqual(expect.arrayContaining(JOURNEY));
    for (const r of recordings) expect(r.event['name']).toBe(r.name);
  });

  it.each(recordings.map((r) => [`${r.producer}/${r.name}`, r.event] as const))(
    '%s is accepted on /collect and validates again to itself',
    (_label, event) => {
      const { value } = acceptOnCollect(event);
      const again = validateEvent(JSON.parse(JSON.stringify(value)), { now: NOW });
      expect(again).toEqual({ ok: true, value, warnings: expect.any(Array) });
    },
  );

  it.each(recordings.map((r) => [`${r.producer}/${r.name}`, r.event] as const))(
    '%s lacks seq: refused on /api/events, which requires it',
    (_label, event) => {
      const r = validateEvent(event, { now: NOW, clientIpFallback: '198.51.100.4' });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.map(formatFieldError)).toContain('seq: is required');
    },
  );

  it('warns about exactly the members these pixels predate or omit', () => {
    const warnings = (producer: PixelProducer) =>
      [...new Set(loadPixelRecordings(producer).flatMap((r) => acceptOnCollect(r.event).warnings))].sort();
    expect(warnings('valmi-app-pixel')).toEqual([
      'data.cartLine.merchandise.product.url missing',
      'data.checkout.buyerAcceptsEmailMarketing missing',
      'data.checkout.buyerAcceptsSmsMarketing missing',
      'data.checkout.delivery missing',
      'data.checkout.discountsAmount missing',
      'data.checkout.email missing',
      'data.checkout.lineItems[*].finalLinePrice missing',
      'data.checkout.lineItems[*].variant.sku missing',
      'data.checkout.lineItems[*].variant.untranslatedTitle missing',
      'data.checkout.localization missing',
      'data.checkout.transactions[*].paymentMethod missing',
    ]);
    expect(warnings('customerlabs-custom-pixel')).toEqual([
      'data.cart.lines[*].merchandise.product.url missing',
      'data.cartLine.merchandise.product.url missing',
      'data.checkout.buyerAcceptsEmailMarketing missing',
      'data.checkout.buyerAcceptsSmsMarketing missing',
      'data.checkout.delivery missing',
      'data.checkout.discountsAmount missing',
      'data.checkout.email missing',
      'data.checkout.lineItems[*].finalLinePrice missing',
      'data.checkout.lineItems[*].variant.product.untranslatedTitle missing',
      'data.checkout.lineItems[*].variant.product.url missing',
      'data.checkout.lineItems[*].variant.sku missing',
      'data.checkout.lineItems[*].variant.untranslatedTitle missing',
      'data.checkout.localization missing',
      'data.checkout.transactions missing',
      'data.collection.productVariants[*].product.url missing',
      'data.productVariant.product.url missing',
      'data.searchResult.productVariants[*].product.url missing',
    ]);
    expect(warnings('cake-shop-pixel')).toEqual([
      'data.checkout.buyerAcceptsEmailMarketing missing',
      'data.checkout.buyerAcceptsSmsMarketing missing',
      'data.checkout.delivery missing',
      'data.checkout.discountsAmount missing',
      'data.checkout.lineItems[*].finalLinePrice missing',
      'data.checkout.lineItems[*].variant.image.src missing',
      'data.checkout.lineItems[*].variant.sku missing',
      'data.checkout.localization missing',
      'data.checkout.order.customer.isFirstOrder missing',
    ]);
  });

  it('normalizes as documented: envelope defaults, page data, global order ids', () => {
    const page = byKind('valmi-app-pixel', 'page_viewed');
    expect([page.seq, page.type, page.clientIp, page.data]).toEqual([0, 'standard', '198.51.100.4', {}]);
    // The cake pixel sends type but no seq.
    const cake = byKind('cake-shop-pixel', 'checkout_completed');
    expect([cake.seq, cake.type]).toEqual([0, 'standard']);

    const orderIdOf = (event: StorefrontEvent) =>
      event.name === 'checkout_completed' ? event.data.checkout.order : null;
    // Recorded as gid://shopify/OrderIdentity/5396439498987.
    expect(orderIdOf(byKind('customerlabs-custom-pixel', 'checkout_completed'))).toEqual({ id: '5396439498987' });
    expect(orderIdOf(byKind('valmi-app-pixel', 'checkout_completed'))).toEqual({ id: '5364716830934' });
    expect(orderIdOf(cake)).toEqual({ id: '5183136301134', customer: { id: '6800000000001' } });

    const all = byKind('valmi-app-pixel', 'collection_viewed');
    expect(all.name === 'collection_viewed' && all.data.collection.id).toBe('');
  });
});
