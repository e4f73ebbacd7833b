/**
 * Identity conventions shared by the pipeline (which links clients into persons) and the query API (which
 * reads persons back); see docs/product.md, Identity.
 */

/** Orders pushed by the store are pseudo-clients `order:<order id>`, linked like browser clients. */
export const ORDER_CLIENT_PREFIX = 'order:';

export const orderClientId = (orderId: string): string => `${ORDER_CLIENT_PREFIX}${orderId}`;
