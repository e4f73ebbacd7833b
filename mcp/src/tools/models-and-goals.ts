/** `models_and_goals`: get/setting-models and get/setting-goals, what `model` and `goal` accept. */
import { z } from 'zod';
import { formatTable } from '../text-table';
import { defineTool } from './tool';

export const modelsAndGoals = defineTool({
  name: 'models_and_goals',
  title: 'Attribution models and conversion goals',
  description:
    'The attribution models every report accepts (code, name, how it splits credit, the lookback window, the ' +
    'time-decay half-life, which one is the default) and the conversion goals (code, the event that converts, ' +
    'conversions in the last 30 days) (POST get/setting-models and get/setting-goals). Use it to explain a model or ' +
    'to pick the codes for the other tools.',
  input: z.strictObject({}),
  output: z.object({
    models: z.array(
      z.object({
        code: z.string(),
        name: z.string(),
        base_model: z.string(),
        lookback_days: z.number(),
        position_weights: z.object({ first: z.number(), middle: z.number(), last: z.number() }).nullable(),
        half_life_days: z.number().nullable(),
        is_default: z.boolean(),
        description: z.string(),
        // data_driven only: the store's fit per goal, as get/setting-models gives it.
        data_driven: z
          .object({
            min_conversions: z.number(),
            min_paths: z.number(),
            goals: z.array(
              z.object({
                goal: z.string(),
                fitted: z.boolean(),
                reason: z.string().nullable(),
                weights: z.record(z.string(), z.number()),
                window_from: z.string().nullable(),
                window_to: z.string().nullable(),
                paths: z.number(),
                conversions: z.number(),
                fitted_at: z.string().nullable(),
              }),
            ),
          })
          .optional(),
      }),
    ),
    goals: z.array(
      z.object({
        code: z.string(),
        name: z.string(),
        event_type: z.string(),
        lookback_days: z.number(),
        conversion_num: z.number(),
      }),
    ),
  }),
  async run(_args, { client }) {
    const [models, goals] = await Promise.all([client.modelSettings(), client.goalSettings()]);
    const modelTable = formatTable(models.records, [
      { header: 'model', value: (r) => r.code },
      { header: 'name', value: (r) => (r.is_default ? `${r.name} (default)` : r.name) },
      { header: 'lookback days', value: (r) => r.lookback_days, format: 'number' },
      { header: 'half-life days', value: (r) => r.half_life_days ?? '' },
      {
        header: 'fitted goals',
        value: (r) =>
          r.data_driven
            ? r.data_driven.goals
                .filter((g) => g.fitted)
                .map((g) => g.goal)
                .join(', ') || 'none yet'
            : '',
      },
    ]);
    const goalTable = formatTable(goals.goals, [
      { header: 'goal', value: (r) => r.code },
      { header: 'event', value: (r) => r.event_type },
      { header: 'conversions (30 days)', value: (r) => r.conversion_num, format: 'number' },
    ]);
    return {
      structured: { models: models.records, goals: goals.goals },
      text: `Models:\n${modelTable}\nGoals:\n${goalTable}`,
    };
  },
});
