import type { StorefrontEvent } from '../../contracts/src/events';
import { IDENTITY_EVENTS, type IdentityEventName } from '../../contracts/src/identity-events';
import { SAMPLE_EMAIL, SAMPLE_SHOP_URL, sampleEvent, sampleProduct } from '../../test/support/samples';
import { createEventViolations, KLAVIYO_CREATE_EVENT } from '../../test/support/klaviyo-schema';
import {
  buildIdentityPayload,
  IDENTITY_EVENT_SOURCES,
  type IdentityEventContext,
} from '../../pipeline/src/domain/identity-events';
import type { IdentityEventPerson } from '../../pipeline/src/domain/identity-events';
import { DestinationInputError } from './destination-rules';
import {
  isFinalKlaviyoRejection,
  KLAVIYO_EVENTS_URL,
  KLAVIYO_MEDIA_TYPE,
  KLAVIYO_REVISION,
  klaviyoEventBody,
  klaviyoHeaders,
  klaviyoPhoneNumber,
  KlaviyoRequestError,
  validateKlaviyoApiKey,
} from './klaviyo';

const API_KEY = 'pk_0123456789abcdef0123456789abcdef01';

function person(overrides: Partial<IdentityEventPerson> = {}): IdentityEventPerson {
  return {
    email: SAMPLE_EMAIL,
    phone: '+15415550100',
    firstName: 'Jane',
    lastName: 'Doe',
    location: { address1: '1 Main Street', address2: '', city: 'Springfield', country: 'US', region: 'OR', zip: '' },
    ...overrides,
  };
}

function context(profile: IdentityEventPerson = person()): IdentityEventContext {
  const products = new Map([[sampleProduct().id, sampleProduct()]]);
  return {
    storeCurrency: 'USD',
    profile,
    landingSite: `${SAMPLE_SHOP_URL}/?utm_source=google&utm_medium=cpc`,
    referringSite: 'https://www.google.com/',
    shopUrl: SAMPLE_SHOP_URL,
    productOf: (id) => products.get(id),
    collectionsOf: () => ['Summer'],
  };
}

/** The payload the pipeline queues for an identity event, as the exact JSON text it queues. */
function queuedBody(name: IdentityEventName, profile?: IdentityEventPerson): string {
  const event = sampleEvent(IDENTITY_EVENT_SOURCES[name]) as StorefrontEvent;
  return JSON.stringify(buildIdentityPayload(name, event, context(profile)));
}

type Attributes = { profile: { data: { attributes: Record<string, unknown> } } };
type Body = { data: { attributes: Attributes } };
const profileOf = (body: string) => (JSON.parse(body) as Body).data.attributes.profile.data.attributes;

describe('klaviyoEventBody', () => {
  it.each(IDENTITY_EVENTS)('wraps %s as {"data": payload}, valid under Klaviyo\'s Create Event schema', (name) => {
    const queued = queuedBody(name);
    const body = klaviyoEventBody(queued);
    expect(createEventViolations(JSON.parse(body))).toEqual([]);
    // The payload itself is not a Create Event body: the wrapping is what makes it one.
    expect(createEventViolations(JSON.parse(queued))).toEqual([
      'data: Invalid input: expected object, received undefined',
    ]);
    // Everything but the profile's unknown members is the queued payload, untouched.
    const payload = JSON.parse(queued) as { attributes: Attributes };
    const wrapped = JSON.parse(body) as Body;
    expect(Object.keys(wrapped)).toEqual(['data']);
    const { profile: _p, ...rest } = wrapped.data.attributes;
    const { profile: _q, ...expected } = payload.attributes;
    expect(rest).toEqual(expected);
    expect(profileOf(body)).toEqual({
      email: SAMPLE_EMAIL,
      phone_number: '+15415550100',
      first_name: 'Jane',
      last_name: 'Doe',
      location: { address1: '1 Main Street', city: 'Springfield', country: 'US', region: 'OR' },
    });
  });

  it('leaves out what the service does not know rather than sending "" over what Klaviyo knows', () => {
    const blank = person({
      phone: '',
      firstName: '',
      lastName: '',
      location: { address1: '', address2: '', city: '', country: '', region: '', zip: '' },
    });
    const queued = queuedBody('Active On site', blank);
    expect(JSON.parse(queued)).toMatchObject({
      attributes: { profile: { data: { attributes: { phone_number: '', first_name: '', location: { city: '' } } } } },
    });
    const body = klaviyoEventBody(queued);
    expect(profileOf(body)).toEqual({ email: SAMPLE_EMAIL });
    expect(createEventViolations(JSON.parse(body))).toEqual([]);
  });

  it.each([
    ['+1 (541) 555-0100', '+15415550100'],
    ['+44 20 7946 0958', '+442079460958'],
    ['541-555-0100', undefined],
    ['0033 1 23 45 67 89', undefined],
    ['+0 123', undefined],
    ['call me', undefined],
  ])('sends the phone number %j as %j (E.164 or nothing)', (phone, sent) => {
    const profile = profileOf(klaviyoEventBody(queuedBody('Subscribe', person({ phone }))));
    expect(profile.phone_number).toBe(sent);
    expect(profile.email).toBe(SAMPLE_EMAIL);
  });

  it('keeps the exact text of the rest of the payload (no re-rounding of amounts)', () => {
    const queued = queuedBody('Checkout Started');
    const body = klaviyoEventBody(queued);
    const value = (JSON.parse(queued) as { attributes: { value: number } }).attributes.value;
    expect(body).toContain(`"value":${JSON.stringify(value)}`);
    expect(body.startsWith('{"data":{"type":"event","attributes":{')).toBe(true);
  });

  it.each([
    ['not JSON', '{"type":', /not JSON/],
    ['an array', '[]', /not an event object/],
    ['without attributes', '{"type":"event"}', /not an event object/],
    [
      'without a profile',
      '{"type":"event","attributes":{"properties":{}}}',
      /no attributes\.profile\.data\.attributes/,
    ],
  ])('refuses a queued body that is %s', (_case, queued, message) => {
    expect(() => klaviyoEventBody(queued)).toThrow(KlaviyoRequestError);
    expect(() => klaviyoEventBody(queued)).toThrow(message);
  });
});

