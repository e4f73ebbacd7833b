/**
 * The HTTP request of one delivery attempt, by destination kind: a `webhook` destination gets the queued body
 * signed with the Standard Webhooks headers; a `klaviyo` destination gets it wrapped for Klaviyo's Create Event
 * API with the store's private key. When no request can be made (a secret that cannot sign, a key that cannot be
 * read, a body Klaviyo's API cannot take), the reason: retrying would not help.
 */
import type { WebhookDelivery } from '../../contracts/src/webhook-delivery';
import type { KlaviyoDeliveryDestination, WebhookDeliveryDestination } from './destination-repo';
import { klaviyoEventBody, klaviyoHeaders, KlaviyoRequestError } from './klaviyo';
import { InvalidSecretError, standardWebhookHeaders } from './sign';

export type DeliveryRequest =
  { ok: true; url: string; headers: Record<string, string>; body: string } | { ok: false; error: string };

export function deliveryRequest(
  destination: WebhookDeliveryDestination | KlaviyoDeliveryDestination,
  delivery: WebhookDelivery,
  nowMs: number,
  userAgent: string,
): DeliveryRequest {
  if (destination.kind === 'klaviyo') {
    if (!destination.apiKey.ok)
      return { ok: false, error: `cannot authenticate to Klaviyo: ${destination.apiKey.error}` };
    try {
      const body = klaviyoEventBody(delivery.body);
      return { ok: true, url: destination.url, headers: klaviyoHeaders(destination.apiKey.value, userAgent), body };
    } catch (err) {
      if (!(err instanceof KlaviyoRequestError)) throw err;
      return { ok: false, error: `cannot make the Klaviyo request: ${err.message}` };
    }
  }
  try {
    const signed = standardWebhookHeaders(
      destination.secrets,
      delivery.webhookId,
      Math.floor(nowMs / 1000),
      delivery.body,
    );
    return {
      ok: true,
      url: destination.url,
      headers: { 'content-type': 'application/json', 'user-agent': userAgent, ...signed },
      body: delivery.body,
    };
  } catch (err) {
    if (!(err instanceof InvalidSecretError)) throw err;
    // Kept for a redrive after `webhook rotate-secret`.
    return { ok: false, error: `cannot sign: ${err.message}` };
  }
}
