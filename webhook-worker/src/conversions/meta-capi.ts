/**
 * The Meta Conversions API request of purchases (`POST {graph}/{version}/{pixel id}/events`): one server event
 * per purchase, `Purchase` from the `website`, the order id as `event_id` (Meta de-duplicates it against the
 * pixel's event of the same id), user data hashed by Meta's rules, `fbc` and `fbp` as they are, the buyer's
 * address and browser, value, currency and contents. Up to 1,000 events per request. Pure.
 */
import { hashed, normaliseEmail, normaliseName, normalisePhone } from './user-data';
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';

/** Meta takes at most this many events per request. */
export const META_MAX_EVENTS = 1000;

export interface MetaServerEvent {
  event_name: 'Purchase';
  event_time: number;
  event_id: string;
  action_source: 'website';
  event_source_url?: string;
  user_data: Record<string, string | string[]>;
  custom_data: {
    currency: string;
    value: number;
    order_id: string;
    content_type: 'product';
    contents: Array<{ id: string; quantity: number; item_price: number }>;
  };
}

const list = (v: string | null): string[] | undefined => (v === null ? undefined : [v]);

/** One purchase as Meta's server event. */
export function metaServerEvent(p: QueuedPurchase): MetaServerEvent {
  const user: Record<string, string | string[] | undefined> = {
    em: list(hashed(normaliseEmail('meta', p.email))),
    ph: list(hashed(normalisePhone('meta', p.phone))),
    fn: list(hashed(normaliseName(p.firstName))),
    ln: list(hashed(normaliseName(p.lastName))),
    client_ip_address: p.clientIp || undefined,
    client_user_agent: p.userAgent || undefined,
    fbc: p.clickIds.fbc ?? undefined,
    fbp: p.fbp || undefined,
  };
  return {
    event_name: 'Purchase',
    event_time: Math.floor(Date.parse(p.occurredAt) / 1000),
    event_id: p.orderId,
    action_source: 'website',
    ...(p.pageUrl ? { event_source_url: p.pageUrl } : {}),
    user_data: Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as Record<
      string,
      string | string[]
    >,
    custom_data: {
      currency: p.currency,
      value: Number(p.value),
      order_id: p.orderId,
      content_type: 'product',
      contents: p.lines.map((l) => ({
        id: l.variantId || l.productId,
        quantity: l.quantity,
        item_price: Number(l.price),
      })),
    },
  };
}

/** The request body of up to `META_MAX_EVENTS` purchases, with the destination's test event code if it has one. */
export function metaEventsBody(purchases: readonly QueuedPurchase[], testEventCode?: string): string {
  if (purchases.length === 0 || purchases.length > META_MAX_EVENTS) {
    throw new RangeError(`a Meta request carries 1 to ${META_MAX_EVENTS} events, not ${purchases.length}`);
  }
  return JSON.stringify({
    data: purchases.map(metaServerEvent),
    ...(testEventCode ? { test_event_code: testEventCode } : {}),
  });
}
