/**
 * The TikTok Events API request of purchases (`POST {base}/open_api/v1.3/event/track/`): web events of the
 * destination's pixel, `CompletePayment` with the order id as `event_id` (TikTok de-duplicates it against its
 * pixel's), the journey's `ttclid`, the buyer's hashed email and phone, address and browser, value, currency and
 * contents. Up to 1,000 events per request. Pure, with the reading of TikTok's answer (its `code`, not the HTTP
 * status, says whether it took them).
 */
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import { hashed, normaliseEmail, normalisePhone } from './user-data';

export const TIKTOK_MAX_EVENTS = 1000;

export function tiktokEvent(p: QueuedPurchase): Record<string, unknown> {
  const user: Record<string, string | null> = {
    ttclid: p.clickIds.ttclid,
    email: hashed(normaliseEmail('tiktok', p.email)),
    phone: hashed(normalisePhone('tiktok', p.phone)),
    ip: p.clientIp || null,
    user_agent: p.userAgent || null,
  };
  return {
    event: 'CompletePayment',
    event_time: Math.floor(Date.parse(p.occurredAt) / 1000),
    event_id: p.orderId,
    user: Object.fromEntries(Object.entries(user).filter(([, v]) => v !== null)),
    ...(p.pageUrl ? { page: { url: p.pageUrl } } : {}),
    properties: {
      currency: p.currency,
      value: Number(p.value),
      order_id: p.orderId,
      content_type: 'product',
      contents: p.lines.map((l) => ({
        content_id: l.variantId || l.productId,
        quantity: l.quantity,
        price: Number(l.price),
      })),
    },
  };
}

export function tiktokTrackBody(
  pixelCode: string,
  purchases: readonly QueuedPurchase[],
  testEventCode?: string,
): string {
  if (purchases.length === 0 || purchases.length > TIKTOK_MAX_EVENTS) {
    throw new RangeError(`a TikTok request carries 1 to ${TIKTOK_MAX_EVENTS} events, not ${purchases.length}`);
  }
  return JSON.stringify({
    event_source: 'web',
    event_source_id: pixelCode,
    ...(testEventCode ? { test_event_code: testEventCode } : {}),
    data: purchases.map(tiktokEvent),
  });
}

/** TikTok's verdict on a 200 answer: `code` 0 took the events; anything else refused them, with its message. */
export function tiktokVerdict(answer: unknown): { ok: true } | { ok: false; error: string } {
  const a = answer as { code?: unknown; message?: unknown } | null;
  if (a && a.code === 0) return { ok: true };
  const code = typeof a?.code === 'number' || typeof a?.code === 'string' ? String(a.code) : 'no code';
  return { ok: false, error: `TikTok answered ${code}${typeof a?.message === 'string' ? `: ${a.message}` : ''}` };
}
