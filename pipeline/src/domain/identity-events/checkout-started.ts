/**
 * Checkout Started (spec "Checkout-started identity webhook payload", docs/product.md, Identity events and destinations): every path of the spec's
 * table, with the spec's type, from a `checkout_started` event and the products the store pushed.
 *
 * Choices where the spec gives only a type:
 * - `value`, `$value`: `totalPrice.amount`; `value_currency`, `$currency_code`: its currency; `presentment_currency`:
 *   the checkout's `currencyCode` (Web Pixels checkouts are priced in the buyer's currency, so these agree).
 * - `unique_id`: the checkout token (a redelivered or replayed event gives the same payload).
 * - `Total Discounts` (integer in the spec): `discountsAmount.amount`, or when absent the sum of the lines'
 *   discount allocations, rounded to the nearest whole currency unit (half up); 0 when neither is there.
 * - `checkout_url` = `responsive_checkout_url` = `<shopUrl>/checkouts/<token>` (equal in observed samples).
 * - line `price` and `variant_price`: the variant's unit price; `line_price`: the line's `finalLinePrice` (unit
 *   price times quantity from older pixels without it).
 */
import type { CheckoutLineItem, Checkout, EventOf } from '../../../../contracts/src/events';
import { checkoutLineTotal } from '../../../../contracts/src/line-items';
import type { CheckoutStartedPayload, IdentityEventLineItem } from '../../../../contracts/src/identity-events';
import {
  checkoutUrlOf,
  finite,
  firstText,
  integer,
  isoTime,
  metricOf,
  productFacts,
  profileOf,
  sortedUnique,
  toShopAmount,
  unique,
  type IdentityEventContext,
} from './payload-context';

/** `Total Discounts`: see the module comment. */
export function totalDiscounts(checkout: Checkout): number {
  if (checkout.discountsAmount != null) return integer(checkout.discountsAmount.amount);
  let sum = 0;
  for (const line of checkout.lineItems) {
    for (const allocation of line.discountAllocations ?? []) sum += finite(allocation.amount.amount);
  }
  return integer(sum);
}

/** Codes of the checkout's `DISCOUNT_CODE` applications, distinct, in checkout order. */
export function discountCodes(checkout: Checkout): string[] {
  return unique(
    (checkout.discountApplications ?? [])
      .filter((application) => application.type.toUpperCase() === 'DISCOUNT_CODE')
      .map((application) => application.title),
  );
}

/** One `$extra.line_items[]` entry (spec "Webhook line item"). */
export function identityEventLineItem(
  line: CheckoutLineItem,
  index: number,
  ctx: IdentityEventContext,
): IdentityEventLineItem {
  const variant = line.variant;
  const facts = productFacts(variant, ctx);
  const unitPrice = finite(variant.price.amount);
  const lineTotal = checkoutLineTotal(line);
  const linePrice = finite(lineTotal.amount);
  return {
    key: firstText(line.id, `${variant.id}:${index}`),
    presentment_title: firstText(line.title, facts.presentmentTitle),
    parent_relationship: '',
    grams: facts.grams,
    product_id: facts.productId,
    variant_id: facts.variantId,
    vendor: facts.vendor,
    sku: facts.sku,
    variant_title: facts.variantTitle,
    presentment_variant_title: facts.presentmentVariantTitle,
    title: firstText(facts.title, line.title),
    compare_at_price: facts.compareAtPrice,
    line_price: linePrice,
    variant_price: unitPrice,
    price: unitPrice,
    quantity: integer(line.quantity),
    line_price_set: {
      shop_money: { amount: toShopAmount(linePrice, lineTotal.currencyCode, ctx) },
      presentment_money: { amount: linePrice },
    },
    product: {
      body_html: facts.bodyHtml,
      tags: facts.tags,
      handle: facts.handle,
      id: facts.productId,
      title: firstText(facts.title, line.title),
      product_type: facts.productType,
      url: facts.url,
      vendor: facts.vendor,
      images: facts.images,
      variant: { sku: facts.sku, title: facts.variantTitle, id: facts.variantId, images: facts.variantImages },
    },
  };
}

export function buildCheckoutStarted(
  event: EventOf<'checkout_started'>,
  ctx: IdentityEventContext,
): CheckoutStartedPayload {
  const checkout = event.data.checkout;
  const lineItems = checkout.lineItems.map((line, index) => identityEventLineItem(line, index, ctx));
  const value = finite(checkout.totalPrice.amount);
  const currency = firstText(checkout.totalPrice.currencyCode, checkout.currencyCode, ctx.storeCurrency);
  const checkoutUrl = checkoutUrlOf(ctx.shopUrl, checkout.token);
  const addresses = [checkout.shippingAddress, checkout.billingAddress];
  return {
    type: 'event',
    attributes: {
      time: isoTime(event.timestamp),
      value,
      value_currency: currency,
      unique_id: checkout.token,
      properties: {
        Collections: sortedUnique(checkout.lineItems.flatMap((line) => ctx.collectionsOf(line.variant.product.id))),
        $currency_code: currency,
        Items: lineItems.map((item) => item.title),
        'Item Count': lineItems.reduce((sum, item) => sum + item.quantity, 0),
        presentment_currency: firstText(checkout.currencyCode, currency),
        $value: value,
        'Discount Codes': discountCodes(checkout),
        'Total Discounts': totalDiscounts(checkout),
        $extra: {
          full_landing_site: ctx.landingSite,
          referring_site: ctx.referringSite,
          checkout_url: checkoutUrl,
          responsive_checkout_url: checkoutUrl,
          line_items: lineItems,
        },
      },
      metric: metricOf('Checkout Started'),
      profile: profileOf(ctx, {
        email: checkout.email,
        phones: [checkout.phone, checkout.smsMarketingPhone, ...addresses.map((address) => address?.phone)],
        firstNames: addresses.map((address) => address?.firstName),
        lastNames: addresses.map((address) => address?.lastName),
        addresses,
      }),
    },
  };
}
