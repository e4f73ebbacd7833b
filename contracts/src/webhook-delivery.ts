/** A queued webhook delivery on the WEBHOOKS stream (docs/product.md, Identity events and destinations). */
export const WEBHOOKS_STREAM = 'WEBHOOKS';
export const WEBHOOK_CONSUMER = 'webhook-worker';

export function webhookSubject(storeId: string, destinationId: string): string {
  return `wh.${storeId}.${destinationId}`;
}

/**
 * Purchases queued for the ad platforms' conversion APIs travel on the same stream under a subject of their own,
 * read by a consumer of their own: they wait in memory for their platform's batch, so they must not take the
 * identity webhooks' few slots (docs/decisions.md, Conversions to the ad platforms).
 */
export const AD_CONVERSIONS_CONSUMER = 'ad-conversions';

export function adConversionSubject(storeId: string, destinationId: string): string {
  return `adc.${storeId}.${destinationId}`;
}

/** The subjects of one store's queued deliveries of either kind (erasure and store removal reach both). */
export const storeDeliverySubjects = (storeId: string): string[] => [`wh.${storeId}.>`, `adc.${storeId}.>`];

export interface WebhookDelivery {
  /** Standard Webhooks `webhook-id`: stable across retries and redeliveries (also the Nats-Msg-Id). */
  webhookId: string;
  storeId: string;
  destinationId: string;
  /** Identity event name, e.g. `Checkout Started`. */
  name: string;
  /** The source storefront event. */
  eventId: string;
  /** The exact JSON body to POST (what is signed). */
  body: string;
  /** Epoch ms when the pipeline queued it. */
  enqueuedAt: number;
}
