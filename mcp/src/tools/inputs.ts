/**
 * Input fields shared by the tools. Names and limits are those of the API's request bodies; what the API
 * requires gets a default here (see defaults.ts), so an assistant can call a tool with no argument at all.
 */
import { z } from 'zod';
import { DIMENSIONS, GOALS, MODELS } from '../../../contracts/src/attribution';
import { SORT_ORDERS } from '../../../contracts/src/reports';
import { DEFAULT_DAYS, DEFAULT_GOAL, DEFAULT_PAGE, DEFAULT_PAGE_SIZE, FALLBACK_MODEL } from '../defaults';

const day = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .optional()
    .describe(what);

export const dateRangeInput = {
  start_date: day(
    `First day, YYYY-MM-DD in the store's time zone (inclusive). Default: ${DEFAULT_DAYS} days before end_date.`,
  ),
  end_date: day(
    `Day AFTER the last day, YYYY-MM-DD (exclusive). Default: today in UTC, so that the default range is the last ${DEFAULT_DAYS} full days.`,
  ),
};

export const dimensionsInput = z
  .array(z.enum(DIMENSIONS))
  .min(1)
  .max(3)
  .default(['channel'])
  .describe('One to three distinct dimensions to group by. Default: ["channel"].');

export const modelInput = z
  .enum(MODELS)
  .optional()
  .describe(`Attribution model. Default: the store's default model (${FALLBACK_MODEL} unless the store sets another).`);

export const goalInput = z.enum(GOALS).default(DEFAULT_GOAL).describe(`Conversion goal. Default: ${DEFAULT_GOAL}.`);

export const pageInput = z.number().int().min(1).max(1_000_000).default(DEFAULT_PAGE).describe('Page, from 1.');

export const pageSizeInput = z
  .number()
  .int()
  .min(1)
  .max(100)
  .default(DEFAULT_PAGE_SIZE)
  .describe(`Rows per page, 1 to 100. Default: ${DEFAULT_PAGE_SIZE}.`);

export const ordersInput = z
  .array(
    z.strictObject({
      column: z
        .string()
        .min(1)
        .describe('A metric (conversions, conversion_value, spend, roas, ...) or a requested dimension.'),
      order: z.enum(SORT_ORDERS),
    }),
  )
  .optional()
  .describe('Sort keys. Default: conversions descending, ties by the dimensions ascending.');

/** The input of a get-list over the attribution report: range, dimensions, model, goal, page and sort keys. */
export const attributionListInput = z.strictObject({
  ...dateRangeInput,
  dimensions: dimensionsInput,
  model: modelInput,
  goal: goalInput,
  page: pageInput,
  page_size: pageSizeInput,
  orders: ordersInput,
});
