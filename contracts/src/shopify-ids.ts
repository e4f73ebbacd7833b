/**
 * Shopify global ids (`gid://shopify/<Type>/<digits>`) where the store's own data has the number. Pixels send an
 * order as `gid://shopify/OrderIdentity/5396439498987`, the store's pushes and webhooks as `5396439498987`: one
 * order (docs/decisions.md, Ingestion). Ids stay strings: Shopify's exceed 2^53.
 */

const SHOPIFY_GID = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)$/;

/** The digits of a Shopify global id of one of `types`; null for any other string. */
export function globalIdNumber(value: string, types: readonly string[]): string | null {
  const match = SHOPIFY_GID.exec(value);
  return match?.[1] !== undefined && match[2] !== undefined && types.includes(match[1]) ? match[2] : null;
}

/** The Shopify types an order id may come as. */
export const ORDER_GID_TYPES = ['Order', 'OrderIdentity'] as const;

/**
 * The id an order is stored under, from an id a caller may have taken from a pixel: the number of
 * `gid://shopify/Order/<n>` or `gid://shopify/OrderIdentity/<n>`, any other id as it is (trimmed).
 */
export function storedOrderId(id: string): string {
  const trimmed = id.trim();
  return globalIdNumber(trimmed, ORDER_GID_TYPES) ?? trimmed;
}
