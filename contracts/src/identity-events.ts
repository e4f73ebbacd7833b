/**
 * Identity-event webhooks (spec "Checkout-started identity webhook payload", docs/product.md, Identity events and destinations).
 *
 * Every payload has the same outer shape (Klaviyo "Create Event" attributes, as Klaviyo's Create Event API defines them):
 * `{type, attributes: {time, value, value_currency, unique_id, properties, metric, profile}}`.
 * Checkout Started follows the spec exactly; the five others use Klaviyo's conventional properties
 * (as Klaviyo's Shopify integration names them), which are our design where no public schema exists.
 */

/** The six identity events, spelled as in the spec (docs/product.md, Identity events and destinations maps storefront kinds to them). */
export const IDENTITY_EVENTS = [
  'Active On site',
  'Viewed Product',
  'Collection View',
  'Added to Cart',
  'Checkout Started',
  'Subscribe',
] as const;
export type IdentityEventName = (typeof IDENTITY_EVENTS)[number];

/** `attributes.metric`. */
export interface IdentityEventMetric {
  data: {
    /** `metric`. */
    type: string;
    attributes: {
      /** One of `IDENTITY_EVENTS`. */
      name: string;
      /** The sending service, e.g. `open-attribution`. */
      service: string;
    };
  };
}

/** `attributes.profile.data.attributes.location`; `""` for unknown members. */
export interface IdentityEventProfileLocation {
  address1: string;
  address2: string;
  city: string;
  country: string;
  region: string;
  zip: string;
}

/** `attributes.profile`; `""` for unknown members (webhooks are sent only when the email is known). */
export interface IdentityEventProfile {
  data: {
    /** `profile`. */
    type: string;
    attributes: {
      email: string;
      /** E.164, or `""`. */
      phone_number: string;
      first_name: string;
      last_name: string;
      location: IdentityEventProfileLocation;
    };
  };
}

/** Members every identity event's `attributes` has, besides `properties`. */
export interface IdentityEventAttributesBase {
  /** ISO 8601 time of the event. */
  time: string;
  /** Monetary value of the event (0 when it has none). */
  value: number;
  /** ISO 4217. */
  value_currency: string;
  /** Deduplication key per profile and metric (stable across retries). */
  unique_id: string;
  metric: IdentityEventMetric;
  profile: IdentityEventProfile;
}

// ---------------------------------------------------------------------------------------------------------------
// Checkout Started (spec, exact)
// ---------------------------------------------------------------------------------------------------------------

export interface IdentityEventImage {
  src: string;
}

/** Money in shop and presentment currencies. */
interface IdentityEventPriceSet {
  shop_money: { amount: number };
  presentment_money: { amount: number };
}

interface IdentityEventLineItemVariant {
  sku: string;
  title: string;
  id: string;
  images: IdentityEventImage[];
}

interface IdentityEventLineItemProduct {
  body_html: string;
  tags: string;
  handle: string;
  id: string;
  title: string;
  product_type: string;
  url: string;
  vendor: string;
  images: IdentityEventImage[];
  variant: IdentityEventLineItemVariant;
}

/** A line of `$extra.line_items` (spec "Webhook line item"). */
export interface IdentityEventLineItem {
  key: string;
  presentment_title: string;
  parent_relationship: string;
  grams: string;
  product_id: string;
  variant_id: string;
  vendor: string;
  sku: string;
  variant_title: string;
  presentment_variant_title: string;
  title: string;
  compare_at_price: number;
  line_price: number;
  variant_price: number;
  price: number;
  /** Integer. */
  quantity: number;
  line_price_set: IdentityEventPriceSet;
  product: IdentityEventLineItemProduct;
}

/** `properties.$extra` of Checkout Started (non-segmentable data). */
interface CheckoutStartedExtra {
  full_landing_site: string;
  referring_site: string;
  checkout_url: string;
  responsive_checkout_url: string;
  line_items: IdentityEventLineItem[];
}

interface CheckoutStartedProperties {
  /** Union of the products' collections. */
  Collections: string[];
  $currency_code: string;
  /** Product names. */
  Items: string[];
  /** Integer. */
  'Item Count': number;
  presentment_currency: string;
  $value: number;
  'Discount Codes': string[];
  /** Integer (as the spec types it). */
  'Total Discounts': number;
  $extra: CheckoutStartedExtra;
}

