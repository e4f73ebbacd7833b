/**
 * What the store-side tracker and the service agree on. The tracker writes the visitor's clientId into the
 * cart under this attribute; an order pushed with it in `note_attributes` joins that visitor's journey.
 */
export const CART_ATTRIBUTE = '_oa_client_id';
