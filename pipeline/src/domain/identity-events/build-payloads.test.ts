import { EVENT_NAMES, type EventName, type StorefrontEvent } from '../../../../contracts/src/events';
import { IDENTITY_EVENTS, type IdentityEventName } from '../../../../contracts/src/identity-events';
import { sampleEvent } from '../../../../test/support/samples';
import { buildIdentityPayload, IDENTITY_EVENT_SOURCES, identityEventFor } from './build-payloads';
import { buildCheckoutStarted } from './checkout-started';
import { sampleIdentityEventContext } from '../../../../test/support/identity-event-fixtures';
import { specPathViolations } from './spec-paths';

/** docs/product.md, Identity events and destinations mapping: [kind, identity event of a session landing, identity event otherwise]. */
const MAPPING: [EventName, IdentityEventName | null, IdentityEventName | null][] = [
  ['page_viewed', 'Active On site', null],
  ['product_viewed', 'Viewed Product', 'Viewed Product'],
  ['collection_viewed', 'Collection View', 'Collection View'],
  ['search_submitted', null, null],
  ['product_added_to_cart', 'Added to Cart', 'Added to Cart'],
  ['product_removed_from_cart', null, null],
  ['cart_viewed', null, null],
  ['lead_form_submitted', 'Subscribe', 'Subscribe'],
  ['checkout_started', 'Checkout Started', 'Checkout Started'],
  ['checkout_contact_info_submitted', null, null],
  ['checkout_address_info_submitted', null, null],
  ['checkout_shipping_info_submitted', null, null],
  ['payment_info_submitted', null, null],
  ['checkout_completed', null, null],
  ['custom_event', null, null],
  ['user_identified', null, null],
  ['order_refunded', null, null],
];

const anyEvent = (name: EventName): StorefrontEvent => sampleEvent(name) as StorefrontEvent;

describe('identityEventFor', () => {
  it('covers every kind', () => {
    expect(MAPPING.map(([kind]) => kind)).toEqual([...EVENT_NAMES]);
  });

  it.each(MAPPING)('%s -> %s on a session landing, %s otherwise', (kind, landing, other) => {
    expect(identityEventFor(anyEvent(kind), true)).toBe(landing);
    expect(identityEventFor(anyEvent(kind), false)).toBe(other);
  });

  it('reaches each of the six identity events, from the kind IDENTITY_EVENT_SOURCES names', () => {
    const reached = MAPPING.flatMap(([kind, landing]) => (landing === null ? [] : [[landing, kind] as const]));
    expect(reached.map(([name]) => name).sort()).toEqual([...IDENTITY_EVENTS].sort());
    for (const [name, kind] of reached) expect(IDENTITY_EVENT_SOURCES[name]).toBe(kind);
  });
});

describe('buildIdentityPayload', () => {
  it.each(IDENTITY_EVENTS.map((name) => [name, IDENTITY_EVENT_SOURCES[name]] as const))('%s from %s', (name, kind) => {
    const payload = buildIdentityPayload(name, anyEvent(kind), sampleIdentityEventContext());
    expect(payload.type).toBe('event');
    expect(payload.attributes.metric.data.attributes.name).toBe(name);
    expect(payload.attributes.profile.data.attributes.email).toBe('jane.doe@example.com');
  });

  it('gives exactly buildCheckoutStarted for Checkout Started, with every spec path', () => {
    const event = sampleEvent('checkout_started');
    const payload = buildIdentityPayload('Checkout Started', event, sampleIdentityEventContext());
    expect(payload).toEqual(buildCheckoutStarted(event, sampleIdentityEventContext()));
    expect(specPathViolations(payload)).toEqual([]);
  });

  it.each<[IdentityEventName, EventName]>([
    ['Checkout Started', 'checkout_completed'],
    ['Active On site', 'product_viewed'],
    ['Viewed Product', 'page_viewed'],
    ['Collection View', 'search_submitted'],
    ['Added to Cart', 'product_removed_from_cart'],
    ['Subscribe', 'checkout_started'],
  ])('refuses %s from a %s event', (name, kind) => {
    expect(() => buildIdentityPayload(name, anyEvent(kind), sampleIdentityEventContext())).toThrow(
      new TypeError(
        `${name} is built from ${IDENTITY_EVENT_SOURCES[name]} events, not ${kind} (event ${anyEvent(kind).id})`,
      ),
    );
  });

  it('leaves the email empty for a person without one, so the caller can send nothing', () => {
    const ctx = sampleIdentityEventContext({ profile: { ...sampleIdentityEventContext().profile, email: '' } });
    expect(
      buildIdentityPayload('Viewed Product', anyEvent('product_viewed'), ctx).attributes.profile.data.attributes.email,
    ).toBe('');
  });
});
