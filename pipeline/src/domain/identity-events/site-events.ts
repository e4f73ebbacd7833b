/**
 * The five other identity events (docs/product.md, Identity events and destinations) in Checkout Started's outer shape, with the properties email
 * platforms conventionally use (as Klaviyo's Shopify integration names them) as declared in `contracts/src/identity-events.ts`.
 * `unique_id` is the source event's id, so a redelivered event gives the same payload. Events without a
 * monetary value have `value` 0 in the store currency.
 */
import type { EventOf } from '../../../../contracts/src/events';
import type {
  ActiveOnSitePayload,
  AddedToCartItem,
  AddedToCartPayload,
  CollectionViewPayload,
  IdentityEventAttributesBase,
  IdentityEventName,
  SubscribePayload,
  ViewedProductPayload,
} from '../../../../contracts/src/identity-events';
import {
  finite,
  firstText,
  integer,
  isoTime,
  metricOf,
  productFacts,
  profileOf,
  shopBase,
  type ProfileFallback,
  type IdentityEventContext,
} from './payload-context';

interface Valued {
  amount: number;
  currency: string;
}

type AnyEvent = { id: string; timestamp: string };

function attributesOf(
  name: IdentityEventName,
  event: AnyEvent,
  ctx: IdentityEventContext,
  valued: Valued | null,
  fallback: ProfileFallback = {},
): IdentityEventAttributesBase {
  return {
    time: isoTime(event.timestamp),
    value: valued === null ? 0 : finite(valued.amount),
    value_currency: firstText(valued?.currency, ctx.storeCurrency),
    unique_id: event.id,
    metric: metricOf(name),
    profile: profileOf(ctx, fallback),
  };
}

/** Active On site: the first page view of a session. */
export function buildActiveOnSite(event: EventOf<'page_viewed'>, ctx: IdentityEventContext): ActiveOnSitePayload {
  const document = event.context.document;
  return {
    type: 'event',
    attributes: {
      ...attributesOf('Active On site', event, ctx, null),
      properties: {
        $is_session_activity: true,
        $use_ip: true,
        page: firstText(document.location.href),
        $last_referrer: firstText(document.referrer),
      },
    },
  };
}

/** Viewed Product (`product_viewed`); `value` is the variant price. */
export function buildViewedProduct(event: EventOf<'product_viewed'>, ctx: IdentityEventContext): ViewedProductPayload {
  const variant = event.data.productVariant;
  const facts = productFacts(variant, ctx);
  return {
    type: 'event',
    attributes: {
      ...attributesOf('Viewed Product', event, ctx, {
        amount: variant.price.amount,
        currency: variant.price.currencyCode,
      }),
      properties: {
        ProductName: facts.title,
        ProductID: facts.productId,
        VariantID: facts.variantId,
        SKU: facts.sku,
        Categories: facts.collections,
        ImageURL: facts.imageUrl,
        URL: firstText(facts.url, event.context.document.location.href),
        Brand: facts.vendor,
        Price: finite(variant.price.amount),
        CompareAtPrice: facts.compareAtPrice,
      },
    },
  };
}

/** Collection View (`collection_viewed`); the URL is the page the collection was viewed on. */
export function buildCollectionView(
  event: EventOf<'collection_viewed'>,
  ctx: IdentityEventContext,
): CollectionViewPayload {
  const collection = event.data.collection;
  return {
    type: 'event',
    attributes: {
      ...attributesOf('Collection View', event, ctx, null),
      properties: {
        CategoryID: firstText(collection.id),
        CategoryName: firstText(collection.title),
        CategoryURL: firstText(event.context.document.location.href),
      },
    },
  };
}

/**
 * Added to Cart (`product_added_to_cart`). The event carries the added line only, so `$value`, `ItemNames` and
 * `Items` describe that line (the cart itself is unknown); `CheckoutURL` is the store's cart page.
 */
export function buildAddedToCart(
  event: EventOf<'product_added_to_cart'>,
  ctx: IdentityEventContext,
): AddedToCartPayload {
  const line = event.data.cartLine;
  const variant = line.merchandise;
  const facts = productFacts(variant, ctx);
  const lineTotal = finite(line.cost.totalAmount.amount);
  const quantity = integer(line.quantity);
  const item: AddedToCartItem = {
    ProductID: facts.productId,
    SKU: facts.sku,
    ProductName: facts.title,
    Quantity: quantity,
    ItemPrice: finite(variant.price.amount),
    RowTotal: lineTotal,
    ProductURL: facts.url,
    ImageURL: facts.imageUrl,
    ProductCategories: facts.collections,
  };
  return {
    type: 'event',
    attributes: {
      ...attributesOf('Added to Cart', event, ctx, { amount: lineTotal, currency: line.cost.totalAmount.currencyCode }),
      properties: {
        $value: lineTotal,
        AddedItemProductName: item.ProductName,
        AddedItemProductID: item.ProductID,
        AddedItemSKU: item.SKU,
        AddedItemCategories: item.ProductCategories,
        AddedItemImageURL: item.ImageURL,
        AddedItemURL: item.ProductURL,
        AddedItemPrice: item.ItemPrice,
        AddedItemQuantity: quantity,
        ItemNames: [item.ProductName],
        CheckoutURL: `${shopBase(ctx.shopUrl)}/cart`,
        Items: [item],
      },
    },
  };
}

/** Subscribe (`lead_form_submitted`); the lead's own email, phone and names fill the context's blanks. */
export function buildSubscribe(event: EventOf<'lead_form_submitted'>, ctx: IdentityEventContext): SubscribePayload {
  const lead = event.data.lead;
  return {
    type: 'event',
    attributes: {
      ...attributesOf('Subscribe', event, ctx, null, {
        email: lead.email,
        phones: [lead.phone],
        firstNames: [lead.firstName],
        lastNames: [lead.lastName],
      }),
      properties: {
        FormID: firstText(lead.formId),
        PageURL: firstText(event.context.document.location.href),
      },
    },
  };
}
