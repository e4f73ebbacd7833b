/**
 * Reports under `data_driven` exist only for a goal the store has a fit of (docs/product.md, Attribution,
 * "Data-driven"): otherwise a 400 naming the store's counts and the thresholds, so a caller knows why and when.
 */
import { DATA_DRIVEN_MIN_CONVERSIONS, DATA_DRIVEN_MIN_PATHS, type Goal } from '../../../contracts/src/attribution';
import type { Db } from '../../../storage/db';
import { loadFit } from '../../../storage/data-driven-fits';
import { badRequest } from '../app/errors';

/** Resolves when `model` is not `data_driven` or the store is fitted for `goal`; a 400 otherwise. */
export async function requireFitFor(db: Pick<Db, 'query'>, storeId: string, model: string, goal: Goal): Promise<void> {
  if (model !== 'data_driven') return;
  const fit = await loadFit(db, storeId, goal);
  if (fit?.weights) return;
  throw badRequest(
    'model',
    fit
      ? `data_driven is not fitted for goal ${goal}: ${fit.reason ?? 'no weights'}`
      : `data_driven is not fitted for goal ${goal} yet: it is fitted nightly (or by npm run models -- fit) once ` +
          `the last 90 days hold at least ${DATA_DRIVEN_MIN_CONVERSIONS} conversions and ` +
          `${DATA_DRIVEN_MIN_PATHS} paths`,
  );
}
