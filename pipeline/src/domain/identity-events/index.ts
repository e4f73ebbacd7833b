/** Identity-event webhook payloads (docs/product.md, Identity events and destinations): pure builders, the mapping from storefront events, ids. */
export { buildIdentityPayload, identityEventFor, IDENTITY_EVENT_SOURCES } from './build-payloads';
export { buildCheckoutStarted, discountCodes, totalDiscounts, identityEventLineItem } from './checkout-started';
export {
  buildActiveOnSite,
  buildAddedToCart,
  buildCollectionView,
  buildSubscribe,
  buildViewedProduct,
} from './site-events';
export {
  CHECKOUT_STARTED_SPEC_PATHS,
  hasSpecType,
  specPathViolations,
  type SpecPath,
  type SpecType,
} from './spec-paths';
export { IDENTITY_EVENT_SERVICE, type IdentityEventContext, type IdentityEventPerson } from './payload-context';
export { fnv1a128Hex, webhookId } from './webhook-id';
