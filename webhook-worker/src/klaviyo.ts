/**
 * Destinations of kind `klaviyo`: the identity-event payload (already in the shape of Klaviyo's Create Event
 * attributes) wrapped as `{"data": <payload>}` and POSTed to Klaviyo's Create Event API with the store's private
 * key. Pure helpers: the headers, the body, which answers are final. See docs/decisions.md, Identity events and destinations.
 */
import { DestinationInputError } from './destination-rules';

/** Klaviyo's date-versioned API revision sent with every request; the one place to move to a newer revision. */
export const KLAVIYO_REVISION = '2026-07-15';
/** Create Event; a destination may name another URL (a proxy, a test receiver). */
export const KLAVIYO_EVENTS_URL = 'https://a.klaviyo.com/api/events';
/** JSON:API media type of Klaviyo's request and answer bodies. */
export const KLAVIYO_MEDIA_TYPE = 'application/vnd.api+json';

/** The headers of one Create Event request. */
export function klaviyoHeaders(apiKey: string, userAgent: string): Record<string, string> {
  return {
    authorization: `Klaviyo-API-Key ${apiKey}`,
    revision: KLAVIYO_REVISION,
    'content-type': KLAVIYO_MEDIA_TYPE,
    accept: KLAVIYO_MEDIA_TYPE,
    'user-agent': userAgent,
  };
}

export class KlaviyoRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KlaviyoRequestError';
  }
}

const E164 = /^\+[1-9]\d{1,14}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A phone number as Klaviyo accepts it (E.164, separators removed), or null. */
export function klaviyoPhoneNumber(text: string): string | null {
  const compact = text.replace(/[\s().-]/g, '');
  return E164.test(compact) ? compact : null;
}

/**
 * The profile attributes without the members the service does not know: the payload says `""` for them, which
 * Klaviyo would store over what it knows (a name, an address), or refuse (a phone number not in E.164).
 */
function knownProfileAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === '' || value === null || value === undefined) continue;
    if (key === 'phone_number' && typeof value === 'string') {
      const phone = klaviyoPhoneNumber(value);
      if (phone !== null) out[key] = phone;
      continue;
    }
    if (key === 'location' && isObject(value)) {
      const location = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== '' && v != null));
      if (Object.keys(location).length > 0) out[key] = location;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * The Create Event body of a queued identity-event payload (the exact JSON the pipeline queued): `{"data":
 * payload}`, the profile's unknown members left out. Throws KlaviyoRequestError when the payload is not an event
 * object; that cannot get better by retrying.
 */
export function klaviyoEventBody(payloadJson: string): string {
  let payload: unknown;
  try {
    payload = JSON.parse(payloadJson);
  } catch {
    throw new KlaviyoRequestError('the queued body is not JSON');
  }
  if (!isObject(payload) || !isObject(payload.attributes)) {
    throw new KlaviyoRequestError('the queued body is not an event object with attributes');
  }
  const profile = payload.attributes.profile;
  if (!isObject(profile) || !isObject(profile.data) || !isObject(profile.data.attributes)) {
    throw new KlaviyoRequestError('the queued body has no attributes.profile.data.attributes');
  }
  const data = {
    ...payload,
    attributes: {
      ...payload.attributes,
      profile: { ...profile, data: { ...profile.data, attributes: knownProfileAttributes(profile.data.attributes) } },
    },
  };
  return JSON.stringify({ data });
}

/**
 * Whether a Klaviyo answer is final for this request: a 4xx says the request (its body, or its key: 401, 403)
 * is wrong, and sending it again as is cannot succeed. Not final: 408, 425 and 429 (try later), 410 (handled as
 * for every destination: disable it), and everything outside 4xx.
 */
export function isFinalKlaviyoRejection(status: number): boolean {
  return status >= 400 && status < 500 && ![408, 410, 425, 429].includes(status);
}

const MAX_KEY_LENGTH = 256;

/** A Klaviyo private API key (`pk_...`); throws DestinationInputError, never quoting the key. */
export function validateKlaviyoApiKey(text: string): string {
  const key = text.trim();
  if (!key.startsWith('pk_')) {
    throw new DestinationInputError('a Klaviyo private API key starts with pk_ (Klaviyo: Settings > API keys)');
  }
  if (key.length > MAX_KEY_LENGTH || !/^pk_[\x21-\x7e]{8,}$/.test(key)) {
    throw new DestinationInputError(
      `a Klaviyo private API key is pk_ followed by 8 to ${MAX_KEY_LENGTH - 3} printable characters without spaces`,
    );
  }
  return key;
}
