/**
 * Identity hand-off: the visitor's clientId travels with the cart, so that the order the store pushes later
 * (Shopify's `note_attributes`) joins the browser journey even when the thank-you page never loads. On Shopify
 * the cart also carries a refusal of tracking consent (`_oa_consent`), so that the order is not sent to the ad
 * platforms.
 */
import { CART_ATTRIBUTE, CONSENT_ATTRIBUTE, CONSENT_DENIED, CONSENT_GRANTED } from '../../contracts/src/tracker';

interface ShopifyGlobal {
  Shopify?: { routes?: { root?: string } };
}

/** Fills the store's hidden inputs named `_oa_client_id` or `attributes[_oa_client_id]` (a cart form field). */
export function fillClientIdInputs(clientId: string): void {
  const inputs = document.querySelectorAll<HTMLInputElement>(
    `input[name="${CART_ATTRIBUTE}"],input[name="attributes[${CART_ATTRIBUTE}]"]`,
  );
  for (let i = 0; i < inputs.length; i++) inputs[i]!.value = clientId;
}

/** This page's cart writes, one after another: a refusal and a later acceptance land in that order. */
let cartWrites: Promise<unknown> = Promise.resolve();

/**
 * Sets Shopify cart attributes through the Ajax cart API, unless the cart already carries them: the clientId
 * (and `_oa_consent` = `granted` when the cart carries another `_oa_consent`, such as a refusal), or, given null,
 * the refusal `_oa_consent` = `denied` alone. A read of `/cart.js`, then one update if anything differs.
 */
export function writeShopifyCart(clientId: string | null): void {
  const root = (window as unknown as ShopifyGlobal).Shopify?.routes?.root || '/';
  cartWrites = cartWrites
    .then(() => fetch(`${root}cart.js`, { credentials: 'same-origin' }))
    .then((res) => (res.ok ? (res.json() as Promise<{ attributes?: Record<string, unknown> }>) : null))
    .then((cart) => {
      const carried = (cart && cart.attributes) || {};
      const consent = carried[CONSENT_ATTRIBUTE];
      const wanted: Record<string, string> = clientId
        ? { [CART_ATTRIBUTE]: clientId }
        : { [CONSENT_ATTRIBUTE]: CONSENT_DENIED };
      if (clientId && consent && consent !== CONSENT_GRANTED) wanted[CONSENT_ATTRIBUTE] = CONSENT_GRANTED;
      if (Object.keys(wanted).every((k) => carried[k] === wanted[k])) return;
      return fetch(`${root}cart/update.js`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ attributes: wanted }),
      });
    })
    .catch(() => undefined);
}
