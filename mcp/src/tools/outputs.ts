/** Output schemas shared by the tools: the API's records, as zod, checked against the contracts' types. */
import { z } from 'zod';
import type { AdCustomerRecord, AdRecord, CampaignOrderRecord } from '../../../contracts/src/ads';
import { DIMENSIONS, type Dimension } from '../../../contracts/src/attribution';
import {
  ATTRIBUTION_METRICS,
  type AttributionMetric,
  type ApiTouchpoint,
  type AttributionRecord,
  type AttributionSummary,
  type OrderTouchpoints,
  type TrackingLinkRecord,
} from '../../../contracts/src/reports';

export const summaryOutput = z.object(
  Object.fromEntries(ATTRIBUTION_METRICS.map((m) => [m, z.number()])) as Record<AttributionMetric, z.ZodNumber>,
) satisfies z.ZodType<AttributionSummary>;

export const attributionRecordOutput = summaryOutput.extend({
  campaign: z.string(),
  channel: z.string(),
  source: z.string(),
  platform: z.string(),
  medium: z.string(),
  landing_page: z.string(),
}) satisfies z.ZodType<AttributionRecord>;

const touchpointOutput = z.object({
  campaign: z.string(),
  channel: z.string(),
  source: z.string(),
  medium: z.string(),
  time: z.string(),
}) satisfies z.ZodType<ApiTouchpoint>;

export const orderTouchpointsOutput = z.object({
  order_id: z.string(),
  first_touchpoint: touchpointOutput.nullable(),
  last_touchpoint: touchpointOutput.nullable(),
}) satisfies z.ZodType<OrderTouchpoints>;

export const trackingLinkOutput = z.object({
  tracking_link: z.string(),
  campaign: z.string(),
  source: z.string(),
  medium: z.string(),
  landing_page: z.string(),
  created_at: z.string(),
  total_users: z.number(),
  new_users: z.number(),
  clicks: z.number(),
  purchase: z.number(),
  purchase_conversion_value: z.number(),
  add_to_cart: z.number(),
  add_to_cart_conversion_value: z.number(),
  collection_view: z.number(),
  search_submit: z.number(),
}) satisfies z.ZodType<TrackingLinkRecord>;

export const dateRangeOutput = z.object({ start_date: z.string(), end_date: z.string() });

/** The body of a get-list call, as sent. */
export const getListRequestOutput = dateRangeOutput.extend({
  dimensions: z.array(z.string()),
  model: z.string(),
  goal: z.string(),
  page: z.number(),
  page_size: z.number(),
  orders: z.array(z.object({ column: z.string(), order: z.string() })).optional(),
});

/** The body of a get-list-sum call, as sent. */
export const getListSumRequestOutput = getListRequestOutput.omit({ page: true, page_size: true, orders: true });

/** The values of the requested dimensions of a joined row (the others absent), and its platform. */
export const dimensionValuesOutput = {
  ...(Object.fromEntries(DIMENSIONS.map((d) => [d, z.string().optional()])) as Record<
    Dimension,
    z.ZodOptional<z.ZodString>
  >),
  platform: z.string(),
};

/** A record of the ad report: its dimensions and ids, the fourteen numbers, ctr and cvr. */
export const adRecordOutput = summaryOutput.extend({
  channel: z.string(),
  platform: z.string(),
  campaign: z.string(),
  ad_set: z.string(),
  ad: z.string(),
  account_id: z.string(),
  campaign_id: z.string(),
  ad_set_id: z.string(),
  ad_id: z.string(),
  ctr: z.number(),
  cvr: z.number(),
}) satisfies z.ZodType<AdRecord>;

/** A conversion behind an ad report row. */
export const adCustomerOutput = z.object({
  order_id: z.string(),
  customer_id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  converted_at: z.string(),
  credit: z.number(),
  conversion_value: z.number(),
  order_value: z.number(),
  new_customer: z.boolean(),
  first_touchpoint: touchpointOutput,
  last_touchpoint: touchpointOutput,
}) satisfies z.ZodType<AdCustomerRecord>;

/** An order credited to a campaign. */
export const campaignOrderOutput = z.object({
  order_id: z.string(),
  created_at: z.string(),
  customer_id: z.string(),
  email: z.string(),
  total_price: z.number(),
  currency: z.string(),
  credit: z.number(),
  attributed_value: z.number(),
  new_customer: z.boolean(),
  touchpoints_count: z.number(),
  first_touchpoint: touchpointOutput,
  last_touchpoint: touchpointOutput,
}) satisfies z.ZodType<CampaignOrderRecord>;

/** An ad report filter, as sent. */
export const adFilterOutput = z.object({
  key: z.string(),
  operator: z.string(),
  value: z.union([z.string(), z.array(z.string())]),
});
