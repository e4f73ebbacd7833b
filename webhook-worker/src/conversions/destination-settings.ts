/**
 * The settings of the ad platforms' conversion destinations, as the CLI takes them (`webhook add --kind
 * meta_capi|google_ads|tiktok_events`), checked before anything is stored. Errors name the option and never quote
 * an access token. Pure.
 */
import { DestinationInputError, type AdPlatformKind } from '../destination-rules';

/** What a destination keeps in clear (`webhook_destinations.settings`): ids, never a token. */
export type AdDestinationSettings =
  | { kind: 'meta_capi'; pixelId: string; testEventCode: string | null }
  | { kind: 'google_ads'; customerId: string; conversionAction: string }
  | { kind: 'tiktok_events'; pixelCode: string; testEventCode: string | null };

/** A destination as the CLI adds it: its settings and, for Meta and TikTok, the access token (stored sealed). */
export type NewAdDestination =
  | { settings: Extract<AdDestinationSettings, { kind: 'meta_capi' | 'tiktok_events' }>; accessToken: string }
  | { settings: Extract<AdDestinationSettings, { kind: 'google_ads' }>; accessToken: null };

/** The settings of a stored row (`settings` jsonb), checked: a row changed by hand fails here, not in a request. */
export function parseStoredAdSettings(kind: AdPlatformKind, json: unknown): AdDestinationSettings | null {
  const o = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const text = (k: string): string | null => (typeof o[k] === 'string' ? o[k] : null);
  switch (kind) {
    case 'meta_capi': {
      const pixelId = text('pixelId');
      return pixelId ? { kind, pixelId, testEventCode: text('testEventCode') } : null;
    }
    case 'tiktok_events': {
      const pixelCode = text('pixelCode');
      return pixelCode ? { kind, pixelCode, testEventCode: text('testEventCode') } : null;
    }
    case 'google_ads': {
      const customerId = text('customerId');
      const conversionAction = text('conversionAction');
      return customerId && conversionAction ? { kind, customerId, conversionAction } : null;
    }
  }
}

/** A Meta pixel (dataset) id: digits. */
export function validateMetaPixelId(text: string): string {
  const id = text.trim();
  if (!/^\d{5,20}$/.test(id))
    throw new DestinationInputError(`--pixel: a Meta pixel id is 5 to 20 digits, got "${id}"`);
  return id;
}

/** A TikTok pixel code: upper-case letters and digits. */
export function validateTikTokPixelCode(text: string): string {
  const code = text.trim();
  if (!/^[A-Z0-9]{10,40}$/.test(code)) {
    throw new DestinationInputError(
      `--pixel: a TikTok pixel code is 10 to 40 upper-case letters and digits, got "${code}"`,
    );
  }
  return code;
}

/** An access token: printable, no spaces, of a plausible length; never quoted back. */
export function validateAccessToken(text: string): string {
  const token = text.trim();
  if (!/^[\x21-\x7e]{20,1024}$/.test(token)) {
    throw new DestinationInputError('--token: an access token is 20 to 1,024 printable characters without spaces');
  }
  return token;
}

/** A test event code as the platforms' test-events tools show it (`TEST12345`). */
export function validateTestEventCode(text: string): string {
  const code = text.trim();
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(code)) {
    throw new DestinationInputError(`--test-event-code: letters, digits, "_" and "-" only, got "${code}"`);
  }
  return code;
}

/** A Google Ads customer id, `123-456-7890` or `1234567890`, as its ten digits. */
export function validateGoogleCustomerId(text: string): string {
  const digits = text.trim().replaceAll('-', '');
  if (!/^\d{10}$/.test(digits)) {
    throw new DestinationInputError(
      `--customer: a Google Ads customer id is 10 digits (123-456-7890), got "${text.trim()}"`,
    );
  }
  return digits;
}

/** A conversion action's resource name, of the same customer: `customers/<id>/conversionActions/<id>`. */
export function validateConversionAction(text: string, customerId: string): string {
  const name = text.trim();
  const m = /^customers\/(\d{10})\/conversionActions\/(\d+)$/.exec(name);
  if (!m) {
    throw new DestinationInputError(
      `--conversion-action: a resource name customers/<customer id>/conversionActions/<id>, got "${name}"`,
    );
  }
  if (m[1] !== customerId) {
    throw new DestinationInputError(`--conversion-action: names customer ${m[1]}, not --customer ${customerId}`);
  }
  return name;
}
