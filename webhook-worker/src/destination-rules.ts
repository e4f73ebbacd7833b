/** Validation of destination settings (CLI input) and destination ids. Pure apart from the id's randomness. */
import { randomBytes } from 'node:crypto';
import { IDENTITY_EVENTS, type IdentityEventName } from '../../contracts/src/identity-events';

export class DestinationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationInputError';
  }
}

const MAX_URL_LENGTH = 2048;

/**
 * `webhook`: the payload as the body, signed (Standard Webhooks); `klaviyo`: Klaviyo's Create Event API; the ad
 * platforms' conversion APIs, which take purchases rather than identity events: `meta_capi` (Meta's Conversions
 * API), `google_ads` (Google Ads click conversions), `tiktok_events` (TikTok's Events API).
 */
export const DESTINATION_KINDS = ['webhook', 'klaviyo', 'meta_capi', 'google_ads', 'tiktok_events'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** The kinds that send purchases to an ad platform (docs/product.md, Conversions to the ad platforms). */
export const AD_PLATFORM_KINDS = [
  'meta_capi',
  'google_ads',
  'tiktok_events',
] as const satisfies readonly DestinationKind[];
export type AdPlatformKind = (typeof AD_PLATFORM_KINDS)[number];

export const isAdPlatformKind = (kind: DestinationKind): kind is AdPlatformKind =>
  (AD_PLATFORM_KINDS as readonly string[]).includes(kind);

export function parseDestinationKind(text: string): DestinationKind {
  const kind = DESTINATION_KINDS.find((k) => k === text);
  if (!kind)
    throw new DestinationInputError(`--kind: "${text}" is not a destination kind; use ${DESTINATION_KINDS.join(', ')}`);
  return kind;
}

/** An absolute http(s) URL, normalised by the WHATWG parser; throws DestinationInputError otherwise. */
export function validateDestinationUrl(text: string): string {
  if (text.length > MAX_URL_LENGTH) throw new DestinationInputError(`URL longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationInputError(`"${text}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DestinationInputError(`"${text}": only http and https URLs are allowed`);
  }
  if (!url.hostname) throw new DestinationInputError(`"${text}" has no host`);
  return url.toString();
}

/** A comma-separated list of identity event names, spelled exactly as IDENTITY_EVENTS; deduplicated, in order. */
export function parseEventList(text: string): IdentityEventName[] {
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) throw new DestinationInputError('no event named');
  const unknown = names.filter((n) => !(IDENTITY_EVENTS as readonly string[]).includes(n));
  if (unknown.length) {
    throw new DestinationInputError(
      `unknown event${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; ` +
        `use the exact names: ${IDENTITY_EVENTS.join(', ')}`,
    );
  }
  return IDENTITY_EVENTS.filter((n) => names.includes(n));
}

const ID_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** `wd_` + 16 characters usable as a NATS subject token (the destination is the last token of `wh.<s>.<d>`). */
export function newDestinationId(): string {
  let id = 'wd_';
  for (const b of randomBytes(16)) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}

export const DESTINATION_ID_PATTERN = /^wd_[a-z0-9]{4,64}$/;
