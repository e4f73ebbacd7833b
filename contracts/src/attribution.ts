/**
 * Attribution models (docs/product.md, Attribution). `data_driven` credits by the weights of the store's stored
 * Markov fit per goal, and only once the store has one (docs/product.md, Attribution, "Data-driven").
 */
export const MODELS = ['first', 'last', 'linear', 'position', 'time_decay', 'data_driven'] as const;
export type Model = (typeof MODELS)[number];
/** A credit's sums as the credits and the attribution rollups name their columns. */
export const CREDIT_SUMS = ['weight', 'new_weight', 'value_micros', 'cogs_micros'] as const;
export type CreditSum = (typeof CREDIT_SUMS)[number];
/**
 * A model's column of one of a credit's sums in the attribution rollups, which hold every model's sums side by side:
 * `weight_linear`, ... (docs/decisions.md, Storage, "The models side by side").
 */
export const modelSumColumn = (sum: CreditSum, model: Model): string => `${sum}_${model}`;
/**
 * The data-driven model is fitted only on this much (docs/product.md, Attribution, "Data-driven"): conversions of
 * the goal and paths (converting and not) in the 90-day window.
 */
export const DATA_DRIVEN_MIN_CONVERSIONS = 100;
export const DATA_DRIVEN_MIN_PATHS = 1_000;
export const DATA_DRIVEN_WINDOW_DAYS = 90;
/**
 * A refit replaces the stored weights of a goal only when some channel's weight moved by more than this (of 1),
 * or the channels changed: a store is recomputed under new weights only for a change that matters, not every
 * night for the noise of one more day of data.
 */
export const DATA_DRIVEN_MIN_WEIGHT_CHANGE = 0.005;
/** A stored fit's integer weights sum to exactly this (or are all 0). */
export const FIT_WEIGHT_SCALE = 1_000_000_000;

/** The models every store has from its first conversion: all but `data_driven`. */
export const RULE_BASED_MODELS = [
  'first',
  'last',
  'linear',
  'position',
  'time_decay',
] as const satisfies readonly Model[];

/** Conversion goals (docs/product.md, Conversions and goals). */
export const GOALS = ['purchase', 'add_to_cart', 'checkout_start', 'payment_info_submitted'] as const;
export type Goal = (typeof GOALS)[number];

/** Report dimensions a get-list request may group by (spec, operation 1). */
export const DIMENSIONS = ['campaign', 'channel', 'source', 'medium', 'landing_page'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Allowed lookback windows in days (docs/product.md, Credentials and tenancy). */
export const LOOKBACK_DAYS = [1, 7, 14, 30, 60, 90, 180] as const;

/** The time-decay model's half-life (docs/product.md, Attribution): default and bounds, in days. */
export const DEFAULT_HALF_LIFE_DAYS = 7;
export const MIN_HALF_LIFE_DAYS = 0.1;
export const MAX_HALF_LIFE_DAYS = 365;

/**
 * Fixed-point scales. Credits are kept as integers so that retracting a credit subtracts exactly what was
 * added (no floating-point drift between incremental views and a recomputation).
 * A conversion's weights sum to exactly WEIGHT_SCALE; money is in micro-units of the store currency.
 */
export const WEIGHT_SCALE = 1_000_000;
export const MONEY_SCALE = 1_000_000;
