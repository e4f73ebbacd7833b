/**
 * Storefront events pushed to the service (spec "Event envelope", docs/product.md, Ingestion).
 *
 * The `data` of every kind follows the Shopify Web Pixels shapes (Shopify's Web Pixels API reference: standard events and their payload types).
 * Presence and nullability:
 * - a key the spec marks required is required here, except the few that real pixels omit
 *   (consent flags, `discountsAmount`, `localization`, `delivery`, `transactions`, `image.src`, `sku`,
 *   `untranslatedTitle`, `vendor`, checkout `email`, and the members Shopify added later: `finalLinePrice`,
 *   `transactions[].paymentMethod`, `product.url`, `order.customer.isFirstOrder`): those are optional and the
 *   validator reports a warning when they are absent (see docs/decisions.md, Ingestion);
 * - addresses are `{}` or partial before the shopper typed them, `checkout.order` is `{}` before completion and
 *   `shippingLine.price` is `{}` before a rate is chosen: accepted without a warning;
 * - order and customer ids given as Shopify global ids (`gid://shopify/OrderIdentity/123`) come out of the
 *   validator as the number (`"123"`), so that the pixel's order meets the order the store pushes;
 * - a value Shopify sends as `null` is typed `T | null`, except the values the product depends on
 *   (ids, amounts, currencies, checkout token, line-item variants), which are never null;
 * - producers may add members; the validator keeps them.
 */

/** A monetary value (spec "Money object", Shopify `MoneyV2`). */
export interface Money {
  /** Decimal amount as a JSON number (never a string). */
  amount: number;
  /**
   * ISO 4217 currency code, three upper-case letters.
   * @pattern ^[A-Z]{3}$
   */
  currencyCode: string;
}

/** A `{key, value}` pair (cart and checkout attributes, line-item properties). */
export interface Attribute {
  key: string;
  value: string;
}

/**
 * Postal address (spec "Mail address"; Shopify `MailingAddress`, whose values may be null). Every member is
 * optional: pixels send `{}` or the few members the shopper has typed so far (e.g. country and province).
 */
