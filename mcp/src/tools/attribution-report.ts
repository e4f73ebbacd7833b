/** `attribution_report`: get-list, the attribution report by dimensions. */
import { z } from 'zod';
import type { GetListRequest } from '../../../contracts/src/reports';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dimensionColumns } from './columns';
import { attributionListInput } from './inputs';
import { attributionRecordOutput, getListRequestOutput } from './outputs';
import { defineTool } from './tool';

export const attributionReport = defineTool({
  name: 'attribution_report',
  title: 'Attribution report',
  description:
    'Conversions, attributed revenue (conversion_value), ad spend, ROAS, CPA, net profit and the other attribution ' +
    'figures, grouped by up to three of channel, source, medium, campaign, landing_page, over a date range, under ' +
    'one attribution model and goal (POST all-attribution/get-list). Conversions are fractional under linear and ' +
    'position models; money is in the store currency. Paged; the result states the exact request sent.',
  input: attributionListInput,
  output: z.object({
    request: getListRequestOutput,
    total: z.number().describe('Rows over all pages.'),
    page_size: z.number(),
    records: z.array(attributionRecordOutput),
  }),
  async run(args, { client, models, now }) {
    const request: GetListRequest = {
      ...resolveDateRange(args, now()),
      dimensions: args.dimensions,
      model: await models.resolve(args.model),
      goal: args.goal,
      page: args.page,
      page_size: args.page_size,
      ...(args.orders ? { orders: args.orders } : {}),
    };
    const data = await client.getList(request);
    const text = formatTable(
      data.records,
      [
        ...dimensionColumns(request.dimensions, data.records),
        { header: 'conversions', value: (r) => r.conversions, format: 'number' },
        { header: 'revenue', value: (r) => r.conversion_value, format: 'money' },
        { header: 'spend', value: (r) => r.spend, format: 'money' },
        { header: 'roas', value: (r) => r.roas, format: 'ratio' },
        { header: 'net profit', value: (r) => r.net_profit, format: 'money' },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Attribution ${request.start_date} to ${request.end_date} (end exclusive), model ${request.model}, goal ${request.goal}, page ${request.page}:\n${text}`,
    };
  },
});
