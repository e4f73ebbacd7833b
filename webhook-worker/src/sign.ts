/**
 * Standard Webhooks symmetric signatures (docs/product.md, Identity events and destinations, the Standard Webhooks specification): the secret is `whsec_` + base64 of
 * 24-64 random bytes; the signed content is `{webhook-id}.{webhook-timestamp}.{body}`; the header carries one
 * `v1,<base64 HMAC-SHA256>` entry per secret, space-separated.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export class InvalidSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSecretError';
  }
}

/** The key bytes of a `whsec_` secret; throws InvalidSecretError (never quoting the secret) when malformed. */
export function decodeSecret(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new InvalidSecretError(`secret does not start with ${SECRET_PREFIX}`);
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new InvalidSecretError('secret is not base64');
  const key = Buffer.from(b64, 'base64');
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new InvalidSecretError(`secret has ${key.length} bytes; ${MIN_SECRET_BYTES}-${MAX_SECRET_BYTES} expected`);
  }
  return key;
}

/** One `v1,<base64>` signature entry. */
export function signatureEntry(secret: string, webhookId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', decodeSecret(secret)).update(`${webhookId}.${timestamp}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

/** The `webhook-signature` header value: one entry per secret (several during a rotation), space-separated. */
export function signatureHeader(
  secrets: readonly string[],
  webhookId: string,
  timestamp: number,
  body: string,
): string {
  if (secrets.length === 0) throw new InvalidSecretError('no signing secret');
  return secrets.map((s) => signatureEntry(s, webhookId, timestamp, body)).join(' ');
}

/** The three Standard Webhooks headers of one attempt (`timestamp` in unix seconds). */
export function standardWebhookHeaders(
  secrets: readonly string[],
  webhookId: string,
  timestamp: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, webhookId, timestamp, body),
  };
}
