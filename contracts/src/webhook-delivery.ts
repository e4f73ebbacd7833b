/** A queued webhook delivery on the WEBHOOKS stream (docs/product.md, Identity events and destinations). */
export const WEBHOOKS_STREAM = 'WEBHOOKS';
export const WEBHOOK_CONSUMER = 'webhook-worker';

export function webhookSubject(storeId: string, destinationId: string): string {
  return `wh.${storeId}.${destinationId}`;
}

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
