/** `influencer_report`: get/influencer-analysis/list, the figures of the store's creators' links. */
import { z } from 'zod';
import type { InfluencerListRequest } from '../../../contracts/src/analytics';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dateRangeInput, ordersInput, pageInput, pageSizeInput } from './inputs';
import { dateRangeOutput } from './outputs';
import { defineTool } from './tool';

const NUMBERS = [
  'links_count',
  'clicks',
  'total_users',
  'new_users',
  'add_to_cart',
  'purchase',
  'purchase_conversion_value',
  'new_customer_purchases',
] as const;

export const influencerReport = defineTool({
  name: 'influencer_report',
  title: 'Influencer report',
  description:
    'Per creator (influencer, partner) whose tracking links the store created: links, clicks, distinct visitors ' +
    'and new visitors from the links, and the add-to-carts, purchases, purchase value and first-time-customer ' +
    'purchases credited to the links under the last-touch model, over a date range ' +
    '(POST get/influencer-analysis/list). Paged; default sort purchase value desc.',
  input: z.strictObject({ ...dateRangeInput, page: pageInput, page_size: pageSizeInput, orders: ordersInput }),
  output: z.object({
    request: dateRangeOutput.extend({ page: z.number(), page_size: z.number() }),
    total: z.number().describe('Creators over all pages.'),
    page_size: z.number(),
    records: z.array(
      z.object({
        creator: z.string(),
        ...(Object.fromEntries(NUMBERS.map((n) => [n, z.number()])) as Record<(typeof NUMBERS)[number], z.ZodNumber>),
      }),
    ),
  }),
  async run(args, { client, now }) {
    const request: InfluencerListRequest & { page: number; page_size: number } = {
      ...resolveDateRange(args, now()),
      page: args.page,
      page_size: args.page_size,
      ...(args.orders ? { orders: args.orders } : {}),
    };
    const data = await client.influencers(request);
    const text = formatTable(
      data.records,
      [
        { header: 'creator', value: (r) => r.creator },
        { header: 'links', value: (r) => r.links_count, format: 'int' },
        { header: 'clicks', value: (r) => r.clicks, format: 'int' },
        { header: 'visitors', value: (r) => r.total_users, format: 'int' },
        { header: 'purchases', value: (r) => r.purchase, format: 'number' },
        { header: 'revenue', value: (r) => r.purchase_conversion_value, format: 'money' },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Creators ${request.start_date} to ${request.end_date} (end exclusive), page ${request.page}:\n${text}`,
    };
  },
});
