/**
 * `compare_models`: the attribution models side by side. One get-list per model (every page) over the same
 * range, dimensions and goal, joined by the dimension values and platform: a row a model does not credit
 * shows zeros under it. Rows are sorted by conversions under the default model, then by the dimensions.
 */
import { modelsFor } from '../models';
import { z } from 'zod';
import { DIMENSIONS, type Dimension, type Model, MODELS } from '../../../contracts/src/attribution';
import { resolveDateRange } from '../defaults';
import { formatCell, formatTable } from '../text-table';
import { allRows, dimensionsOf, figuresOf, rowKey, type RowKeyValues, ZERO_FIGURES } from './all-rows';
import { dimensionColumns } from './columns';
import { dateRangeInput, dimensionsInput, goalInput, pageInput, pageSizeInput } from './inputs';
import type { AttributionMetric } from '../../../contracts/src/reports';
import { dateRangeOutput, dimensionValuesOutput, summaryOutput } from './outputs';
import { defineTool, ToolInputError } from './tool';

type FilterKey = Dimension | 'platform';

const filterInput = z
  .strictObject(
    Object.fromEntries([...DIMENSIONS, 'platform'].map((d) => [d, z.string().optional()])) as Record<
      FilterKey,
      z.ZodOptional<z.ZodString>
    >,
  )
  .optional()
  .describe(
    'Keep only rows with these values of requested dimensions (or of platform), e.g. {"channel": "Paid Search"}.',
  );

export const compareModels = defineTool({
  name: 'compare_models',
  title: 'Attribution models compared',
  description:
    'The attribution models side by side: each row (by the requested dimensions, e.g. each channel) carries the ' +
    'report figures under every model (first, last, linear, position, and any other model the deployment offers), ' +
    "to see which channels or campaigns each model credits more. Each model's figures are those of " +
    'all-attribution/get-list under that model. Filter to one row with `filter`.',
  input: z.strictObject({
    ...dateRangeInput,
    dimensions: dimensionsInput,
    goal: goalInput,
    models: z
      .array(z.enum(MODELS))
      .min(1)
      .optional()
      .describe('Models to compare. Default: every model the deployment offers.'),
    filter: filterInput,
    page: pageInput,
    page_size: pageSizeInput,
  }),
  output: z.object({
    request: dateRangeOutput.extend({
      dimensions: z.array(z.string()),
      goal: z.string(),
      models: z.array(z.string()),
      filter: z.record(z.string(), z.string()).optional(),
    }),
    sorted_by_model: z.string(),
    total: z.number().describe('Rows over all pages.'),
    page: z.number(),
    page_size: z.number(),
    records: z.array(z.object({ ...dimensionValuesOutput, by_model: z.record(z.string(), summaryOutput) })),
  }),
  async run(args, { client, models: catalog, now }) {
    const dimensions = args.dimensions;
    const filter = Object.entries(args.filter ?? {}).filter((e): e is [FilterKey, string] => e[1] !== undefined);
    for (const [d] of filter) {
      if (d !== 'platform' && !dimensions.includes(d)) {
        throw new ToolInputError(`filter.${d}`, `is not one of the requested dimensions (${dimensions.join(', ')})`);
      }
    }
    const offered = await catalog.list();
    // By default every model offered for the goal (a data-driven model only where its goal is fitted).
    const models: string[] = args.models ?? modelsFor(offered, args.goal);
    const range = resolveDateRange(args, now());

    const rows = new Map<string, { dims: RowKeyValues; by: Map<string, Record<AttributionMetric, number>> }>();
    for (const model of models) {
      for (const record of await allRows(client, { ...range, dimensions, model: model as Model, goal: args.goal })) {
        if (!filter.every(([d, v]) => record[d] === v)) continue;
        const key = rowKey(record, dimensions);
        const row = rows.get(key) ?? { dims: dimensionsOf(record, dimensions), by: new Map() };
        row.by.set(model, figuresOf(record));
        rows.set(key, row);
      }
    }

    const sortModel = models.includes(offered.defaultModel) ? offered.defaultModel : models[0]!;
    const conversionsUnder = (r: { by: Map<string, Record<AttributionMetric, number>> }) =>
      r.by.get(sortModel)?.conversions ?? 0;
    const sorted = [...rows.entries()]
      .sort(([ka, a], [kb, b]) => conversionsUnder(b) - conversionsUnder(a) || (ka < kb ? -1 : ka > kb ? 1 : 0))
      .map(([, r]) => ({
        ...r.dims,
        by_model: Object.fromEntries(models.map((m) => [m, r.by.get(m) ?? { ...ZERO_FIGURES }])),
      }));
    const from = (args.page - 1) * args.page_size;
    const records = sorted.slice(from, from + args.page_size);

    const text = formatTable(
      records,
      [
        ...dimensionColumns(dimensions, records),
        ...models.map((m) => ({
          header: `${m}: conv / revenue`,
          value: (r: (typeof records)[number]) =>
            `${formatCell(r.by_model[m]!.conversions)} / ${formatCell(r.by_model[m]!.conversion_value, 'money')}`,
          format: 'ratio' as const,
        })),
      ],
      { total: sorted.length },
    );
    return {
      structured: {
        request: {
          ...range,
          dimensions,
          goal: args.goal,
          models,
          ...(filter.length ? { filter: Object.fromEntries(filter) } : {}),
        },
        sorted_by_model: sortModel,
        total: sorted.length,
        page: args.page,
        page_size: args.page_size,
        records,
      },
      text: `Models compared ${range.start_date} to ${range.end_date} (end exclusive), goal ${args.goal}, sorted by conversions under ${sortModel}:\n${text}`,
    };
  },
});
