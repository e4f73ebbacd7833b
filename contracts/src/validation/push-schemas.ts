/**
 * Zod schemas of the store pushes (docs/product.md, Ingestion). Ids come in as numbers or strings and come out as strings;
 * each schema satisfies the matching (string-id) interface of `../pushes`.
 */
import { z } from 'zod';
import type { AdSpendRow, ShopCustomer, ShopCustomerAddress, ShopOrder, ShopProduct } from '../pushes';
import {
  currencyCode,
  decimalString,
  isoDate,
  isoTimestamp,
  nonEmptyString,
  amount,
  count,
  idText,
  platformId,
  platformIdOrEmpty,
  quantity,
  shopId,
} from './primitives';

const optionalNullableString = z.string().nullable().optional();

export const shopOrderSchema = z.looseObject({
  id: shopId,
  name: z.string().optional(),
  email: optionalNullableString,
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  processed_at: isoTimestamp.nullable().optional(),
  cancelled_at: isoTimestamp.nullable().optional(),
  currency: currencyCode,
  presentment_currency: currencyCode.optional(),
  total_price: decimalString,
  subtotal_price: decimalString.optional(),
  total_discounts: decimalString.optional(),
  total_tax: decimalString.optional(),
  financial_status: optionalNullableString,
  landing_site: optionalNullableString,
  referring_site: optionalNullableString,
  checkout_token: optionalNullableString,
  customer: z
    .looseObject({
      id: shopId,
      email: optionalNullableString,
      first_name: optionalNullableString,
      last_name: optionalNullableString,
    })
    .nullable()
    .optional(),
  line_items: z.array(
    z.looseObject({
      id: shopId,
      variant_id: shopId.nullable().optional(),
      product_id: shopId.nullable().optional(),
      title: z.string().optional(),
      variant_title: optionalNullableString,
      sku: optionalNullableString,
      vendor: optionalNullableString,
      quantity,
      price: decimalString,
    }),
  ),
  refunds: z
    .array(
      z.looseObject({
        id: shopId,
        created_at: isoTimestamp,
        transactions: z.array(z.looseObject({ amount: decimalString, kind: z.string(), status: z.string() })),
      }),
    )
    .optional(),
  note_attributes: z
    .array(z.looseObject({ name: z.string(), value: optionalNullableString }))
    .nullable()
    .optional(),
  test: z.boolean().optional(),
}) satisfies z.ZodType<ShopOrder>;

export const shopProductSchema = z.looseObject({
  id: shopId,
  title: z.string(),
  handle: z.string().optional(),
  body_html: optionalNullableString,
  vendor: optionalNullableString,
  product_type: optionalNullableString,
  tags: z.string().optional(),
  created_at: isoTimestamp.optional(),
  updated_at: isoTimestamp,
  images: z.array(z.looseObject({ src: z.string() })).optional(),
  variants: z.array(
    z.looseObject({
      id: shopId,
      title: z.string().optional(),
      sku: optionalNullableString,
      price: decimalString,
      compare_at_price: decimalString.nullable().optional(),
      grams: z.number().min(0).optional(),
      cost: decimalString.nullable().optional(),
    }),
  ),
}) satisfies z.ZodType<ShopProduct>;

const shopCustomerAddressSchema = z.looseObject({
  id: shopId,
  customer_id: shopId.optional(),
  first_name: optionalNullableString,
  last_name: optionalNullableString,
  company: optionalNullableString,
  address1: optionalNullableString,
  address2: optionalNullableString,
  city: optionalNullableString,
  province: optionalNullableString,
  country: optionalNullableString,
  zip: optionalNullableString,
  phone: optionalNullableString,
  name: optionalNullableString,
  province_code: optionalNullableString,
  country_code: optionalNullableString,
  country_name: optionalNullableString,
  default: z.boolean().optional(),
}) satisfies z.ZodType<ShopCustomerAddress>;

const consentShape = {
  state: z.string(),
  opt_in_level: optionalNullableString,
  consent_updated_at: isoTimestamp.nullable().optional(),
};

export const shopCustomerSchema = z.looseObject({
  id: shopId,
  email: optionalNullableString,
  phone: optionalNullableString,
  first_name: optionalNullableString,
  last_name: optionalNullableString,
  state: z.enum(['disabled', 'enabled', 'invited', 'declined']).optional(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  orders_count: quantity.optional(),
  total_spent: decimalString.optional(),
  last_order_id: shopId.nullable().optional(),
  last_order_name: optionalNullableString,
  currency: currencyCode.optional(),
  note: optionalNullableString,
  tags: z.string().optional(),
  tax_exempt: z.boolean().optional(),
  tax_exemptions: z.array(z.string()).optional(),
  verified_email: z.boolean().optional(),
  multipass_identifier: optionalNullableString,
  email_marketing_consent: z.looseObject(consentShape).nullable().optional(),
  sms_marketing_consent: z
    .looseObject({ ...consentShape, consent_collected_from: optionalNullableString })
    .nullable()
    .optional(),
  addresses: z.array(shopCustomerAddressSchema).optional(),
  default_address: shopCustomerAddressSchema.nullable().optional(),
  admin_graphql_api_id: z.string().optional(),
}) satisfies z.ZodType<ShopCustomer>;

export const adSpendRowSchema = z.looseObject({
  date: isoDate,
  platform: nonEmptyString,
  account_id: platformId,
  campaign_id: platformId,
  campaign_name: idText,
  adset_id: platformIdOrEmpty,
  adset_name: idText,
  ad_id: platformIdOrEmpty,
  ad_name: idText,
  source: nonEmptyString,
  medium: nonEmptyString,
  campaign: nonEmptyString,
  spend: amount,
  impressions: count,
  clicks: count,
  conversion_value: amount,
  currency: currencyCode,
  updated_at: isoTimestamp.optional(),
}) satisfies z.ZodType<AdSpendRow>;
