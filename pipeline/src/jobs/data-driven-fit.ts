/**
 * The data-driven model's fit (docs/product.md, Attribution, "Data-driven"), per store and goal, over the last
 * DATA_DRIVEN_WINDOW_DAYS days:
 * - converting paths: the channels of each conversion's credited touchpoints in order, read from its `linear`
 *   credits (linear credits every touchpoint the models credit, the direct stand-in included);
 * - non-converting paths: the channels of the sessions in the window of each person without a conversion of the
 *   goal there, direct sessions dropped when the person has others (as the models drop them);
 * both counted by distinct path in SQL, one statement each (no per-person round trips). Below the thresholds the
 * goal is not fitted and the reason is stored. A goal whose new weights are within DATA_DRIVEN_MIN_WEIGHT_CHANGE of
 * the stored ones keeps its stored fit. When some goal's weights did change, the fits are stored and the store's
 * credits recomputed under them in one transaction (`recreditStore`): a second fit on the same data, or on a day
 * more of it, usually changes nothing.
 */
import {
  DATA_DRIVEN_MIN_CONVERSIONS,
  DATA_DRIVEN_MIN_PATHS,
  DATA_DRIVEN_MIN_WEIGHT_CHANGE,
  DATA_DRIVEN_WINDOW_DAYS,
  FIT_WEIGHT_SCALE,
  GOALS,
  type Goal,
} from '../../../contracts/src/attribution';
import { dayInZone } from '../../../contracts/src/time';
import type { Db, Query } from '../../../storage/db';
import { loadFits, saveFit, type StoredFit } from '../../../storage/data-driven-fits';
import { fitMarkov, integerWeights, type MarkovFit, type PathCount, weightsMoved } from '../domain/markov-chain';
import { recreditStore } from '../operations/reconcile/recredit';

export interface FitOptions {
  now: number;
  windowDays?: number;
  minConversions?: number;
  minPaths?: number;
  /** Default DATA_DRIVEN_MIN_WEIGHT_CHANGE. */
  minWeightChange?: number;
}

export interface GoalFit {
  goal: Goal;
  fitted: boolean;
  reason: string | null;
  conversions: number;
  paths: number;
  distinct_paths: number;
  /** Weights as fractions of 1: the new fit's, or the stored ones when they were kept. */
  weights: Record<string, number>;
  removal_effects: Record<string, number>;
  /** Whether the stored weights changed (the store's credits were then recomputed). */
  changed: boolean;
  /** The new weights were within DATA_DRIVEN_MIN_WEIGHT_CHANGE of the stored ones, which were kept. */
  kept: boolean;
}

