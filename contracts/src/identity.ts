/**
 * Identity conventions shared by the pipeline (which links clients into persons) and the query API (which
 * reads persons back, and puts an order push in the stream partition of the browser client it names); see
 * docs/product.md, Identity.
 */
import type { ShopOrder } from './pushes';
import { CART_ATTRIBUTE } from './tracker';

/** Orders pushed by the store are pseudo-clients `order:<order id>`, linked like browser clients. */
export const ORDER_CLIENT_PREFIX = 'order:';

export const orderClientId = (orderId: string): string => `${ORDER_CLIENT_PREFIX}${orderId}`;

/**
 * The browser client an order names in its cart attributes (`note_attributes` `_oa_client_id`, written by
 * the store-side tracker), or null. A value that is no possible client id (empty, longer than an event's
 * clientId may be, or an order pseudo-client) names nobody.
 */
export function browserClientOfOrder(order: ShopOrder): string | null {
  const attribute = (order.note_attributes ?? []).find((a) => a.name === CART_ATTRIBUTE);
  const value = attribute?.value?.trim();
  if (!value || value.length > 256 || value.startsWith(ORDER_CLIENT_PREFIX)) return null;
  return value;
}

/**
 * The prefixes of the identity keys that name a person from outside (the pipeline's `identityKeysOfEvent` and
 * `identityKeysOfOrder` write them): what the privacy operations look a person up by.
 */
export const IDENTITY_KEY_PREFIX = { email: 'e:', customer: 'c:', order: 'o:' } as const;
