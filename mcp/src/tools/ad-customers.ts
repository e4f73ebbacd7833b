/** `ad_customers`: get/ad-analysis/customer-list, the conversions behind rows of the ads report. */
import { z } from 'zod';
import type { AdCustomerListRequest } from '../../../contracts/src/ads';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { adFiltersInput } from './ad-inputs';
import { dateRangeInput, goalInput, modelInput, pageInput, pageSizeInput } from './inputs';
import { adCustomerOutput, adFilterOutput, dateRangeOutput } from './outputs';
import { defineTool } from './tool';

export const adCustomers = defineTool({
  name: 'ad_customers',
  title: 'Customers behind an ads report row',
  description:
    'The orders (or other conversions) and customers behind the ads report rows that the filters select, e.g. one ' +
    'campaign or one ad (POST get/ad-analysis/customer-list): when they converted, the share of the conversion ' +
    'credited to those rows under the model, the credited and the whole order value, whether the customer was new, ' +
    'and the first and last touchpoints. Their credits add up to the row. Newest first, paged.',
  input: z.strictObject({
    ...dateRangeInput,
    model: modelInput,
    goal: goalInput,
    filters: adFiltersInput,
    page: pageInput,
    page_size: pageSizeInput,
  }),
  output: z.object({
    request: dateRangeOutput.extend({
      dimensions: z.array(z.string()),
      model: z.string(),
      goal: z.string(),
      filters: z.array(adFilterOutput).optional(),
      page: z.number(),
      page_size: z.number(),
    }),
    total: z.number(),
    page: z.number(),
    page_size: z.number(),
    records: z.array(adCustomerOutput),
  }),
  async run(args, { client, models, now }) {
    const request: Required<Pick<AdCustomerListRequest, 'model' | 'goal' | 'page' | 'page_size'>> &
      AdCustomerListRequest = {
      ...resolveDateRange(args, now()),
      dimensions: ['ad'],
      model: await models.resolve(args.model),
      goal: args.goal,
      ...(args.filters ? { filters: args.filters } : {}),
      page: args.page,
      page_size: args.page_size,
    };
    const data = await client.adCustomers(request);
    const text = formatTable(
      data.records,
      [
        { header: 'order', value: (r) => r.order_id },
        { header: 'converted', value: (r) => r.converted_at },
        { header: 'email', value: (r) => r.email },
        { header: 'credit', value: (r) => r.credit, format: 'number' },
        { header: 'credited', value: (r) => r.conversion_value, format: 'money' },
        { header: 'order value', value: (r) => r.order_value, format: 'money' },
        { header: 'new', value: (r) => (r.new_customer ? 'yes' : 'no') },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Conversions ${request.start_date} to ${request.end_date} (end exclusive), model ${request.model}, goal ${request.goal}, page ${request.page}:\n${text}`,
    };
  },
});
