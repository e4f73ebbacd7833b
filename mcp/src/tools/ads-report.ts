/** `ads_report`: get/ad-analysis/list, the attribution of paid traffic down to the ad, with spend. */
import { z } from 'zod';
import { AD_DIMENSION_NAMES, type AdAnalysisListRequest } from '../../../contracts/src/ads';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { adFiltersInput } from './ad-inputs';
import { dateRangeInput, goalInput, modelInput, ordersInput, pageInput, pageSizeInput } from './inputs';
import { adFilterOutput, adRecordOutput, dateRangeOutput } from './outputs';
import { defineTool } from './tool';

export const adsReport = defineTool({
  name: 'ads_report',
  title: 'Ads report (campaign, ad set, ad)',
  description:
    'Attributed conversions and revenue of paid traffic next to its ad spend, by up to four of channel, platform, ' +
    'campaign, ad_set and ad (POST get/ad-analysis/list): ROAS (our attribution) beside ad_roas (what the ad ' +
    'platform claims), CPA, CTR (clicks / impressions), CVR (conversions / clicks) and net profit. Campaign, ad ' +
    'set and ad names come from the ad platforms; filters narrow to a platform, a campaign, an ad or their ids. ' +
    'Paged; the result states the exact request sent.',
  input: z.strictObject({
    ...dateRangeInput,
    dimensions: z
      .array(z.enum(AD_DIMENSION_NAMES))
      .min(1)
      .max(4)
      .default(['platform', 'campaign'])
      .describe('One to four distinct of channel, platform, campaign, ad_set, ad. Default: ["platform", "campaign"].'),
    model: modelInput,
    goal: goalInput,
    filters: adFiltersInput,
    page: pageInput,
    page_size: pageSizeInput,
    orders: ordersInput,
  }),
  output: z.object({
    request: dateRangeOutput.extend({
      dimensions: z.array(z.string()),
      model: z.string(),
      goal: z.string(),
      filters: z.array(adFilterOutput).optional(),
      page: z.number(),
      page_size: z.number(),
      orders: z.array(z.object({ column: z.string(), order: z.string() })).optional(),
    }),
    total: z.number().describe('Rows over all pages.'),
    page_size: z.number(),
    records: z.array(adRecordOutput),
  }),
  async run(args, { client, models, now }) {
    const request: AdAnalysisListRequest = {
      ...resolveDateRange(args, now()),
      dimensions: args.dimensions,
      model: await models.resolve(args.model),
      goal: args.goal,
      ...(args.filters ? { filters: args.filters } : {}),
      page: args.page,
      page_size: args.page_size,
      ...(args.orders ? { orders: args.orders } : {}),
    };
    const data = await client.adReport(request);
    const dims = request.dimensions.map((d) => (d === 'ad_name' ? 'ad' : d));
    const text = formatTable(
      data.records,
      [
        ...dims.map((d) => ({ header: d, value: (r: (typeof data.records)[number]) => r[d] })),
        { header: 'conversions', value: (r) => r.conversions, format: 'number' },
        { header: 'revenue', value: (r) => r.conversion_value, format: 'money' },
        { header: 'spend', value: (r) => r.spend, format: 'money' },
        { header: 'roas', value: (r) => r.roas, format: 'ratio' },
        { header: 'ad_roas', value: (r) => r.ad_roas, format: 'ratio' },
        { header: 'cpa', value: (r) => r.cpa, format: 'money' },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Ads ${request.start_date} to ${request.end_date} (end exclusive), model ${request.model}, goal ${request.goal}, page ${request.page}:\n${text}`,
    };
  },
});
