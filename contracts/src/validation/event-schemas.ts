/**
 * Zod schemas of the event envelope and of each kind's `data` (docs/product.md, Ingestion). Each schema satisfies the
 * matching `contracts` interface, so the interfaces stay plain for tsoa while validation is real.
 *
 * Objects are loose: members a producer adds are kept. Members the product depends on are required and
 * never null; members real pixels omit are optional (the warnings are computed in `event.ts`). The shapes
 * recorded from real pixels (test/fixtures/shopify-pixel) are the authority; see docs/decisions.md, Ingestion.
 */
import { z } from 'zod';
import {
  EVENT_NAMES,
  type Attribute,
  type Cart,
  type CartLine,
  type Checkout,
  type CheckoutLineItem,
  type CheckoutOrder,
  type Collection,
  type CompletedCheckout,
  type CompletedCheckoutOrder,
  type Context,
  type Delivery,
  type DiscountApplication,
  type EmptyObject,
  type EventDataMap,
  type EventName,
  type Lead,
  type Localization,
  type MailAddress,
  type Product,
  type ProductVariant,
  type SearchResult,
  type Transaction,
} from '../events';
import {
  currencyCode,
  customerId,
  envelopeId,
  httpUrl,
  isoTimestamp,
  MAX_ID_CHARS,
  moneySchema,
  nonEmptyString,
  orderId,
  quantity,
  typedEmailAddress,
} from './primitives';

const optionalString = z.string().optional();
const nullableString = z.string().nullable();
const optionalNullableString = z.string().nullable().optional();
const optionalNumber = z.number().optional();

// ---------------------------------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------------------------------

const locationMembers = {
  hash: optionalString,
  host: optionalString,
  hostname: optionalString,
  origin: optionalString,
  pathname: optionalString,
  port: optionalString,
  protocol: optionalString,
  search: optionalString,
};

/** The page's location: `href` must be an absolute http(s) URL (landing page, UTMs and click ids come from it). */
const locationSchema = z.looseObject({ href: httpUrl, ...locationMembers });

/** `window.location` is not used by the product: any string `href`. */
const windowLocationSchema = z.looseObject({ href: z.string(), ...locationMembers });

/** `referrer` and `title` default to `""` when absent or null. */
const stringOrEmpty = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

const contextSchema = z.looseObject({
  document: z.looseObject({
    characterSet: optionalString,
    location: locationSchema,
    referrer: stringOrEmpty,
    title: stringOrEmpty,
  }),
  navigator: z
    .looseObject({
      cookieEnabled: z.boolean().optional(),
      language: optionalString,
      languages: z.array(z.string()).optional(),
      userAgent: optionalString,
    })
    .optional(),
  window: z
    .looseObject({
      innerHeight: optionalNumber,
      innerWidth: optionalNumber,
      outerHeight: optionalNumber,
      outerWidth: optionalNumber,
      pageXOffset: optionalNumber,
      pageYOffset: optionalNumber,
      scrollX: optionalNumber,
      scrollY: optionalNumber,
      screenX: optionalNumber,
      screenY: optionalNumber,
      screen: z.looseObject({ height: z.number(), width: z.number() }).optional(),
      location: windowLocationSchema.optional(),
      origin: optionalString,
    })
    .optional(),
}) satisfies z.ZodType<Context>;

// ---------------------------------------------------------------------------------------------------------------
// Catalogue
// ---------------------------------------------------------------------------------------------------------------

const productSchema = z.looseObject({
  id: nonEmptyString,
  title: z.string(),
  untranslatedTitle: optionalNullableString,
  url: optionalNullableString,
  vendor: optionalString,
  type: optionalNullableString,
}) satisfies z.ZodType<Product>;

const productVariantSchema = z.looseObject({
  id: nonEmptyString,
  image: z.looseObject({ src: optionalNullableString }).nullable().optional(),
  price: moneySchema,
  product: productSchema,
  sku: optionalNullableString,
  title: optionalNullableString,
  untranslatedTitle: optionalNullableString,
}) satisfies z.ZodType<ProductVariant>;

const attributeSchema = z.looseObject({ key: z.string(), value: z.string() }) satisfies z.ZodType<Attribute>;

const cartCostSchema = z.looseObject({ totalAmount: moneySchema });

const cartLineShape = { cost: cartCostSchema, merchandise: productVariantSchema, quantity };

const cartLineSchema = z.looseObject(cartLineShape) satisfies z.ZodType<CartLine>;

/** The cart line of `product_added_to_cart`, which may not be null. */
const addedCartLineSchema = z.looseObject(cartLineShape, {
  error: 'must be a cart line object (null is allowed on product_removed_from_cart only)',
}) satisfies z.ZodType<CartLine>;

