/** `campaign_orders`: order/campaign-list, the orders credited to a campaign. */
import { z } from 'zod';
import type { CampaignOrderListRequest } from '../../../contracts/src/ads';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dateRangeInput, goalInput, modelInput, pageInput, pageSizeInput } from './inputs';
import { campaignOrderOutput, dateRangeOutput } from './outputs';
import { defineTool } from './tool';

const optionalText = (what: string) => z.string().min(1).optional().describe(what);

export const campaignOrders = defineTool({
  name: 'campaign_orders',
  title: 'Orders of a campaign',
  description:
    'The orders credited to a campaign (the utm campaign as the attribution report shows it), with the share ' +
    'credited under the model, the attributed value, the order total, whether the customer was new, the number ' +
    'of touchpoints and the first and last ones (POST order/campaign-list). Newest first, paged.',
  input: z.strictObject({
    ...dateRangeInput,
    campaign: z.string().min(1).describe('The campaign, as the attribution report shows it.'),
    channel: optionalText('Only touchpoints of this channel.'),
    source: optionalText('Only touchpoints of this source.'),
    medium: optionalText('Only touchpoints of this medium.'),
    platform: optionalText('Only touchpoints of this ad platform.'),
    model: modelInput,
    goal: goalInput,
    page: pageInput,
    page_size: pageSizeInput,
  }),
  output: z.object({
    request: dateRangeOutput.extend({
      campaign: z.string(),
      channel: z.string().optional(),
      source: z.string().optional(),
      medium: z.string().optional(),
      platform: z.string().optional(),
      model: z.string(),
      goal: z.string(),
      page: z.number(),
      page_size: z.number(),
    }),
    total: z.number(),
    page: z.number(),
    page_size: z.number(),
    records: z.array(campaignOrderOutput),
  }),
  async run(args, { client, models, now }) {
    const request: Required<Pick<CampaignOrderListRequest, 'model' | 'goal' | 'page' | 'page_size'>> &
      CampaignOrderListRequest = {
      ...resolveDateRange(args, now()),
      campaign: args.campaign,
      ...(args.channel ? { channel: args.channel } : {}),
      ...(args.source ? { source: args.source } : {}),
      ...(args.medium ? { medium: args.medium } : {}),
      ...(args.platform ? { platform: args.platform } : {}),
      model: await models.resolve(args.model),
      goal: args.goal,
      page: args.page,
      page_size: args.page_size,
    };
    const data = await client.campaignOrders(request);
    const text = formatTable(
      data.records,
      [
        { header: 'order', value: (r) => r.order_id },
        { header: 'created', value: (r) => r.created_at },
        { header: 'total', value: (r) => r.total_price, format: 'money' },
        { header: 'credit', value: (r) => r.credit, format: 'number' },
        { header: 'attributed', value: (r) => r.attributed_value, format: 'money' },
        { header: 'touchpoints', value: (r) => r.touchpoints_count, format: 'number' },
        { header: 'new', value: (r) => (r.new_customer ? 'yes' : 'no') },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Orders of campaign ${request.campaign}, ${request.start_date} to ${request.end_date} (end exclusive), model ${request.model}, goal ${request.goal}, page ${request.page}:\n${text}`,
    };
  },
});
