/** Decoding of WebhookDelivery messages from the WEBHOOKS stream (untrusted bytes). */
import { z } from 'zod';
import type { WebhookDelivery } from '../../contracts/src/webhook-delivery';

const token = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a subject token');

export const webhookDeliverySchema = z.object({
  webhookId: z.string().min(1).max(256),
  storeId: token,
  destinationId: token,
  name: z.string().min(1).max(128),
  // A redriven delivery does not know its source event (the dead letter does not keep it).
  eventId: z.string().max(256),
  body: z.string(),
  enqueuedAt: z.number().finite(),
}) satisfies z.ZodType<WebhookDelivery>;

export type DecodeResult = { ok: true; delivery: WebhookDelivery } | { ok: false; error: string };

export function decodeDelivery(data: Uint8Array): DecodeResult {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  const parsed = webhookDeliverySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `invalid delivery: ${issue ? `${issue.path.join('.')}: ${issue.message}` : '?'}` };
  }
  return { ok: true, delivery: parsed.data };
}

/**
 * Store and destination of a `wh.<storeId>.<destinationId>` or `adc.<storeId>.<destinationId>` subject (for
 * messages that do not decode).
 */
export function parseWebhookSubject(subject: string): { storeId: string; destinationId: string } | null {
  const parts = subject.split('.');
  if (parts.length !== 3 || (parts[0] !== 'wh' && parts[0] !== 'adc')) return null;
  return { storeId: parts[1] ?? '', destinationId: parts[2] ?? '' };
}
