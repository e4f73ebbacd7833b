/**
 * Identity hand-off: the visitor's clientId travels with the cart, so that the order the store pushes later
 * (Shopify's `note_attributes`) joins the browser journey even when the thank-you page never loads.
 */
import { CART_ATTRIBUTE } from '../../contracts/src/tracker';

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

/** Sets the Shopify cart attribute through the Ajax cart API, unless the cart already carries this clientId. */
export function writeShopifyCartAttribute(clientId: string): void {
  const root = (window as unknown as ShopifyGlobal).Shopify?.routes?.root || '/';
  fetch(`${root}cart.js`, { credentials: 'same-origin' })
    .then((res) => (res.ok ? (res.json() as Promise<{ attributes?: Record<string, unknown> }>) : null))
    .then((cart) => {
      if (cart && cart.attributes && cart.attributes[CART_ATTRIBUTE] === clientId) return;
      return fetch(`${root}cart/update.js`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ attributes: { [CART_ATTRIBUTE]: clientId } }),
      });
    })
    .catch(() => undefined);
}
