/**
 * An attribution rollup (or the ad rollup) read one row per model, as reports see it: the table's rows hold every
 * model's sums side by side (docs/decisions.md, Storage, "The models side by side"), and this row source lists
 * each model's four as `model`, `weight`, `new_weight`, `value_micros` and `cogs_micros`, leaving out a model whose
 * sums are all zero in a row, as the table left out such rows when it held one per model.
 */
import { CREDIT_SUMS, MODELS, modelSumColumn } from '../../contracts/src/attribution';
import type { RollupTable } from '../../pipeline/src/domain/rollups/table';

/** A row source (to follow `from`): `store_id`, the table's key columns, then the model and its sums. */
export function byModel(t: RollupTable): string {
  const models = MODELS.map((m) => `('${m}', ${CREDIT_SUMS.map((s) => modelSumColumn(s, m)).join(', ')})`).join(', ');
  return `(select ${['store_id', ...t.keys.map((c) => c.name)].map((c) => `t.${c}`).join(', ')},
                  m.model, m.weight, m.new_weight, m.value_micros, m.cogs_micros
           from ${t.table} t cross join lateral (values ${models}) as m (model, weight, new_weight, value_micros, cogs_micros)
           where m.weight <> 0 or m.new_weight <> 0 or m.value_micros <> 0 or m.cogs_micros <> 0) ${t.table}_by_model`;
}