const cartSchema = z.looseObject({
  attributes: z.array(attributeSchema).optional(),
  cost: cartCostSchema,
  id: nullableString,
  lines: z.array(cartLineSchema),
  totalQuantity: quantity,
}) satisfies z.ZodType<Cart>;

const collectionSchema = z.looseObject({
  // `""` for the all-products collection.
  id: z.string(),
  title: z.string(),
  productVariants: z.array(productVariantSchema),
}) satisfies z.ZodType<Collection>;

const searchResultSchema = z.looseObject({
  query: z.string(),
  productVariants: z.array(productVariantSchema),
}) satisfies z.ZodType<SearchResult>;

// ---------------------------------------------------------------------------------------------------------------
// Checkout
// ---------------------------------------------------------------------------------------------------------------

/** Every member optional: `{}` or a few members before the shopper typed the address. */
const mailAddressSchema = z.looseObject({
  address1: optionalNullableString,
  address2: optionalNullableString,
  city: optionalNullableString,
  country: optionalNullableString,
  countryCode: optionalNullableString,
  firstName: optionalNullableString,
  lastName: optionalNullableString,
  phone: optionalNullableString,
  province: optionalNullableString,
  provinceCode: optionalNullableString,
  zip: optionalNullableString,
}) satisfies z.ZodType<MailAddress>;

const discountApplicationSchema = z.looseObject({
  allocationMethod: z.string(),
  targetSelection: z.string(),
  targetType: z.string(),
  title: z.string(),
  type: z.string(),
  value: z.union([moneySchema, z.looseObject({ percentage: z.number() })], {
    error: 'must be a Money object {amount, currencyCode} or {percentage}',
  }),
}) satisfies z.ZodType<DiscountApplication>;

const lineItemSchema = z.looseObject({
  discountAllocations: z
    .array(z.looseObject({ amount: moneySchema, discountApplication: discountApplicationSchema }))
    .optional(),
  finalLinePrice: moneySchema.optional(),
  id: nullableString,
  properties: z.array(attributeSchema).optional(),
  quantity,
  sellingPlanAllocation: z
    .looseObject({ sellingPlan: z.looseObject({ id: z.string(), name: z.string() }) })
    .nullable()
    .optional(),
  title: nullableString,
  variant: productVariantSchema,
}) satisfies z.ZodType<CheckoutLineItem>;

const deliverySchema = z.looseObject({
  selectedDeliveryOptions: z.array(
    z.looseObject({
      cost: moneySchema.nullable(),
      costAfterDiscounts: moneySchema.nullable(),
      description: optionalNullableString,
      handle: z.string(),
      title: nullableString,
      type: z.string(),
    }),
  ),
}) satisfies z.ZodType<Delivery>;

const transactionSchema = z.looseObject({
  amount: moneySchema,
  gateway: z.string(),
  paymentMethod: z.looseObject({ name: z.string(), type: z.string() }).optional(),
}) satisfies z.ZodType<Transaction>;

const localizationSchema = z.looseObject({
  country: z.looseObject({ isoCode: nullableString }),
  language: z.looseObject({ isoCode: z.string() }),
  market: z.looseObject({ handle: optionalNullableString, id: optionalNullableString }).optional(),
}) satisfies z.ZodType<Localization>;

const orderCustomerSchema = z.looseObject({
  id: customerId.nullable(),
  isFirstOrder: z.boolean().nullable().optional(),
});

/** Before completion the order is null, absent or `{}`; an id that is there is normalized like a completed one. */
const checkoutOrderSchema = z.looseObject({
  id: orderId.nullable().optional(),
  customer: orderCustomerSchema.nullable().optional(),
}) satisfies z.ZodType<CheckoutOrder>;

const completedCheckoutOrderSchema = z.looseObject(
  {
    id: z.string({ error: 'must be the order id (a string) on checkout_completed' }).pipe(orderId),
    customer: orderCustomerSchema.nullable().optional(),
  },
  { error: 'must be the order {id, customer} on checkout_completed' },
) satisfies z.ZodType<CompletedCheckoutOrder>;

const isEmptyObject = (value: unknown): value is EmptyObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** `shippingLine.price`: a Money object, or `{}` before a shipping rate is chosen. */
const shippingPriceSchema = z.union([moneySchema, z.custom<EmptyObject>(isEmptyObject)], {
  error: 'must be a Money object {amount, currencyCode}, or {} before a shipping rate is chosen',
});

