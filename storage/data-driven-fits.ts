/**
 * The data-driven model's stored fits, per store and goal (docs/product.md, Attribution, "Data-driven"): the last
 * fit attempt's window and counts, and, when it passed the thresholds, the integer weights by channel (summing to
 * FIT_WEIGHT_SCALE) that `data_driven` credits are computed under; otherwise the reason it was not fitted.
 */
import type { Db, Query } from './db';

export interface StoredFit {
  storeId: string;
  goal: string;
  /** Integer weights by channel, summing to 10^9; null when the goal is not fitted. */
  weights: Record<string, number> | null;
  removalEffects: Record<string, number> | null;
  windowFrom: string;
  windowTo: string;
  paths: number;
  conversions: number;
  reason: string | null;
  fittedAt: Date;
}

interface Row {
  store_id: string;
  goal: string;
  weights: Record<string, number> | null;
  removal_effects: Record<string, number> | null;
  window_from: string;
  window_to: string;
  paths: number;
  conversions: number;
  reason: string | null;
  fitted_at: Date;
}

const COLUMNS = `store_id, goal, weights, removal_effects, to_char(window_from, 'YYYY-MM-DD') as window_from,
  to_char(window_to, 'YYYY-MM-DD') as window_to, paths, conversions, reason, fitted_at`;

const fromRow = (r: Row): StoredFit => ({
  storeId: r.store_id,
  goal: r.goal,
  weights: r.weights,
  removalEffects: r.removal_effects,
  windowFrom: r.window_from,
  windowTo: r.window_to,
  paths: r.paths,
  conversions: r.conversions,
  reason: r.reason,
  fittedAt: r.fitted_at,
});

export async function loadFits(db: Pick<Db, 'query'>, storeId: string): Promise<StoredFit[]> {
  const rows = await db.query<Row>(
    'data_driven_fits.load',
    `select ${COLUMNS} from data_driven_fits where store_id = $1 order by goal`,
    [storeId],
  );
  return rows.map(fromRow);
}

export async function loadFit(db: Pick<Db, 'query'>, storeId: string, goal: string): Promise<StoredFit | null> {
  const [row] = await db.query<Row>(
    'data_driven_fits.load_goal',
    `select ${COLUMNS} from data_driven_fits where store_id = $1 and goal = $2`,
    [storeId, goal],
  );
  return row ? fromRow(row) : null;
}

/** Stores the fit of one goal, replacing the previous one. */
export async function saveFit(q: Query, fit: Omit<StoredFit, 'fittedAt'>): Promise<void> {
  await q(
    'data_driven_fits.save',
    `insert into data_driven_fits
       (store_id, goal, weights, removal_effects, window_from, window_to, paths, conversions, reason, fitted_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
     on conflict (store_id, goal) do update set weights = excluded.weights, removal_effects = excluded.removal_effects,
       window_from = excluded.window_from, window_to = excluded.window_to, paths = excluded.paths,
       conversions = excluded.conversions, reason = excluded.reason, fitted_at = excluded.fitted_at`,
    [
      fit.storeId,
      fit.goal,
      fit.weights === null ? null : JSON.stringify(fit.weights),
      fit.removalEffects === null ? null : JSON.stringify(fit.removalEffects),
      fit.windowFrom,
      fit.windowTo,
      fit.paths,
      fit.conversions,
      fit.reason,
    ],
  );
}
