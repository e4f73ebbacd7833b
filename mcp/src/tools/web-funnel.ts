/** `web_funnel`: get/web-analysis/list, visitors and the purchase funnel by touchpoint. */
import { z } from 'zod';
import {
  WEB_ANALYSIS_DIMENSIONS,
  WEB_ANALYSIS_METRICS,
  type WebAnalysisRequest,
} from '../../../contracts/src/analytics';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dateRangeInput, ordersInput, pageInput, pageSizeInput } from './inputs';
import { dateRangeOutput } from './outputs';
import { defineTool } from './tool';

const recordOutput = z.object({
  ...(Object.fromEntries(WEB_ANALYSIS_DIMENSIONS.map((d) => [d, z.string()])) as Record<
    (typeof WEB_ANALYSIS_DIMENSIONS)[number],
    z.ZodString
  >),
  ...(Object.fromEntries(WEB_ANALYSIS_METRICS.map((n) => [n, z.number()])) as Record<
    (typeof WEB_ANALYSIS_METRICS)[number],
    z.ZodNumber
  >),
});

export const webFunnel = defineTool({
  name: 'web_funnel',
  title: 'Web funnel',
  description:
    'Visitors and the purchase funnel over a date range, grouped by 0 to 3 of channel, source, medium, campaign, ' +
    'landing_page: distinct users (exact), new and returning users, sessions, engagement and bounce rates, the ' +
    'users reaching each step (product view, add to cart, checkout, payment info, purchase), last-touch purchases, ' +
    'revenue and spend (POST get/web-analysis/list). Paged; default sort unique_users desc.',
  input: z.strictObject({
    ...dateRangeInput,
    dimensions: z
      .array(z.enum(WEB_ANALYSIS_DIMENSIONS))
      .max(3)
      .default(['channel'])
      .describe('Zero to three distinct dimensions to group by. Default: ["channel"].'),
    page: pageInput,
    page_size: pageSizeInput,
    orders: ordersInput,
  }),
  output: z.object({
    request: dateRangeOutput.extend({ dimensions: z.array(z.string()), page: z.number(), page_size: z.number() }),
    total: z.number().describe('Rows over all pages.'),
    page_size: z.number(),
    records: z.array(recordOutput),
  }),
  async run(args, { client, now }) {
    const request: WebAnalysisRequest & { dimensions: string[]; page: number; page_size: number } = {
      ...resolveDateRange(args, now()),
      dimensions: args.dimensions,
      page: args.page,
      page_size: args.page_size,
      ...(args.orders ? { orders: args.orders } : {}),
    };
    const data = await client.webAnalysis(request);
    const text = formatTable(
      data.records,
      [
        ...args.dimensions.map((d) => ({ header: d, value: (r: (typeof data.records)[number]) => r[d] })),
        { header: 'users', value: (r) => r.unique_users, format: 'int' },
        { header: 'sessions', value: (r) => r.total_sessions, format: 'int' },
        { header: 'product views', value: (r) => r.product_view_users, format: 'int' },
        { header: 'carts', value: (r) => r.atc_users, format: 'int' },
        { header: 'checkouts', value: (r) => r.checkout_users, format: 'int' },
        { header: 'buyers', value: (r) => r.purchase_users, format: 'int' },
        { header: 'revenue', value: (r) => r.revenue, format: 'money' },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Web funnel ${request.start_date} to ${request.end_date} (end exclusive), page ${request.page}:\n${text}`,
    };
  },
});
