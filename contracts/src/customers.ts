/**
 * Customer listing (spec operation 6, docs/product.md, API conventions): `GET /{version}/api/customers`, Shopify-like.
 * Errors of that route use Shopify's `{"errors": ...}` body, not the reporting envelope.
 */

/** Account states (the spec shows `disabled` and `enabled`; Shopify also has `invited` and `declined`). */
export const CUSTOMER_STATES = ['disabled', 'enabled', 'invited', 'declined'] as const;
export type CustomerState = (typeof CUSTOMER_STATES)[number];

/** An address of a customer (spec "Address"). */
export interface CustomerAddress {
  id: number;
  customer_id: number;
  first_name: string;
  last_name: string;
  company: string | null;
  address1: string;
  address2: string | null;
  city: string;
  province: string;
  country: string;
  zip: string;
  phone: string | null;
  /** Full name. */
  name: string;
  province_code: string;
  country_code: string;
  country_name: string;
  default: boolean;
}

/** Email marketing consent. */
export interface EmailMarketingConsent {
  /** e.g. `not_subscribed`, `subscribed`. */
  state: string;
  /** e.g. `single_opt_in`, `confirmed_opt_in`. */
  opt_in_level: string;
  /** ISO 8601, or null. */
  consent_updated_at?: string | null;
}

/** SMS marketing consent. */
export interface SmsMarketingConsent {
  state: string;
  opt_in_level: string | null;
  /** ISO 8601, or null. */
  consent_updated_at: string | null;
  /** e.g. `OTHER`, `SHOPIFY`. */
  consent_collected_from: string;
}

/** A customer (spec "Customer"). */
export interface Customer {
  id: number;
  email: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601. */
  updated_at: string;
  first_name: string;
  last_name: string;
  orders_count: number;
  state: CustomerState;
  /** Decimal text, e.g. `"375.30"`. */
  total_spent: string;
  /** Null when the customer has no order. */
  last_order_id?: number | null;
  verified_email: boolean;
  /** Comma-separated; `""` when none. */
  tags: string;
  /** ISO 4217. */
  currency: string;
  phone?: string | null;
  addresses: CustomerAddress[];
  email_marketing_consent: EmailMarketingConsent;
  default_address: CustomerAddress;
  note?: string | null;
  multipass_identifier?: string | null;
  tax_exempt?: boolean;
  /** e.g. `#1169`. */
  last_order_name?: string | null;
  tax_exemptions?: string[];
  sms_marketing_consent?: SmsMarketingConsent | null;
  /** `gid://shopify/Customer/{id}`. */
  admin_graphql_api_id?: string;
}

/** Body of a customer listing page. */
export interface CustomersResponse {
  customers: Customer[];
}

/** Field errors: field name to messages (Shopify 422 style). */
interface ShopifyFieldErrors {
  [field: string]: string[];
}

/** Error body of the customer listing, e.g. `{"errors": "Not Found"}`. */
export interface ShopifyErrorBody {
  errors: string | ShopifyFieldErrors;
}