export interface MailAddress {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  country?: string | null;
  /** ISO 3166-1 alpha-2. */
  countryCode?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  province?: string | null;
  provinceCode?: string | null;
  zip?: string | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Context (Shopify Web Pixels `Context`)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Snapshot of the browser `Location`. Shopify sends every member; other trackers may send `href` alone,
 * so only `href` is required. Parse UTMs and click ids from `href` (or `search` when present).
 */
export interface Location {
  /** Absolute http(s) URL of the page. */
  href: string;
  hash?: string;
  host?: string;
  hostname?: string;
  origin?: string;
  pathname?: string;
  port?: string;
  protocol?: string;
  search?: string;
}

/** Snapshot of the top frame's `document`. */
interface WebPixelsDocument {
  characterSet?: string;
  location: Location;
  /** URI of the linking page; `""` when none (the validator fills `""` when absent). */
  referrer: string;
  /** Page title; the validator fills `""` when absent. */
  title: string;
}

/** Snapshot of `navigator`; every member optional (tolerated when absent). */
export interface WebPixelsNavigator {
  cookieEnabled?: boolean;
  language?: string;
  languages?: string[];
  userAgent?: string;
}

/** Screen size in CSS pixels. */
interface Screen {
  height: number;
  width: number;
}

/** Snapshot of `window`; every member optional (tolerated when absent). */
interface WebPixelsWindow {
  innerHeight?: number;
  innerWidth?: number;
  outerHeight?: number;
  outerWidth?: number;
  pageXOffset?: number;
  pageYOffset?: number;
  scrollX?: number;
  scrollY?: number;
  screenX?: number;
  screenY?: number;
  screen?: Screen;
  location?: Location;
  origin?: string;
}

/** Browser snapshot at event time (Shopify `Context`). `document` is what the product needs. */
export interface Context {
  document: WebPixelsDocument;
  navigator?: WebPixelsNavigator;
  window?: WebPixelsWindow;
}

// ---------------------------------------------------------------------------------------------------------------
// Catalogue objects (Shopify Web Pixels payload types)
// ---------------------------------------------------------------------------------------------------------------

/** Image reference; `src` may be protocol-relative (`//cdn.shopify.com/...`). */
export interface Image {
  /** Absent from some producers (a data-quality warning). */
  src?: string | null;
}

/** A product (Shopify `Product`). */
export interface Product {
  /** Product id (numeric string in Shopify captures). */
  id: string;
  title: string;
  /** Absent from some producers (warning). */
  untranslatedTitle?: string | null;
  /** Relative URL, e.g. `/products/apple`; absent from pixels older than the member (warning). */
  url?: string | null;
  /** Absent from some producers (warning). */
  vendor?: string;
  /** Product type. */
  type?: string | null;
}

/** A product variant (Shopify `ProductVariant`). */
export interface ProductVariant {
  /** Variant id (numeric string in Shopify captures). */
  id: string;
  /** `null` when neither the variant nor the product has an image; absent from some producers (warning). */
  image?: Image | null;
  price: Money;
  product: Product;
  /** Absent from some producers (warning). */
  sku?: string | null;
  /** e.g. `"Default Title"`. */
  title?: string | null;
  /** Absent from some producers (warning). */
  untranslatedTitle?: string | null;
}

/** Cost of a cart line or a cart. */
interface CartCost {
  totalAmount: Money;
}

/** One line of a cart (Shopify `CartLine`). */
export interface CartLine {
  /** Line total (the `add_to_cart` conversion value, docs/product.md, Conversions and goals). */
  cost: CartCost;
  merchandise: ProductVariant;
  quantity: number;
}

/** A cart (Shopify `Cart`). */
export interface Cart {
  attributes?: Attribute[];
  cost: CartCost;
  id: string | null;
  lines: CartLine[];
  totalQuantity: number;
}

/** A collection (Shopify `Collection`); `productVariants` holds the first variant of each product. */
export interface Collection {
  /** Collection id; `""` for the all-products collection (`/collections/all`). */
  id: string;
  title: string;
  productVariants: ProductVariant[];
}

/** A storefront search (Shopify `SearchResult`). */
export interface SearchResult {
  query: string;
  productVariants: ProductVariant[];
}

// ---------------------------------------------------------------------------------------------------------------
// Checkout (spec "Checkout (basic structure)")
// ---------------------------------------------------------------------------------------------------------------

/** Percentage value of a discount application. */
interface PricingPercentageValue {
  percentage: number;
}

/** A discount applied to the checkout (Shopify `DiscountApplication`). */
export interface DiscountApplication {
  /** `ACROSS` or `EACH`. */
  allocationMethod: string;
  /** `ALL`, `ENTITLED` or `EXPLICIT`. */
  targetSelection: string;
  /** `LINE_ITEM` or `SHIPPING_LINE`. */
  targetType: string;
  /** For `DISCOUNT_CODE` applications, the code. */
  title: string;
  /** `AUTOMATIC`, `DISCOUNT_CODE`, `MANUAL` or `SCRIPT`. */
  type: string;
  value: Money | PricingPercentageValue;
}

/** The share of a discount allocated to one line item. */
interface DiscountAllocation {
  amount: Money;
  discountApplication: DiscountApplication;
}

/** A selling plan (subscription) attached to a line item. */
interface SellingPlan {
  id: string;
  name: string;
}

interface SellingPlanAllocation {
  sellingPlan: SellingPlan;
}

/** One line of a checkout (Shopify `CheckoutLineItem`). */
export interface CheckoutLineItem {
  discountAllocations?: DiscountAllocation[];
  /** Line total after line discounts; absent from pixels older than the member (warning). */
  finalLinePrice?: Money;
  id: string | null;
  properties?: Attribute[];
  quantity: number;
  sellingPlanAllocation?: SellingPlanAllocation | null;
  title: string | null;
  /** Never null here: the product needs the variant id (Shopify types it nullable). */
  variant: ProductVariant;
}

/** A delivery option the buyer picked. */
interface DeliveryOption {
  cost: Money | null;
  costAfterDiscounts: Money | null;
  description?: string | null;
  handle: string;
  title: string | null;
  /** `pickup`, `pickupPoint`, `shipping` or `local`. */
  type: string;
}

export interface Delivery {
  selectedDeliveryOptions: DeliveryOption[];
}

interface PaymentMethod {
  name: string;
  /** e.g. `creditCard`, `wallet`, `offsite`. */
  type: string;
}

/** A payment transaction of the checkout. */
export interface Transaction {
  amount: Money;
  gateway: string;
  /** Absent from pixels older than the member (warning). */
  paymentMethod?: PaymentMethod;
}

/** The buyer as known to the order (`checkout_completed`). */
interface CheckoutOrderCustomer {
  /** Customer id; a `gid://shopify/Customer/<n>` global id comes out of the validator as `<n>`. */
  id: string | null;
  /** Absent from pixels older than the member (warning). */
  isFirstOrder?: boolean | null;
}

/** The order of a checkout: null, absent or `{}` on every kind but `checkout_completed`. */
export interface CheckoutOrder {
  /** Order id; a `gid://shopify/Order/<n>` or `gid://shopify/OrderIdentity/<n>` global id comes out as `<n>`. */
  id?: string | null;
  customer?: CheckoutOrderCustomer | null;
}

/** The order of a completed checkout: its id is always there. */
export interface CompletedCheckoutOrder extends CheckoutOrder {
  /** Order id (non-empty; global ids normalized to the number as above). */
  id: string;
}

interface LocalizationCountry {
  isoCode: string | null;
}

interface LocalizationLanguage {
  isoCode: string;
}

interface LocalizationMarket {
  handle?: string | null;
  id?: string | null;
}

export interface Localization {
  country: LocalizationCountry;
  language: LocalizationLanguage;
  market?: LocalizationMarket;
}

/** The empty object pixels send for `shippingLine.price` before a shipping rate is chosen. */
export type EmptyObject = Record<string, never>;

interface ShippingLine {
  /** `{}` before a shipping rate is chosen. */
  price: Money | EmptyObject;
}

/** A checkout (Shopify `Checkout`). */
export interface Checkout {
  attributes?: Attribute[];
  billingAddress?: MailAddress | null;
  /** Checkout Extensibility only; absent on older checkouts (warning). */
  buyerAcceptsEmailMarketing?: boolean;
  /** Checkout Extensibility only; absent on older checkouts (warning). */
  buyerAcceptsSmsMarketing?: boolean;
  /**
   * ISO 4217 currency of the checkout.
   * @pattern ^[A-Z]{3}$
   */
  currencyCode: string;
  /** Absent on older checkouts (warning). */
  delivery?: Delivery | null;
  discountApplications?: DiscountApplication[];
  /** Absent on older checkouts (warning). */
  discountsAmount?: Money | null;
  /** Identity signal. `null` before the buyer gives it; absent from some producers (warning). */
  email?: string | null;
  lineItems: CheckoutLineItem[];
  /** Absent on older checkouts (warning). */
  localization?: Localization;
  order?: CheckoutOrder | null;
  /** E.164. */
  phone?: string | null;
  shippingAddress?: MailAddress | null;
  shippingLine: ShippingLine | null;
  smsMarketingPhone?: string | null;
  subtotalPrice: Money | null;
  /** Checkout token (the conversion key of `checkout_start` and `payment_info_submitted`, docs/product.md, Conversions and goals). */
  token: string;
  /** Checkout total (the conversion value, docs/product.md, Conversions and goals). */
  totalPrice: Money;
  totalTax: Money;
  /** Absent on older checkouts (warning). */
  transactions?: Transaction[];
}

/** The checkout of a `checkout_completed` event: it carries the order id. */
export interface CompletedCheckout extends Checkout {
  order: CompletedCheckoutOrder;
}

/** A lead captured by a storefront form (docs/product.md, Ingestion, our own kind). */
export interface Lead {
  /** Email address the visitor typed (required; the identity signal); the validator trims and lower-cases it. */
  email: string;
  phone?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  /** Id of the form on the page. */
  formId?: string | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Event kinds and their data
// ---------------------------------------------------------------------------------------------------------------

/** The fourteen storefront kinds (docs/product.md, Ingestion), in spec order: what web analytics counts by kind. */
export const STOREFRONT_EVENT_NAMES = [
  'page_viewed',
  'product_viewed',
  'collection_viewed',
  'search_submitted',
  'product_added_to_cart',
  'product_removed_from_cart',
  'cart_viewed',
  'lead_form_submitted',
  'checkout_started',
  'checkout_contact_info_submitted',
  'checkout_address_info_submitted',
  'checkout_shipping_info_submitted',
  'payment_info_submitted',
  'checkout_completed',
] as const;

/**
 * Every kind the service ingests: the storefront kinds, then the kinds the Segment-compatible source needs
 * (docs/product.md, Segment-compatible source): a custom event (any other `track`), an identity link (`identify`,
 * `alias`, a `userId` on any message) and a refund (`Order Refunded`).
 */
export const EVENT_NAMES = [...STOREFRONT_EVENT_NAMES, 'custom_event', 'user_identified', 'order_refunded'] as const;
export type EventName = (typeof EVENT_NAMES)[number];
export type StorefrontEventName = (typeof STOREFRONT_EVENT_NAMES)[number];

/** The kinds whose data is `{checkout}`. */
export const CHECKOUT_EVENT_NAMES = [
  'checkout_started',
  'checkout_contact_info_submitted',
  'checkout_address_info_submitted',
  'checkout_shipping_info_submitted',
  'payment_info_submitted',
  'checkout_completed',
] as const satisfies readonly EventName[];

/**
 * `page_viewed` data: an empty object by design (the page is in `context.document.location`). Pixels may leave
 * `data` out altogether; the validator then gives `{}`.
 */
interface PageViewedData {
  [key: string]: unknown;
}

interface ProductViewedData {
  productVariant: ProductVariant;
}

interface CollectionViewedData {
  collection: Collection;
}

interface SearchSubmittedData {
  searchResult: SearchResult;
}

/** `product_added_to_cart` data; the cart line is never null for this kind. */
interface ProductAddedToCartData {
  cartLine: CartLine;
}

/** `product_removed_from_cart` data; Shopify may send a null cart line. */
interface ProductRemovedFromCartData {
  cartLine: CartLine | null;
}

/** `cart_viewed` data; Shopify sends a null cart for an empty cart. */
interface CartViewedData {
  cart: Cart | null;
}

interface LeadFormSubmittedData {
  lead: Lead;
}

/** Data of every checkout kind but `checkout_completed`. */
interface CheckoutData {
  checkout: Checkout;
}

interface CheckoutCompletedData {
  checkout: CompletedCheckout;
}

/** `custom_event` data: a `track` call of no kind of ours; journeys show it, it is no goal. */
interface CustomEventData {
  /** The event's name as the producer sent it (e.g. `Newsletter Opened`). */
  event: string;
  properties?: Record<string, unknown>;
}

/**
 * `user_identified` data: the customer id and/or email the event's client is known by (an identity link,
 * docs/product.md, Identity). At least one is non-null. Not a visit: no session starts at it.
 */
interface UserIdentifiedData {
  customerId: string | null;
  /** Trimmed and lower-cased by the validator. */
  email: string | null;
}

/** `order_refunded` data: a refund of a purchase the events reported. Not a visit. */
interface OrderRefundedData {
  orderId: string;
  /** The amount refunded; null refunds the whole order. */
  amount: Money | null;
}

/** The `data` of each kind. */
export interface EventDataMap {
  page_viewed: PageViewedData;
  product_viewed: ProductViewedData;
  collection_viewed: CollectionViewedData;
  search_submitted: SearchSubmittedData;
  product_added_to_cart: ProductAddedToCartData;
  product_removed_from_cart: ProductRemovedFromCartData;
  cart_viewed: CartViewedData;
  lead_form_submitted: LeadFormSubmittedData;
  checkout_started: CheckoutData;
  checkout_contact_info_submitted: CheckoutData;
  checkout_address_info_submitted: CheckoutData;
  checkout_shipping_info_submitted: CheckoutData;
  payment_info_submitted: CheckoutData;
  checkout_completed: CheckoutCompletedData;
  custom_event: CustomEventData;
  user_identified: UserIdentifiedData;
  order_refunded: OrderRefundedData;
}

/** Kinds that are no visit of a page: they join identities or correct a purchase, and start no session. */
const NON_VISIT_EVENT_NAMES = ['user_identified', 'order_refunded'] as const satisfies readonly EventName[];

const NON_VISIT: ReadonlySet<string> = new Set(NON_VISIT_EVENT_NAMES);
/** Whether an event of kind `name` is part of a visit (sessions, touchpoints, web analytics). */
export const isVisitEvent = (name: EventName): boolean => !NON_VISIT.has(name);

/** Any kind's data (for the wire-level envelope). */
export type EventData =
  | PageViewedData
  | ProductViewedData
  | CollectionViewedData
  | SearchSubmittedData
  | ProductAddedToCartData
  | ProductRemovedFromCartData
  | CartViewedData
  | LeadFormSubmittedData
  | CheckoutData
  | CheckoutCompletedData
  | CustomEventData
  | UserIdentifiedData
  | OrderRefundedData;

/** Envelope members shared by every kind. */
export interface EventEnvelopeBase {
  clientId: string;
  clientIp: string;
  context: Context;
  /**
   * Meta's browser id, the `_fbp` cookie of Meta's pixel (`fb.1.<ms>.<random>`), when the tracker saw one: it is
   * sent on with the purchase to Meta's Conversions API (docs/product.md, Conversions to the ad platforms).
   * @pattern ^fb\.\d+\.\d+\.[A-Za-z0-9_-]+$
   */
  fbp?: string;
  id: string;
  seq: number;
  timestamp: string;
  type: string;
}

/** A validated event of kind `N` (internal; not a request body). */
export type EventOf<N extends EventName> = EventEnvelopeBase & { name: N; data: EventDataMap[N] };

/** A validated event, discriminated on `name` (internal; not a request body). */
export type StorefrontEvent = { [N in EventName]: EventOf<N> }[EventName];
