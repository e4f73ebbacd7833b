/**
 * Queues the batch's new purchases for the store's ad platforms' destinations (`meta_capi`, `google_ads`,
 * `tiktok_events`; docs/product.md, Conversions to the ad platforms). Like the identity events it runs inside the
 * batch transaction, before its commit, and publishes with a stable Nats-Msg-Id (store, destination, order), so a
 * retried batch publishes the same ids again (dropped by the stream's duplicate window) and a committed batch has
 * always queued its purchases. The decisions are the domain's (`domain/ad-conversions.ts`); this loads and sends.
 */
import { PURCHASE_DELIVERY_NAME } from '../../../contracts/src/ad-conversions';
import { consentWithheldBy } from '../../../contracts/src/tracker';
import { adConversionSubject, type WebhookDelivery } from '../../../contracts/src/webhook-delivery';
import type { Query } from '../../../storage/db';
import { decidePurchase, newPurchases, type BuyerContext } from '../domain/ad-conversions';
import { webhookId } from '../domain/identity-events';
import { CONVERSION_KEY } from '../domain/rollups/attribution';
import type { StoredConversions } from '../domain/rollups/conversions';
import type { PersonFacts, PersonView } from '../domain/recompute-person';
import type { PublishDelivery } from './identity-event-queue';

const PUBLISHES_IN_FLIGHT = 128;

export type AdConversionOutcome = 'queued' | 'too_old' | 'consent_withheld';

interface PersonRow {
  client_ip: string | null;
  user_agent: string | null;
  fbp: string | null;
  /** The `data` of the latest checkout event. */
  checkout: { checkout?: Record<string, unknown> } | null;
}

interface ClientRow {
  person_id: string;
  at: Date | null;
  client_ip: string | null;
  user_agent: string | null;
  fbp_at: Date | null;
  fbp: string | null;
  checkout_at: Date | null;
  checkout: PersonRow['checkout'];
}