interface CheckoutStartedAttributes extends IdentityEventAttributesBase {
  properties: CheckoutStartedProperties;
}

/** Checkout Started (sent for `checkout_started`). */
export interface CheckoutStartedPayload {
  /** `event`. */
  type: string;
  attributes: CheckoutStartedAttributes;
}

// ---------------------------------------------------------------------------------------------------------------
// The five other identity events (our design after Klaviyo conventions)
// ---------------------------------------------------------------------------------------------------------------

/** Active On site (first page view of a session). */
interface ActiveOnSiteProperties {
  $is_session_activity: boolean;
  $use_ip: boolean;
  /** Page URL. */
  page: string;
  /** `document.referrer` of the page, `""` when none. */
  $last_referrer: string;
}

interface ActiveOnSiteAttributes extends IdentityEventAttributesBase {
  properties: ActiveOnSiteProperties;
}

export interface ActiveOnSitePayload {
  type: string;
  attributes: ActiveOnSiteAttributes;
}

/** Viewed Product (`product_viewed`). */
interface ViewedProductProperties {
  ProductName: string;
  ProductID: string;
  VariantID: string;
  SKU: string;
  Categories: string[];
  ImageURL: string;
  URL: string;
  Brand: string;
  Price: number;
  CompareAtPrice: number;
}

interface ViewedProductAttributes extends IdentityEventAttributesBase {
  properties: ViewedProductProperties;
}

export interface ViewedProductPayload {
  type: string;
  attributes: ViewedProductAttributes;
}

/** Collection View (`collection_viewed`). */
interface CollectionViewProperties {
  CategoryID: string;
  CategoryName: string;
  CategoryURL: string;
}

interface CollectionViewAttributes extends IdentityEventAttributesBase {
  properties: CollectionViewProperties;
}

export interface CollectionViewPayload {
  type: string;
  attributes: CollectionViewAttributes;
}

/** One cart line of Added to Cart. */
export interface AddedToCartItem {
  ProductID: string;
  SKU: string;
  ProductName: string;
  Quantity: number;
  ItemPrice: number;
  RowTotal: number;
  ProductURL: string;
  ImageURL: string;
  ProductCategories: string[];
}

/** Added to Cart (`product_added_to_cart`). */
interface AddedToCartProperties {
  /** Cart total after the addition (the added line's total when the cart is unknown). */
  $value: number;
  AddedItemProductName: string;
  AddedItemProductID: string;
  AddedItemSKU: string;
  AddedItemCategories: string[];
  AddedItemImageURL: string;
  AddedItemURL: string;
  AddedItemPrice: number;
  AddedItemQuantity: number;
  ItemNames: string[];
  CheckoutURL: string;
  Items: AddedToCartItem[];
}

interface AddedToCartAttributes extends IdentityEventAttributesBase {
  properties: AddedToCartProperties;
}

export interface AddedToCartPayload {
  type: string;
  attributes: AddedToCartAttributes;
}

/** Subscribe (`lead_form_submitted`). */
interface SubscribeProperties {
  /** `lead.formId`, `""` when absent. */
  FormID: string;
  /** Page URL the form was submitted on. */
  PageURL: string;
}

interface SubscribeAttributes extends IdentityEventAttributesBase {
  properties: SubscribeProperties;
}

export interface SubscribePayload {
  type: string;
  attributes: SubscribeAttributes;
}

/** Payload of each identity event. */
export interface IdentityEventPayloadMap {
  'Active On site': ActiveOnSitePayload;
  'Viewed Product': ViewedProductPayload;
  'Collection View': CollectionViewPayload;
  'Added to Cart': AddedToCartPayload;
  'Checkout Started': CheckoutStartedPayload;
  Subscribe: SubscribePayload;
}

/** Any identity-event payload (an explicit union: tsoa cannot resolve indexed access types). */
export type IdentityEventPayload =
  | ActiveOnSitePayload
  | ViewedProductPayload
  | CollectionViewPayload
  | AddedToCartPayload
  | CheckoutStartedPayload
  | SubscribePayload;