export interface StoreFit {
  store_id: string;
  window_from: string;
  window_to: string;
  goals: GoalFit[];
  /** Conversions recomputed under the new weights; 0 when no weights changed. */
  recomputed_conversions: number;
  /** Reading the paths and fitting every goal; then storing the fits and recomputing the store. */
  fit_seconds: number;
  recompute_seconds: number;
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, n: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** Distinct paths of one goal in [from, to) (store days), converting and not, with their counts. */
export async function readPaths(
  q: Query,
  storeId: string,
  goal: Goal,
  from: string,
  to: string,
  timezone: string,
): Promise<PathCount[]> {
  const [converting, other] = await Promise.all([
    q<{ channels: string[]; n: number }>(
      'data_driven.converting_paths',
      `select channels, count(*)::int as n from (
         select array_agg(channel order by touch_index) as channels from conversion_credits
         where store_id = $1 and goal = $2 and model = 'linear' and day >= $3::date and day < $4::date
         group by conversion_key) p
       group by channels`,
      [storeId, goal, from, to],
    ),
    q<{ channels: string[]; n: number }>(
      'data_driven.other_paths',
      `with touched as (
         select c.person_id, s.started_at, s.channel
         from sessions s join clients c on c.store_id = s.store_id and c.client_id = s.client_id
         where s.store_id = $1 and s.started_at >= ($3::date)::timestamp at time zone $5
           and s.started_at < ($4::date)::timestamp at time zone $5
       )
       select channels, count(*)::int as n from (
         select array_agg(t.channel order by t.started_at) as channels from touched t
         where not exists (
           select 1 from conversions v
           where v.store_id = $1 and v.goal = $2 and v.person_id = t.person_id and v.day >= $3::date and v.day < $4::date)
         group by t.person_id) p
       group by channels`,
      [storeId, goal, from, to, timezone],
    ),
  ]);
  const withoutDirect = (channels: string[]): string[] =>
    channels.some((c) => c !== 'direct') ? channels.filter((c) => c !== 'direct') : channels;
  return [
    ...converting.map((r) => ({ channels: r.channels, converted: true, count: r.n })),
    ...other.map((r) => ({ channels: withoutDirect(r.channels), converted: false, count: r.n })),
  ];
}

const round = (x: number): number => Math.round(x * 1e9) / 1e9;

/** A goal's fit as the job reports it (weights as shares of 1). */
function resultOf(
  goal: Goal,
  fit: MarkovFit,
  weights: Record<string, number> | null,
  reason: string | null,
): Omit<GoalFit, 'changed' | 'kept'> {
  return {
    goal,
    fitted: weights !== null,
    reason,
    conversions: fit.conversions,
    paths: fit.paths,
    distinct_paths: fit.distinctPaths,
    weights: Object.fromEntries(Object.entries(weights ?? {}).map(([c, w]) => [c, round(w / FIT_WEIGHT_SCALE)])),
    removal_effects:
      weights === null ? {} : Object.fromEntries(Object.entries(fit.removalEffects).map(([c, e]) => [c, round(e)])),
  };
}

/** Fits every goal of the store; stores the fits and recomputes the store under them when a weight changed. */
export async function fitStore(db: Db, storeId: string, opts: FitOptions): Promise<StoreFit> {
  const started = Date.now();
  const minConversions = opts.minConversions ?? DATA_DRIVEN_MIN_CONVERSIONS;
  const minPaths = opts.minPaths ?? DATA_DRIVEN_MIN_PATHS;
  const minWeightChange = opts.minWeightChange ?? DATA_DRIVEN_MIN_WEIGHT_CHANGE;
  const [store] = await db.query<{ timezone: string }>(
    'data_driven.store',
    'select timezone from stores where store_id = $1',
    [storeId],
  );
  if (!store) throw new Error(`no store with id ${storeId}`);
  // The window ends with today (store time), inclusive.
  const to = shiftDay(dayInZone(opts.now, store.timezone), 1);
  const from = shiftDay(to, -(opts.windowDays ?? DATA_DRIVEN_WINDOW_DAYS));
  const stored = new Map((await loadFits(db, storeId)).map((f) => [f.goal, f]));
  const fits: Array<Omit<StoredFit, 'fittedAt'>> = [];
  const goals: GoalFit[] = [];
  for (const goal of GOALS) {
    const paths = await readPaths(db.query, storeId, goal, from, to, store.timezone);
    const fit = fitMarkov(paths);
    const enough = fit.conversions >= minConversions && fit.paths >= minPaths;
    const weights = enough ? integerWeights(fit.weights) : null;
    const reason = enough
      ? null
      : `${fit.conversions} conversions and ${fit.paths} paths from ${from} to ${to}, below the thresholds of ` +
        `${minConversions} conversions and ${minPaths} paths`;
    const previous = stored.get(goal);
    const changed = weightsMoved(previous?.weights ?? null, weights, minWeightChange);
    // Fitted before and still, within the tolerance: the stored fit stands (its weights, window and date).
    if (!changed && previous?.weights && weights) {
      goals.push({ ...resultOf(goal, fit, previous.weights, null), changed: false, kept: true });
      continue;
    }
    fits.push({
      storeId,
      goal,
      weights,
      removalEffects: enough ? fit.removalEffects : null,
      windowFrom: from,
      windowTo: to,
      paths: fit.paths,
      conversions: fit.conversions,
      reason,
    });
    goals.push({ ...resultOf(goal, fit, weights, reason), changed, kept: false });
  }
  const fitted = Date.now();
  const save = async (q: Query): Promise<void> => {
    for (const f of fits) await saveFit(q, f);
  };
  let recomputed = 0;
  if (goals.some((g) => g.changed)) {
    // New weights: stored and the store's credits recomputed under them, in one transaction.
    recomputed = (await recreditStore(db, storeId, { before: save })).conversions;
  } else {
    await db.transaction('data_driven.save', save);
  }
  return {
    store_id: storeId,
    window_from: from,
    window_to: to,
    goals,
    recomputed_conversions: recomputed,
    fit_seconds: Math.round((fitted - started) / 100) / 10,
    recompute_seconds: Math.round((Date.now() - fitted) / 100) / 10,
  };
}

/** The nightly job: every store, one after the other. */
export async function fitAllStores(db: Db, opts: FitOptions): Promise<StoreFit[]> {
  const stores = await db.query<{ store_id: string }>('data_driven.stores', 'select store_id from stores order by 1');
  const out: StoreFit[] = [];
  for (const s of stores) out.push(await fitStore(db, s.store_id, opts));
  return out;
}
