/**
 * What the store-side tracker and the service agree on. The tracker writes the visitor's clientId into the
 * cart under this attribute; an order pushed with it in `note_attributes` joins that visitor's journey.
 */
export const CART_ATTRIBUTE = '_oa_client_id';

/**
 * The cart (note) attribute that records a visitor's choice about tracking consent: `_oa_consent` = `denied` on
 * an order means nothing of that purchase is sent to the ad platforms (docs/product.md, Conversions to the ad
 * platforms). The tracker writes it into the Shopify cart (`cart: 'shopify'`) when the consent manager calls
 * `oa('consent', false)`, and `granted` when a later `oa('consent', true)` finds a refusal there; elsewhere the
 * store's consent manager or backend sets it.
 */
export const CONSENT_ATTRIBUTE = '_oa_consent';
/** The values the tracker writes under `CONSENT_ATTRIBUTE`. */
export const CONSENT_DENIED = 'denied';
export const CONSENT_GRANTED = 'granted';

/** Whether an order's note attributes say that the buyer withheld tracking consent. */
export function consentWithheldBy(
  noteAttributes: ReadonlyArray<{ name?: unknown; value?: unknown }> | null | undefined,
): boolean {
  return (noteAttributes ?? []).some(
    (a) => a.name === CONSENT_ATTRIBUTE && typeof a.value === 'string' && /^(denied|false|no|0)$/i.test(a.value.trim()),
  );
}
