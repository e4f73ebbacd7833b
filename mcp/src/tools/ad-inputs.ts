/** Inputs of the ads tools: the ad report's filters, as the API takes them. */
import { z } from 'zod';
import { AD_FILTER_KEYS } from '../../../contracts/src/ads';

export const adFiltersInput = z
  .array(
    z.strictObject({
      key: z.enum(AD_FILTER_KEYS),
      operator: z.enum(['eq', 'in']),
      value: z.union([z.string(), z.array(z.string()).min(1).max(100)]),
    }),
  )
  .max(20)
  .optional()
  .describe(
    'Filters, all of which must hold: {key, operator, value} with key a dimension or an id (campaign_id, ad_set_id, ' +
      'ad_id), operator "eq" (value a string) or "in" (value an array of strings). Names are those the report shows.',
  );
