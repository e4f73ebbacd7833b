/** `product_report`: get/product-analysis/list, views, carts and sales per product. */
import { z } from 'zod';
import { PRODUCT_ANALYSIS_METRICS, type ProductAnalysisRequest } from '../../../contracts/src/analytics';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dateRangeInput, ordersInput, pageInput, pageSizeInput } from './inputs';
import { dateRangeOutput } from './outputs';
import { defineTool } from './tool';

const TEXTS = ['product_id', 'title', 'vendor', 'product_type', 'image_src'] as const;

export const productReport = defineTool({
  name: 'product_report',
  title: 'Product report',
  description:
    'Per product over a date range: views and distinct viewers, add-to-carts and distinct cart adders, checkouts, ' +
    'purchases, units, revenue (the product share of each purchase value), cost of goods, gross profit, ' +
    'view-to-cart and cart-to-purchase rates, first-time-customer purchases (POST get/product-analysis/list). ' +
    'Paged; default sort revenue desc.',
  input: z.strictObject({
    ...dateRangeInput,
    product_ids: z.array(z.string().min(1)).max(100).optional().describe('Only these products (default all).'),
    page: pageInput,
    page_size: pageSizeInput,
    orders: ordersInput,
  }),
  output: z.object({
    request: dateRangeOutput.extend({ page: z.number(), page_size: z.number() }),
    total: z.number().describe('Products over all pages.'),
    page_size: z.number(),
    records: z.array(
      z.object({
        ...(Object.fromEntries(TEXTS.map((t) => [t, z.string()])) as Record<(typeof TEXTS)[number], z.ZodString>),
        ...(Object.fromEntries(PRODUCT_ANALYSIS_METRICS.map((n) => [n, z.number()])) as Record<
          (typeof PRODUCT_ANALYSIS_METRICS)[number],
          z.ZodNumber
        >),
      }),
    ),
  }),
  async run(args, { client, now }) {
    const request: ProductAnalysisRequest & { page: number; page_size: number } = {
      ...resolveDateRange(args, now()),
      page: args.page,
      page_size: args.page_size,
      ...(args.product_ids ? { product_ids: args.product_ids } : {}),
      ...(args.orders ? { orders: args.orders } : {}),
    };
    const data = await client.productAnalysis(request);
    const text = formatTable(
      data.records,
      [
        { header: 'product', value: (r) => r.title || r.product_id },
        { header: 'views', value: (r) => r.views, format: 'int' },
        { header: 'carts', value: (r) => r.add_to_cart, format: 'int' },
        { header: 'purchases', value: (r) => r.purchases, format: 'int' },
        { header: 'units', value: (r) => r.units, format: 'int' },
        { header: 'revenue', value: (r) => r.revenue, format: 'money' },
        { header: 'gross profit', value: (r) => r.gross_profit, format: 'money' },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Products ${request.start_date} to ${request.end_date} (end exclusive), page ${request.page}:\n${text}`,
    };
  },
});
