/**
 * A purchase as the pipeline queues it for the ad platforms' conversion APIs: what every platform's request is
 * built from (the webhook worker's `conversions/`). Identifiers travel in clear inside the service's own stream,
 * as the identity events do, and are normalised and hashed per platform only when a request is built.
 */

/** The ad platforms' click ids of the buyer's journey (the pipeline's `domain/ad-click-ids.ts` finds them). */
export interface AdClickIds {
  /** Meta's `fbc`, built from the latest `fbclid`: `fb.1.<ms of the landing>.<fbclid>`. */
  fbc: string | null;
  /** Google's click id: the parameter that carried it and its value. */
  google: { kind: 'gclid' | 'gbraid' | 'wbraid'; value: string } | null;
  ttclid: string | null;
}

export interface PurchaseLine {
  productId: string;
  variantId: string;
  quantity: number;
  /** Unit price in the order's currency, as a decimal string (exact, as the store sent it). */
  price: string;
}

export interface QueuedPurchase {
  /** The store's order id: the event id the platform de-duplicates against its browser pixel's. */
  orderId: string;
  /** ISO 8601 time of the purchase. */
  occurredAt: string;
  /** The order's total as a decimal string, and its ISO 4217 currency. */
  value: string;
  currency: string;
  lines: PurchaseLine[];
  /** The page the purchase completed on, when the tracker saw it (`""` otherwise). */
  pageUrl: string;
  email: string;
  phone: string;
  firstName: string;
  lastName: string;
  /** Of the person's latest event before the purchase (`""` when none). */
  clientIp: string;
  userAgent: string;
  /** Meta's `_fbp` browser id when the tracker saw one. */
  fbp: string;
  clickIds: AdClickIds;
}

/** The `name` of a queued purchase on the WEBHOOKS stream (its `body` is the `QueuedPurchase` as JSON). */
export const PURCHASE_DELIVERY_NAME = 'Purchase';