/** Of each person's clients, the latest event's address and browser, the latest `_fbp`, the latest checkout. */
function buyersOf(rows: readonly ClientRow[]): Map<string, PersonRow> {
  const latest = new Map<string, { at: number; fbpAt: number; checkoutAt: number; row: PersonRow }>();
  for (const r of rows) {
    const cur = latest.get(r.person_id) ?? {
      at: -Infinity,
      fbpAt: -Infinity,
      checkoutAt: -Infinity,
      row: { client_ip: null, user_agent: null, fbp: null, checkout: null },
    };
    if (r.at && r.at.getTime() > cur.at) {
      cur.at = r.at.getTime();
      cur.row.client_ip = r.client_ip;
      cur.row.user_agent = r.user_agent;
    }
    if (r.fbp_at && r.fbp_at.getTime() > cur.fbpAt) {
      cur.fbpAt = r.fbp_at.getTime();
      cur.row.fbp = r.fbp;
    }
    if (r.checkout_at && r.checkout_at.getTime() > cur.checkoutAt) {
      cur.checkoutAt = r.checkout_at.getTime();
      cur.row.checkout = r.checkout;
    }
    latest.set(r.person_id, cur);
  }
  return new Map([...latest].map(([id, v]) => [id, v.row]));
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Phone and names from a checkout (the pixel's shape) or an order push (Shopify's), first found wins. */
function contactOf(source: Record<string, unknown> | null | undefined): {
  phone: string;
  firstName: string;
  lastName: string;
} {
  if (!source) return { phone: '', firstName: '', lastName: '' };
  const address = [
    source.billingAddress,
    source.shippingAddress,
    source.billing_address,
    source.shipping_address,
    source.customer,
  ]
    .filter(isObj)
    .find((a) => text(a.firstName) || text(a.first_name) || text(a.phone));
  return {
    phone: text(source.phone) || text(address?.phone),
    firstName: text(address?.firstName) || text(address?.first_name),
    lastName: text(address?.lastName) || text(address?.last_name),
  };
}

export function createAdConversionEnqueuer(
  publish: PublishDelivery,
  now: () => number = Date.now,
  onOutcome?: (storeId: string, outcome: AdConversionOutcome, n: number) => void,
) {
  return async function enqueue(
    q: Query,
    storeId: string,
    facts: readonly PersonFacts[],
    views: readonly PersonView[],
    stored: StoredConversions,
  ): Promise<number> {
    const fresh = newPurchases(views, (goal, key) => stored.has(CONVERSION_KEY.of({ goal, key })));
    if (fresh.length === 0) return 0;
    const destinations = await q<{ destination_id: string; kind: string }>(
      'ad_conversions.destinations',
      `select destination_id, kind from webhook_destinations
       where store_id = $1 and enabled and kind in ('meta_capi', 'google_ads', 'tiktok_events')`,
      [storeId],
    );
    if (destinations.length === 0) return 0;

    const personIds = [...new Set(fresh.map((f) => f.personId))];
    const orderIds = fresh.map((f) => f.conversion.orderId ?? f.conversion.key);
    // Per client of the buyers, three backward probes of event_facts' (store, client, time) index: the latest event,
    // the latest carrying `_fbp`, the latest checkout. A join from the person to the events ordered by time instead
    // made the planner walk the store's events once per person (a minute for a batch of 5,000 purchases). The facts
    // hold what is read here, whatever the store keeps of its raw payloads.
    const clientRows = await q<ClientRow>(
      'ad_conversions.buyers',
      `select c.person_id, latest.at, latest.client_ip, latest.user_agent, fbp.at as fbp_at, fbp.fbp,
              checkout.at as checkout_at, checkout.data as checkout
       from clients c
       left join lateral (
         select f.occurred_at as at, f.client_ip, f.user_agent
         from event_facts f where f.store_id = c.store_id and f.client_id = c.client_id
         order by f.occurred_at desc limit 1) latest on true
       left join lateral (
         select f.occurred_at as at, f.fbp
         from event_facts f where f.store_id = c.store_id and f.client_id = c.client_id and f.fbp is not null
         order by f.occurred_at desc limit 1) fbp on true
       left join lateral (
         select f.occurred_at as at, f.data
         from event_facts f where f.store_id = c.store_id and f.client_id = c.client_id and f.name like 'checkout%'
         order by f.occurred_at desc limit 1) checkout on true
       where c.store_id = $1 and c.person_id = any($2::text[])`,
      [storeId, personIds],
    );
    const personRow = buyersOf(clientRows);
    const orders = await q<{ order_id: string; payload: Record<string, unknown> }>(
      'ad_conversions.orders',
      'select order_id, payload from shop_orders where store_id = $1 and order_id = any($2::text[])',
      [storeId, orderIds],
    );
    const orderPayload = new Map(orders.map((o) => [o.order_id, o.payload]));
    const factsOf = new Map(facts.map((f) => [f.personId, f]));
    const viewOf = new Map(views.map((v) => [v.personId, v]));

    const counts: Record<AdConversionOutcome, number> = { queued: 0, too_old: 0, consent_withheld: 0 };
    const deliveries: Array<{ subject: string; delivery: WebhookDelivery }> = [];
    for (const { personId, conversion } of fresh) {
      const f = factsOf.get(personId);
      const v = viewOf.get(personId);
      if (!f || !v) continue;
      const orderId = conversion.orderId ?? conversion.key;
      const row = personRow.get(personId);
      const order = orderPayload.get(orderId);
      const fromCheckout = contactOf(row?.checkout?.checkout);
      const fromOrder = contactOf(order);
      const clientDetails = isObj(order?.client_details) ? order.client_details : {};
      const buyer: BuyerContext = {
        phone: fromCheckout.phone || fromOrder.phone,
        firstName: fromCheckout.firstName || fromOrder.firstName,
        lastName: fromCheckout.lastName || fromOrder.lastName,
        clientIp: row?.client_ip || text(clientDetails.browser_ip) || text(order?.browser_ip),
        userAgent: row?.user_agent || text(clientDetails.user_agent),
        fbp: row?.fbp ?? '',
        consentWithheld: consentWithheldBy(Array.isArray(order?.note_attributes) ? order.note_attributes : null),
      };
      const decision = decidePurchase(conversion, v, f, buyer, now());
      if (decision.kind === 'skip') {
        counts[decision.reason]++;
        continue;
      }
      const body = JSON.stringify(decision.purchase);
      const p = decision.purchase;
      for (const d of destinations) {
        // Google needs a click id or someone to identify: without either the purchase is not Google's to take.
        if (d.kind === 'google_ads' && !p.clickIds.google && !p.email && !p.phone) continue;
        deliveries.push({
          subject: adConversionSubject(storeId, d.destination_id),
          delivery: {
            webhookId: webhookId(storeId, d.destination_id, orderId, PURCHASE_DELIVERY_NAME),
            storeId,
            destinationId: d.destination_id,
            name: PURCHASE_DELIVERY_NAME,
            eventId: conversion.eventId ?? orderId,
            body,
            enqueuedAt: now(),
          },
        });
      }
      counts.queued++;
    }
    // A batch of a store's history holds thousands: published PUBLISHES_IN_FLIGHT at a time rather than one by one
    // (a round trip each) or all at once (their acknowledgements then time out), all acknowledged before the commit.
    for (let i = 0; i < deliveries.length; i += PUBLISHES_IN_FLIGHT) {
      await Promise.all(deliveries.slice(i, i + PUBLISHES_IN_FLIGHT).map((d) => publish(d.subject, d.delivery)));
    }
    for (const outcome of ['queued', 'too_old', 'consent_withheld'] as const) {
      if (counts[outcome] > 0) onOutcome?.(storeId, outcome, counts[outcome]);
    }
    return counts.queued;
  };
}

export type AdConversionEnqueuer = ReturnType<typeof createAdConversionEnqueuer>;
