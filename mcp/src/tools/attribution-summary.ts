/** `attribution_summary`: get-list-sum, the totals of the attribution report. */
import { z } from 'zod';
import type { GetListSumRequest } from '../../../contracts/src/reports';
import { resolveDateRange } from '../defaults';
import { formatCell } from '../text-table';
import { dateRangeInput, dimensionsInput, goalInput, modelInput } from './inputs';
import { ATTRIBUTION_METRICS } from '../../../contracts/src/reports';
import { getListSumRequestOutput, summaryOutput } from './outputs';
import { defineTool } from './tool';

const MONEY = new Set(['conversion_value', 'spend', 'ad_conversion_value', 'cpa', 'cpm', 'cpc', 'net_profit']);
const RATIOS = new Set(['roas', 'ad_roas', 'net_margin']);

export const attributionSummary = defineTool({
  name: 'attribution_summary',
  title: 'Attribution summary',
  description:
    'The totals of the attribution report over a date range under one model and goal: conversions, new-customer ' +
    'conversions, attributed revenue, spend, clicks, impressions, ROAS, CPA, CPM, CPC, net profit and margin ' +
    '(POST all-attribution/get-list-sum). Ratios are computed from the sums.',
  input: z.strictObject({
    ...dateRangeInput,
    dimensions: dimensionsInput,
    model: modelInput,
    goal: goalInput,
  }),
  output: z.object({ request: getListSumRequestOutput, summary: summaryOutput }),
  async run(args, { client, models, now }) {
    const request: GetListSumRequest = {
      ...resolveDateRange(args, now()),
      dimensions: args.dimensions,
      model: await models.resolve(args.model),
      goal: args.goal,
    };
    const summary = await client.getListSum(request);
    const lines = ATTRIBUTION_METRICS.map(
      (m) => `| ${m} | ${formatCell(summary[m], MONEY.has(m) ? 'money' : RATIOS.has(m) ? 'ratio' : 'number')} |`,
    );
    return {
      structured: { request, summary },
      text: [
        `Totals ${request.start_date} to ${request.end_date} (end exclusive), model ${request.model}, goal ${request.goal}:`,
        '| metric | value |',
        '|---|--:|',
        ...lines,
      ].join('\n'),
    };
  },
});
