/** What a reconciliation is asked and what it answers (docs/product.md, Attribution invariant). */
import type { Query } from '../../../../storage/db';
import { VIEW_TABLES } from '../../../../storage/schema';
import type { AnalyticsRollup } from '../../domain/rollups/analytics';

export interface DriftRow {
  view:
    | 'clients'
    | 'sessions'
    | 'conversions'
    | 'conversion_credits'
    | 'attribution_daily'
    | 'attribution_by_source'
    | 'attribution_periods'
    | 'attribution_by_source_periods'
    | 'attribution_by_ad'
    | 'ad_spend_daily'
    | AnalyticsRollup;
  key: string;
  expected: unknown;
  actual: unknown;
}

/** Where a phase reports a row of drift. */
export type ReportDrift = (row: DriftRow) => void;

export interface ReconcileOptions {
  /** Compare rollup days from this day (YYYY-MM-DD, inclusive); the whole history when absent. */
  from?: string;
  /** ... to this day (exclusive). */
  to?: string;
  repair?: boolean;
  /**
   * Run inside the repair's transaction once it holds the views' locks, before the store's settings are read: a
   * new data-driven fit is stored there, so that storing it and recomputing under it are one transaction.
   */
  beforeRepair?: (q: Query) => Promise<void>;
  /** Persons recomputed per round trip. */
  chunk?: number;
  /** Stop collecting drift rows after this many (the count stays exact). */
  maxRows?: number;
  /**
   * With `from`: recompute only the persons active since `from` minus the lookback window (every
   * conversion on a day in the range belongs to one of them), instead of every person of the store.
   */
  recentOnly?: boolean;
}

export interface ReconcileResult {
  storeId: string;
  persons: number;
  conversions: number;
  driftCount: number;
  drift: DriftRow[];
  repaired: boolean;
}

/** The compared days: [from, to), either end open when absent. */
export interface DayRange {
  from?: string;
  to?: string;
}

export const inDayRange = (day: string, r: DayRange): boolean => (!r.from || day >= r.from) && (!r.to || day < r.to);

/** The SQL filter of the compared days, on parameters $2 (from) and $3 (to). */
export const DAY_FILTER = `($2::date is null or day >= $2::date) and ($3::date is null or day < $3::date)`;
export const dayParams = (storeId: string, r: DayRange): unknown[] => [storeId, r.from ?? null, r.to ?? null];

/** Takes the views' write locks for the rest of the transaction: no batch interleaves with a repair or a re-credit. */
export async function lockViews(q: Query, tag: string): Promise<void> {
  await q(tag, `lock table ${VIEW_TABLES.join(', ')} in exclusive mode`);
}
