/**
 * Which purchases go to the ad platforms' conversion APIs, and what is sent of each (docs/product.md, Conversions to
 * the ad platforms). Pure: the adapter `ad-conversion-queue.ts` loads what the batch does not hold (the person's
 * latest browser, the checkout's or order's phone and names, the order's consent attribute) and publishes.
 *
 * - A purchase is sent once: when its conversion is new (not stored before this batch), so a replay, a redelivered
 *   batch or a later order update sends nothing again.
 * - Nothing older than 7 days (the platforms' window for server events): a late order push is counted, not sent.
 * - Nothing for a buyer who withheld tracking consent.
 */
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import { orderClientId } from '../../../contracts/src/identity';
import { adClickIdsOf, type Landing } from './ad-click-ids';
import type { ConversionView, PersonFacts, PersonView } from './recompute-person';

/** The platforms take server events at most 7 days after they happened. */
export const AD_CONVERSION_WINDOW_MS = 7 * 86_400_000;

/** What the adapter loaded of the buyer, beside the person's facts. */
export interface BuyerContext {
  phone: string;
  firstName: string;
  lastName: string;
  /** Of the person's latest browser event (`""` when none). */
  clientIp: string;
  userAgent: string;
  /** Meta's `_fbp` browser id of the person's latest event that carried one. */
  fbp: string;
  /** The order's consent attribute said the buyer refused tracking. */
  consentWithheld: boolean;
}

export type PurchaseDecision =
  { kind: 'send'; purchase: QueuedPurchase } | { kind: 'skip'; reason: 'too_old' | 'consent_withheld' };

/** The purchase conversions of `views` that were not stored before (`isStored` by conversion key). */
export function newPurchases(
  views: readonly PersonView[],
  isStored: (goal: 'purchase', key: string) => boolean,
): Array<{ personId: string; conversion: ConversionView }> {
  return views.flatMap((v) =>
    v.conversions
      .filter((c) => c.goal === 'purchase' && !isStored('purchase', c.key))
      .map((conversion) => ({ personId: v.personId, conversion })),
  );
}

/** The landing pages of the person's sessions, for the click ids. */
export function landingsOf(view: PersonView, facts: PersonFacts): Landing[] {
  const pageOf = new Map(facts.events.map((e) => [e.eventId, e.pageUrl]));
  // A pushed order's pseudo-session lands on the order's landing site, often a path without a host.
  for (const o of facts.orders) {
    const site = o.landingSite.startsWith('/') ? `https://store.invalid${o.landingSite}` : o.landingSite;
    pageOf.set(orderClientId(o.orderId), site);
  }
  return view.sessions.flatMap((s) => {
    const url = pageOf.get(s.landingEventId);
    return url ? [{ at: s.startedAt, url }] : [];
  });
}

/** A decimal string of `cents / quantity / 100` with two decimals (a line's unit price). */
function unitPrice(lineCents: number, quantity: number): string {
  return quantity > 0 ? (lineCents / quantity / 100).toFixed(2) : '0.00';
}

/** Whether a purchase goes out, and what goes out of it. */
export function decidePurchase(
  conversion: ConversionView,
  view: PersonView,
  facts: PersonFacts,
  buyer: BuyerContext,
  nowMs: number,
): PurchaseDecision {
  if (buyer.consentWithheld) return { kind: 'skip', reason: 'consent_withheld' };
  if (nowMs - conversion.at > AD_CONVERSION_WINDOW_MS) return { kind: 'skip', reason: 'too_old' };
  const orderId = conversion.orderId ?? conversion.key;
  const event = facts.events.find((e) => e.name === 'checkout_completed' && e.orderId === orderId);
  const order = facts.orders.find((o) => o.orderId === orderId);
  const items = event?.items.length ? event.items : (order?.items ?? []);
  const email = event?.email ?? order?.email ?? facts.events.find((e) => e.email)?.email ?? '';
  return {
    kind: 'send',
    purchase: {
      orderId,
      occurredAt: new Date(conversion.at).toISOString(),
      value: String(conversion.valueOrig ?? conversion.valueMicros / 1e6),
      currency: conversion.currencyOrig ?? order?.currencyOrig ?? '',
      lines: items.map(([productId, variantId, quantity, cents]) => ({
        productId,
        variantId,
        quantity,
        price: unitPrice(cents, quantity),
      })),
      pageUrl: event?.pageUrl ?? '',
      email,
      phone: buyer.phone,
      firstName: buyer.firstName,
      lastName: buyer.lastName,
      clientIp: buyer.clientIp,
      userAgent: buyer.userAgent,
      fbp: buyer.fbp,
      clickIds: adClickIdsOf(landingsOf(view, facts), conversion.at),
    },
  };
}
