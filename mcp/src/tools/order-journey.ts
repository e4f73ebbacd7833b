/** `order_journey`: order/event, the events of an order's buyer up to the purchase. */
import { z } from 'zod';
import type { EventItem, OrderEventRequest } from '../../../contracts/src/reports';
import { formatTable } from '../text-table';
import { pageInput, pageSizeInput } from './inputs';
import { defineTool } from './tool';

/** The event's channel-like origin for the table: the kind object that is filled, else source / medium. */
function origin(e: EventItem): string {
  if (e.ad) return `${e.ad.ad_platform} ad ${e.ad.campaign_name || e.event_campaign}`.trim();
  if (e.creator) return `link ${e.creator.code}${e.creator.creator ? ` (${e.creator.creator})` : ''}`;
  return [e.event_source, e.event_medium].filter(Boolean).join(' / ');
}

export const orderJourney = defineTool({
  name: 'order_journey',
  title: 'Order journey',
  description:
    'The customer journey behind an order (POST order/event): every event of the buyer (all their devices) within ' +
    "the store's lookback window up to the purchase, oldest first, with time (store time zone), page, referrer and " +
    "type. A visit's landing event has type ad, email, social_media, organic_search, referral or direct, with its " +
    'campaign and source; other events have their kind (product_viewed, checkout_started, ...). Paged.',
  input: z.strictObject({
    order_id: z.string().min(1).describe('The order id, as the store knows it.'),
    page: pageInput,
    page_size: pageSizeInput,
  }),
  output: z.object({
    request: z.object({ order_id: z.string(), page: z.number(), page_size: z.number() }),
    order_id: z.string(),
    shop_currency: z.string(),
    total: z.number().describe('Events over all pages.'),
    page: z.number(),
    page_size: z.number(),
    // Each event carries the kind object of its type (ad, products, checkout_started, ...); the others are null.
    events: z.array(
      z.looseObject({
        event_id: z.string(),
        event_at: z.string(),
        event_type: z.string(),
        event_page_url: z.string(),
        event_source: z.string(),
        event_medium: z.string(),
        event_campaign: z.string(),
      }),
    ),
  }),
  async run(args, { client }) {
    const request: Required<OrderEventRequest> = {
      order_id: args.order_id,
      page: args.page,
      page_size: args.page_size,
    };
    const data = await client.orderJourney(request);
    const text = formatTable(
      data.events,
      [
        { header: 'time', value: (e) => e.event_at },
        { header: 'type', value: (e) => e.event_type },
        { header: 'from', value: (e) => origin(e) },
        { header: 'page', value: (e) => e.event_page_url.replace(/^https?:\/\//, '') },
      ],
      { total: data.total },
    );
    return {
      // Spread into plain objects: the declared output is an open record per event.
      structured: { request, ...data, events: data.events.map((e) => ({ ...e })) },
      text: `Journey of order ${data.order_id}, page ${data.page} (${data.total} events, store time):\n${text}`,
    };
  },
});
