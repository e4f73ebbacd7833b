/**
 * Store pushes (docs/product.md, Ingestion): `POST /{version}/api/store/{orders|products|customers|ad-spend}`, each an array.
 *
 * Orders, products and customers use the Shopify Admin REST shapes (the subset the product uses; extra members
 * are accepted and kept). Money in these shapes is a decimal string (`"19.99"`), as in Shopify REST.
 *
 * The interfaces below are the validated shapes, with every id as a string. On the wire (`*Input` types) an id
 * may be a JSON number or a string; the validators turn ids into strings, as Shopify's own client does to keep
 * large ids exact.
 */

/** The push kinds, as they appear in the path. */
export const PUSH_KINDS = ['orders', 'products', 'customers', 'ad-spend'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** A Shopify id as validated: a string of digits (sent as a safe integer or a string of digits). */
type ShopId = string;

/**
 * A non-negative decimal number written as a string, e.g. `"19.99"`.
 * @pattern ^\d+(\.\d+)?$
 */
type DecimalString = string;

/** The buyer of an order. */
interface ShopOrderCustomer {
  id: ShopId;
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
}

/** One line of an order. */
export interface ShopOrderLineItem {
  id: ShopId;
  /** `null` for custom line items. */
  variant_id?: ShopId | null;
  product_id?: ShopId | null;
  title?: string;
  variant_title?: string | null;
  sku?: string | null;
  vendor?: string | null;
  /** @isInt */
  quantity: number;
  /** Unit price. */
  price: DecimalString;
}

/** A money movement of a refund; `kind: "refund"` with `status: "success"` reduces the order value (docs/product.md, Conversions and goals). */
interface ShopRefundTransaction {
  amount: DecimalString;
  /** e.g. `refund`, `sale`, `capture`, `void`. */
  kind: string;
  /** e.g. `success`, `failure`, `pending`, `error`. */
  status: string;
}

export interface ShopRefund {
  id: ShopId;
  /** ISO 8601. */
  created_at: string;
  transactions: ShopRefundTransaction[];
}

/**
 * A cart attribute carried by the order (Shopify REST `note_attributes`). `_oa_client_id` (written by the
 * store-side tracker) joins the order to that visitor's browser journey.
 */
interface ShopNoteAttribute {
  name: string;
  value?: string | null;
}

/** An order (Shopify Admin REST `Order`, the subset we use). Natural key: `id`; a newer `updated_at` wins. */
export interface ShopOrder {
  id: ShopId;
  /** Display name, e.g. `#1001`. */
  name?: string;
  email?: string | null;
  /** ISO 8601; the conversion time when no `checkout_completed` event matches. */
  created_at: string;
  /** ISO 8601. */
  updated_at: string;
  /** ISO 8601. */
  processed_at?: string | null;
  /** ISO 8601; a cancelled order converts nothing (docs/product.md, Conversions and goals). */
  cancelled_at?: string | null;
  /**
   * Shop currency (ISO 4217) of the `*_price` amounts.
   * @pattern ^[A-Z]{3}$
   */
  currency: string;
  /**
   * Currency the buyer saw.
   * @pattern ^[A-Z]{3}$
   */
  presentment_currency?: string;
  total_price: DecimalString;
  subtotal_price?: DecimalString;
  total_discounts?: DecimalString;
  total_tax?: DecimalString;
  /** e.g. `pending`, `authorized`, `paid`, `partially_refunded`, `refunded`, `voided`. */
  financial_status?: string | null;
  /** First page of the session with its query string (server-side touchpoint fallback, docs/product.md, Identity). */
  landing_site?: string | null;
  referring_site?: string | null;
  /** Joins the order to checkout events. */
  checkout_token?: string | null;
  customer?: ShopOrderCustomer | null;
  line_items: ShopOrderLineItem[];
  refunds?: ShopRefund[];
  /** Cart attributes; `_oa_client_id` names the tracker's visitor (see docs/decisions.md, Identity). */
  note_attributes?: ShopNoteAttribute[] | null;
  /** A test order (Shopify's test gateway, a test notification): stored, never counted as a purchase. */
  test?: boolean;
}

interface ShopProductImage {
  src: string;
}

export interface ShopProductVariant {
  id: ShopId;
  title?: string;
  sku?: string | null;
  price: DecimalString;
  compare_at_price?: DecimalString | null;
  grams?: number;
  /** Our extension: unit cost of goods in the shop currency (for net profit, docs/product.md, Views and metrics). */
  cost?: DecimalString | null;
}

/** A product (Shopify Admin REST `Product`, the subset we use). Natural key: `id`. */
export interface ShopProduct {
  id: ShopId;
  title: string;
  handle?: string;
  body_html?: string | null;
  vendor?: string | null;
  product_type?: string | null;
  /** Comma-separated. */
  tags?: string;
  /** ISO 8601. */
  created_at?: string;
  /** ISO 8601. */
  updated_at: string;
  images?: ShopProductImage[];
  variants: ShopProductVariant[];
}

/** An address of a pushed customer (Shopify REST `Address`). */
export interface ShopCustomerAddress {
  id: ShopId;
  customer_id?: ShopId;
  first_name?: string | null;
  last_name?: string | null;
  company?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  country?: string | null;
  zip?: string | null;
  phone?: string | null;
  name?: string | null;
  province_code?: string | null;
  country_code?: string | null;
  country_name?: string | null;
  default?: boolean;
}

/** Email marketing consent of a pushed customer. */
interface ShopEmailMarketingConsent {
  state: string;
  opt_in_level?: string | null;
  consent_updated_at?: string | null;
}

/** SMS marketing consent of a pushed customer. */
interface ShopSmsMarketingConsent {
  state: string;
  opt_in_level?: string | null;
  consent_updated_at?: string | null;
  consent_collected_from?: string | null;
}

/**
 * A customer as pushed by the store (Shopify REST `Customer`). Only `id`, `created_at` and `updated_at` are
 * required; the customer listing fills the spec's required fields from what was pushed.
 */
export interface ShopCustomer {
  id: ShopId;
  email?: string | null;
  phone?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  /** `disabled`, `invited`, `enabled` or `declined`. */
  state?: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601. */
  updated_at: string;
  /** @isInt */
  orders_count?: number;
  total_spent?: DecimalString;
  last_order_id?: ShopId | null;
  last_order_name?: string | null;
  /** @pattern ^[A-Z]{3}$ */
  currency?: string;
  note?: string | null;
  /** Comma-separated. */
  tags?: string;
  tax_exempt?: boolean;
  tax_exemptions?: string[];
  verified_email?: boolean;
  multipass_identifier?: string | null;
  email_marketing_consent?: ShopEmailMarketingConsent | null;
  sms_marketing_consent?: ShopSmsMarketingConsent | null;
  addresses?: ShopCustomerAddress[];
  default_address?: ShopCustomerAddress | null;
  admin_graphql_api_id?: string;
}

/**
 * One row of ad spend (docs/product.md, Ingestion). Natural key: (date, platform, account_id, campaign_id, adset_id, ad_id);
 * a newer `updated_at` wins. Campaign-level rows carry `""` in the ad-set and ad members.
 * Ids are platform ids (e.g. Meta's `act_123`), sent as numbers or strings.
 */
export interface AdSpendRow {
  /**
   * Day of the spend in the store time zone, `YYYY-MM-DD`.
   * @pattern ^\d{4}-\d{2}-\d{2}$
   */
  date: string;
  /** Ad platform, one of `PLATFORMS` (`google`, `facebook`, ...); others are accepted with a warning. */
  platform: string;
  account_id: string;
  campaign_id: string;
  campaign_name: string;
  adset_id: string;
  adset_name: string;
  ad_id: string;
  ad_name: string;
  /** utm_source the ads carry (joins spend to touchpoints, docs/product.md, Views and metrics). */
  source: string;
  /** utm_medium the ads carry. */
  medium: string;
  /** utm_campaign the ads carry. */
  campaign: string;
  /** @minimum 0 */
  spend: number;
  /**
   * @isInt
   * @minimum 0
   */
  impressions: number;
  /**
   * @isInt
   * @minimum 0
   */
  clicks: number;
  /**
   * Conversion value the platform reports (for ad_roas, docs/product.md, Views and metrics).
   * @minimum 0
   */
  conversion_value: number;
  /** @pattern ^[A-Z]{3}$ */
  currency: string;
  /** ISO 8601; a newer value wins on upsert. */
  updated_at?: string;
}

/** The id members of the push shapes. */
type PushIdKey =
  | 'id'
  | 'variant_id'
  | 'product_id'
  | 'customer_id'
  | 'last_order_id'
  | 'account_id'
  | 'campaign_id'
  | 'adset_id'
  | 'ad_id';

/**
 * `T` as sent on the wire: every id member (`PushIdKey`) may also be a number, recursively.
 * For documentation and tests only; the ingest routes take `unknown` bodies and validate them.
 */
type WireIds<T> = T extends readonly (infer U)[]
  ? WireIds<U>[]
  : T extends object
    ? { [K in keyof T]: K extends PushIdKey ? T[K] | number : WireIds<T[K]> }
    : T;

export type ShopCustomerInput = WireIds<ShopCustomer>;