describe('klaviyoHeaders', () => {
  it('sends the private key, the revision and the JSON:API media type, as Klaviyo documents them', () => {
    expect(klaviyoHeaders(API_KEY, 'agent/1')).toEqual({
      authorization: `Klaviyo-API-Key ${API_KEY}`,
      revision: KLAVIYO_REVISION,
      'content-type': KLAVIYO_MEDIA_TYPE,
      accept: KLAVIYO_MEDIA_TYPE,
      'user-agent': 'agent/1',
    });
    expect(KLAVIYO_CREATE_EVENT.authorization).toBe('Klaviyo-API-Key <private key>');
    expect(KLAVIYO_REVISION).toBe(KLAVIYO_CREATE_EVENT.revision);
    expect(KLAVIYO_MEDIA_TYPE).toBe(KLAVIYO_CREATE_EVENT.contentType);
    expect(KLAVIYO_EVENTS_URL).toBe(KLAVIYO_CREATE_EVENT.url);
  });
});

describe('isFinalKlaviyoRejection', () => {
  it.each([400, 401, 403, 404, 405, 409, 413, 415, 422])('%d is final: the request itself is wrong', (status) => {
    expect(isFinalKlaviyoRejection(status)).toBe(true);
  });

  it.each([202, 200, 301, 408, 410, 425, 429, 500, 502, 503, 504])('%d is not', (status) => {
    expect(isFinalKlaviyoRejection(status)).toBe(false);
  });
});

describe('klaviyoPhoneNumber', () => {
  it('accepts E.164 only', () => {
    expect(klaviyoPhoneNumber('+15005550006')).toBe('+15005550006');
    expect(klaviyoPhoneNumber('+1234567890123456')).toBeNull();
    expect(klaviyoPhoneNumber('')).toBeNull();
  });
});

describe('validateKlaviyoApiKey', () => {
  it('accepts a private key, trimmed', () => {
    expect(validateKlaviyoApiKey(` ${API_KEY}\n`)).toBe(API_KEY);
  });

  it.each([
    ['a public key', 'AbC123', /starts with pk_/],
    ['empty', '', /starts with pk_/],
    ['too short', 'pk_abc', /8 to 253 printable characters/],
    ['with a space', 'pk_0123456789 abcdef', /without spaces/],
    ['with a line break', 'pk_0123456789\r\nx-evil: 1', /without spaces/],
    ['too long', `pk_${'a'.repeat(300)}`, /8 to 253/],
  ])('refuses %s, without quoting it', (_case, key, message) => {
    expect(() => validateKlaviyoApiKey(key)).toThrow(DestinationInputError);
    expect(() => validateKlaviyoApiKey(key)).toThrow(message);
    try {
      validateKlaviyoApiKey(key);
    } catch (err) {
      if (key.length > 3) expect((err as Error).message).not.toContain(key.trim());
    }
  });
});