const checkoutShape = {
  attributes: z.array(attributeSchema).optional(),
  billingAddress: mailAddressSchema.nullable().optional(),
  buyerAcceptsEmailMarketing: z.boolean().optional(),
  buyerAcceptsSmsMarketing: z.boolean().optional(),
  currencyCode,
  delivery: deliverySchema.nullable().optional(),
  discountApplications: z.array(discountApplicationSchema).optional(),
  discountsAmount: moneySchema.nullable().optional(),
  // An identity key once normalized: bounded like the email of a lead.
  email: z.string().max(320).nullable().optional(),
  lineItems: z.array(lineItemSchema),
  localization: localizationSchema.optional(),
  order: checkoutOrderSchema.nullable().optional(),
  phone: optionalNullableString,
  shippingAddress: mailAddressSchema.nullable().optional(),
  shippingLine: z.looseObject({ price: shippingPriceSchema }).nullable(),
  smsMarketingPhone: optionalNullableString,
  subtotalPrice: moneySchema.nullable(),
  token: nonEmptyString,
  totalPrice: moneySchema,
  totalTax: moneySchema,
  transactions: z.array(transactionSchema).optional(),
};

const checkoutSchema = z.looseObject(checkoutShape) satisfies z.ZodType<Checkout>;

/** The checkout of `checkout_completed`: `order.id` is required. */
const completedCheckoutSchema = z.looseObject({
  ...checkoutShape,
  order: completedCheckoutOrderSchema,
}) satisfies z.ZodType<CompletedCheckout>;

const leadSchema = z.looseObject({
  email: typedEmailAddress,
  phone: optionalNullableString,
  firstName: optionalNullableString,
  lastName: optionalNullableString,
  formId: optionalNullableString,
}) satisfies z.ZodType<Lead>;

// ---------------------------------------------------------------------------------------------------------------
// Per-kind data and the envelope
// ---------------------------------------------------------------------------------------------------------------

const checkoutDataSchema = z.looseObject({ checkout: checkoutSchema });

/** The `data` schema of each kind. */
export const EVENT_DATA_SCHEMAS: { readonly [N in EventName]: z.ZodType<EventDataMap[N]> } = {
  // Pixels may leave the (empty by design) data out.
  page_viewed: z.looseObject({}).default({}),
  product_viewed: z.looseObject({ productVariant: productVariantSchema }),
  collection_viewed: z.looseObject({ collection: collectionSchema }),
  search_submitted: z.looseObject({ searchResult: searchResultSchema }),
  product_added_to_cart: z.looseObject({ cartLine: addedCartLineSchema }),
  product_removed_from_cart: z.looseObject({ cartLine: cartLineSchema.nullable() }),
  cart_viewed: z.looseObject({ cart: cartSchema.nullable() }),
  lead_form_submitted: z.looseObject({ lead: leadSchema }),
  checkout_started: checkoutDataSchema,
  checkout_contact_info_submitted: checkoutDataSchema,
  checkout_address_info_submitted: checkoutDataSchema,
  checkout_shipping_info_submitted: checkoutDataSchema,
  payment_info_submitted: checkoutDataSchema,
  checkout_completed: z.looseObject({ checkout: completedCheckoutSchema }),
  custom_event: z.looseObject({
    event: z.string().min(1).max(MAX_ID_CHARS),
    properties: z.record(z.string(), z.unknown()).optional(),
  }),
  user_identified: z
    .looseObject({ customerId: customerId.nullable(), email: typedEmailAddress.nullable() })
    .refine((d) => d.customerId !== null || d.email !== null, { error: 'must carry a customerId or an email' }),
  order_refunded: z.looseObject({ orderId, amount: moneySchema.nullable() }),
};

/** Any object: the `data` check when the name is unknown. */
export const anyObjectSchema = z.looseObject({});

/** Meta's `_fbp` cookie value as Meta's pixel writes it: `fb.<subdomain index>.<creation ms>.<random>`. */
export const FBP_PATTERN = /^fb\.\d+\.\d+\.[A-Za-z0-9_-]+$/;
const fbpSchema = z.string().max(256).regex(FBP_PATTERN, 'must be a _fbp cookie value (fb.1.<ms>.<random>)');

/** The envelope members but `data`, which is checked per kind afterwards (and passes through here). */
export const envelopeSchema = z.looseObject({
  clientId: envelopeId,
  clientIp: z.string(),
  context: contextSchema,
  fbp: fbpSchema.optional(),
  id: envelopeId,
  name: z.enum(EVENT_NAMES),
  seq: z.number(),
  timestamp: isoTimestamp,
  type: nonEmptyString,
});
