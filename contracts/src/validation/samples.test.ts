import { EVENT_NAMES } from '../events';
import { validateEvent } from './event';
import {
  parsePath,
  SAMPLE_TIMESTAMP,
  sampleCheckout,
  sampleContext,
  sampleEvent,
  withField,
  withoutField,
} from '../../../test/support/samples';

describe('sampleEvent', () => {
  it.each(EVENT_NAMES)('%s has its name, a standard envelope and a page URL', (name) => {
    const event = sampleEvent(name);
    expect(event.name).toBe(name);
    expect(event.type).toBe('standard');
    expect(event.timestamp).toBe(SAMPLE_TIMESTAMP);
    expect(event.context.document.location.href).toMatch(/^https:\/\/shop\.example\//);
  });

  it('gives distinct ids per kind', () => {
    expect(new Set(EVENT_NAMES.map((n) => sampleEvent(n).id)).size).toBe(EVENT_NAMES.length);
  });

  it('applies envelope and data overrides', () => {
    const event = sampleEvent('checkout_started', {
      id: 'evt-2',
      seq: 9,
      data: { checkout: sampleCheckout({ token: 'tok-2' }) },
    });
    expect(event.id).toBe('evt-2');
    expect(event.seq).toBe(9);
    expect(event.data.checkout.token).toBe('tok-2');
    expect(validateEvent(event, { now: new Date(SAMPLE_TIMESTAMP) }).ok).toBe(true);
  });

  it('returns fresh objects', () => {
    const a = sampleEvent('cart_viewed');
    const b = sampleEvent('cart_viewed');
    expect(a).toEqual(b);
    expect(a.data.cart).not.toBe(b.data.cart);
  });

  it('puts the landing UTMs on page_viewed', () => {
    expect(sampleEvent('page_viewed').context.document.location.search).toContain('utm_source=facebook');
  });
});

describe('sampleContext', () => {
  it('derives the location from the URL', () => {
    const { document } = sampleContext('https://shop.example:8443/a/b?x=1#top', 'https://www.google.com/');
    expect(document.location).toEqual({
      hash: '#top',
      host: 'shop.example:8443',
      hostname: 'shop.example',
      href: 'https://shop.example:8443/a/b?x=1#top',
      origin: 'https://shop.example:8443',
      pathname: '/a/b',
      port: '8443',
      protocol: 'https:',
      search: '?x=1',
    });
    expect(document.referrer).toBe('https://www.google.com/');
  });
});

describe('parsePath, withField, withoutField', () => {
  it('parses dotted paths with indexes', () => {
    expect(parsePath('data.checkout.lineItems[2].quantity')).toEqual(['data', 'checkout', 'lineItems', 2, 'quantity']);
    expect(parsePath('a[0][1].b')).toEqual(['a', 0, 1, 'b']);
  });

  it('edits a copy', () => {
    const original = { a: { b: [1, 2] } };
    expect(withField(original, 'a.b[1]', 'x')).toEqual({ a: { b: [1, 'x'] } });
    expect(withoutField(original, 'a.b')).toEqual({ a: {} });
    expect(original).toEqual({ a: { b: [1, 2] } });
  });

  it('throws on a path that does not exist', () => {
    expect(() => withField({ a: 1 }, 'b.c', 1)).toThrow('b.c does not exist');
  });
});
