import type { WebhookDelivery } from '../../contracts/src/webhook-delivery';
import { decodeDelivery, parseWebhookSubject } from './delivery-message';

const delivery: WebhookDelivery = {
  webhookId: 'msg_0123',
  storeId: 'st_abc',
  destinationId: 'wd_def',
  name: 'Checkout Started',
  eventId: 'ev-1',
  body: '{"type":"event"}',
  enqueuedAt: 1_700_000_000_000,
};
const bytes = (v: unknown): Uint8Array => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));

describe('decodeDelivery', () => {
  it('decodes a WebhookDelivery', () => {
    expect(decodeDelivery(bytes(delivery))).toEqual({ ok: true, delivery });
  });

  it('accepts a redriven delivery without its source event id', () => {
    expect(decodeDelivery(bytes({ ...delivery, eventId: '' })).ok).toBe(true);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['a missing field', { ...delivery, body: undefined }, /invalid delivery: body/],
    ['a store id that is no subject token', { ...delivery, storeId: 'a.b' }, /storeId/],
    ['an empty webhook id', { ...delivery, webhookId: '' }, /webhookId/],
  ])('rejects %s', (_case, value, error) => {
    const r = decodeDelivery(bytes(value));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(error);
  });
});

describe('parseWebhookSubject', () => {
  it('reads wh.<store>.<destination> and adc.<store>.<destination>', () => {
    expect(parseWebhookSubject('wh.st_a.wd_b')).toEqual({ storeId: 'st_a', destinationId: 'wd_b' });
    expect(parseWebhookSubject('adc.st_a.wd_b')).toEqual({ storeId: 'st_a', destinationId: 'wd_b' });
    expect(parseWebhookSubject('xy.st_a.wd_b')).toBeNull();
    expect(parseWebhookSubject('ev.1.st_a.x')).toBeNull();
    expect(parseWebhookSubject('wh.st_a')).toBeNull();
  });
});
