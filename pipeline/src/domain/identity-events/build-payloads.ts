/**
 * Which identity event a storefront event is (docs/product.md, Identity events and destinations), and its payload. The caller sends nothing when
 * the built payload's `attributes.profile.data.attributes.email` is `""` (persons without an email).
 */
import type { EventName, EventOf, StorefrontEvent } from '../../../../contracts/src/events';
import type {
  IdentityEventName,
  IdentityEventPayload,
  IdentityEventPayloadMap,
} from '../../../../contracts/src/identity-events';
import { buildCheckoutStarted } from './checkout-started';
import {
  buildActiveOnSite,
  buildAddedToCart,
  buildCollectionView,
  buildSubscribe,
  buildViewedProduct,
} from './site-events';
import type { IdentityEventContext } from './payload-context';

/** The storefront kind each identity event is built from (Active On site: only a session's first page view). */
export const IDENTITY_EVENT_SOURCES = {
  'Active On site': 'page_viewed',
  'Viewed Product': 'product_viewed',
  'Collection View': 'collection_viewed',
  'Added to Cart': 'product_added_to_cart',
  'Checkout Started': 'checkout_started',
  Subscribe: 'lead_form_submitted',
} as const satisfies Record<IdentityEventName, EventName>;

/**
 * The identity event of a storefront event, or null. `isSessionLanding` tells whether the event is the first
 * page view of its session (only that page view is Active On site).
 */
export function identityEventFor(event: StorefrontEvent, isSessionLanding: boolean): IdentityEventName | null {
  switch (event.name) {
    case 'checkout_started':
      return 'Checkout Started';
    case 'page_viewed':
      return isSessionLanding ? 'Active On site' : null;
    case 'product_viewed':
      return 'Viewed Product';
    case 'collection_viewed':
      return 'Collection View';
    case 'product_added_to_cart':
      return 'Added to Cart';
    case 'lead_form_submitted':
      return 'Subscribe';
    case 'search_submitted':
    case 'product_removed_from_cart':
    case 'cart_viewed':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
    case 'checkout_completed':
    case 'custom_event':
    case 'user_identified':
    case 'order_refunded':
      return null;
  }
}

function mismatch(name: IdentityEventName, event: StorefrontEvent): never {
  throw new TypeError(
    `${name} is built from ${IDENTITY_EVENT_SOURCES[name]} events, not ${event.name} (event ${event.id})`,
  );
}

function eventOf<N extends EventName>(name: IdentityEventName, kind: N, event: StorefrontEvent): EventOf<N> {
  if (event.name !== kind) return mismatch(name, event);
  return event as EventOf<N>;
}

/**
 * The payload of identity event `name` for `event`. Throws a TypeError when the event is not of the kind the
 * identity event is built from (see `IDENTITY_EVENT_SOURCES`): a programming error, since `identityEventFor`
 * gives the name.
 */
export function buildIdentityPayload<N extends IdentityEventName>(
  name: N,
  event: StorefrontEvent,
  ctx: IdentityEventContext,
): IdentityEventPayloadMap[N];
export function buildIdentityPayload(
  name: IdentityEventName,
  event: StorefrontEvent,
  ctx: IdentityEventContext,
): IdentityEventPayload {
  switch (name) {
    case 'Checkout Started':
      return buildCheckoutStarted(eventOf(name, 'checkout_started', event), ctx);
    case 'Active On site':
      return buildActiveOnSite(eventOf(name, 'page_viewed', event), ctx);
    case 'Viewed Product':
      return buildViewedProduct(eventOf(name, 'product_viewed', event), ctx);
    case 'Collection View':
      return buildCollectionView(eventOf(name, 'collection_viewed', event), ctx);
    case 'Added to Cart':
      return buildAddedToCart(eventOf(name, 'product_added_to_cart', event), ctx);
    case 'Subscribe':
      return buildSubscribe(eventOf(name, 'lead_form_submitted', event), ctx);
  }
}
