/**
 * `compare_periods`: the attribution report against the previous period of equal length, with changes.
 * Totals come from get-list-sum of both periods; the rows are a page of get-list for the requested period,
 * each joined (by its dimension values) with the same row of the previous period (every page of it).
 */
import { z } from 'zod';
import { roundTo } from '../../../contracts/src/metrics';
import type { AttributionSummary, GetListRequest, GetListSumRequest } from '../../../contracts/src/reports';
import { previousPeriod, resolveDateRange } from '../defaults';
import { formatCell, formatTable } from '../text-table';
import { allRows, dimensionsOf, figuresOf, rowKey, ZERO_FIGURES } from './all-rows';
import { dimensionColumns } from './columns';
import { attributionListInput } from './inputs';
import { dateRangeOutput, dimensionValuesOutput, getListRequestOutput, summaryOutput } from './outputs';
import { ATTRIBUTION_METRICS, type AttributionMetric } from '../../../contracts/src/reports';
import { defineTool } from './tool';

type Figures = Record<AttributionMetric, number>;

/** Differences (current - previous) and relative changes ((current - previous) / previous, null from 0). */
export function changesBetween(current: Figures, previous: Figures) {
  const change = {} as Figures;
  const change_pct = {} as Record<AttributionMetric, number | null>;
  for (const m of ATTRIBUTION_METRICS) {
    // Figures have at most 6 decimals: rounding the difference there removes float noise and nothing else.
    change[m] = roundTo(current[m] - previous[m], 6);
    change_pct[m] = previous[m] === 0 ? null : roundTo((current[m] - previous[m]) / Math.abs(previous[m]), 4);
  }
  return { change, change_pct };
}

const changesOutput = z.object({
  current: summaryOutput,
  previous: summaryOutput,
  change: summaryOutput,
  change_pct: z.record(z.string(), z.number().nullable()),
});

const compared = (current: AttributionSummary, previous: AttributionSummary) => {
  const c = figuresOf(current);
  const p = figuresOf(previous);
  return { current: c, previous: p, ...changesBetween(c, p) };
};

export const comparePeriods = defineTool({
  name: 'compare_periods',
  title: 'Attribution against the previous period',
  description:
    'The attribution report for a date range next to the previous period of the same length (e.g. the last 7 days ' +
    'against the 7 days before), with the change and the relative change (change_pct, a fraction; null when the ' +
    'previous figure is 0) of every figure: totals (get-list-sum) and a page of rows by the requested dimensions ' +
    '(get-list).',
  input: attributionListInput,
  output: z.object({
    request: getListRequestOutput,
    previous_period: dateRangeOutput,
    totals: changesOutput,
    total: z.number().describe('Rows of the requested period over all pages.'),
    page_size: z.number(),
    records: z.array(changesOutput.extend(dimensionValuesOutput)),
  }),
  async run(args, { client, models, now }) {
    const range = resolveDateRange(args, now());
    const request: GetListRequest = {
      ...range,
      dimensions: args.dimensions,
      model: await models.resolve(args.model),
      goal: args.goal,
      page: args.page,
      page_size: args.page_size,
      ...(args.orders ? { orders: args.orders } : {}),
    };
    const sumBody: GetListSumRequest = {
      ...range,
      dimensions: request.dimensions,
      model: request.model,
      goal: request.goal,
    };
    // The current period first: the API checks the dates before they are used to compute the previous period.
    const currentTotals = await client.getListSum(sumBody);
    const previous = previousPeriod(range);
    const previousTotals = await client.getListSum({ ...sumBody, ...previous });
    const page = await client.getList(request);
    const previousRows = new Map(
      (await allRows(client, { ...sumBody, ...previous })).map((r) => [rowKey(r, request.dimensions), r]),
    );
    const records = page.records.map((r) => ({
      ...dimensionsOf(r, request.dimensions),
      ...compared(r, previousRows.get(rowKey(r, request.dimensions)) ?? ZERO_FIGURES),
    }));
    const totals = compared(currentTotals, previousTotals);

    const text = formatTable(
      records,
      [
        ...dimensionColumns(request.dimensions, records),
        { header: 'conversions', value: (r) => r.current.conversions, format: 'number' },
        { header: 'previous', value: (r) => r.previous.conversions, format: 'number' },
        { header: 'change', value: (r) => r.change_pct.conversions, format: 'percent' },
        { header: 'revenue', value: (r) => r.current.conversion_value, format: 'money' },
        { header: 'previous', value: (r) => r.previous.conversion_value, format: 'money' },
        { header: 'change', value: (r) => r.change_pct.conversion_value, format: 'percent' },
      ],
      { total: page.total },
    );
    const pct = (m: AttributionMetric) =>
      totals.change_pct[m] === null ? 'n/a' : formatCell(totals.change_pct[m], 'percent');
    return {
      structured: { request, previous_period: previous, totals, total: page.total, page_size: page.page_size, records },
      text:
        `${range.start_date} to ${range.end_date} against ${previous.start_date} to ${previous.end_date} (ends exclusive), ` +
        `model ${request.model}, goal ${request.goal}. Totals: conversions ${totals.current.conversions} (${pct('conversions')}), ` +
        `revenue ${totals.current.conversion_value} (${pct('conversion_value')}), spend ${totals.current.spend} (${pct('spend')}), ` +
        `ROAS ${totals.current.roas} (${pct('roas')}).\n${text}`,
    };
  },
});
