/**
 * What every view reads: the signed-in client, the store's "today", the selectors (date range, model, goal) and
 * the models and goals the API offers. Kept in the URL hash (selectors) and sessionStorage (the key) so that a
 * reload or a shared link shows the same view.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Client } from './api';
import { addDays } from './format';

export interface Range {
  /** Inclusive, `YYYY-MM-DD` in the store time zone. */
  start: string;
  /** Exclusive. */
  end: string;
}

export interface Selection {
  range: Range;
  model: string;
  goal: string;
}

export interface Option {
  code: string;
  name: string;
  /** A model offered for these goals only (`data_driven`: its fitted goals); every goal when absent. */
  goals?: string[];
  /** `data_driven`: each fitted goal's weights by channel and when it was fitted. */
  fits?: Record<string, { weights: Record<string, number>; fittedAt: string | null }>;
}

/** Whether `model` can be read for `goal` (a data-driven model only for its fitted goals). */
export const offeredFor = (model: Option, goal: string): boolean => !model.goals || model.goals.includes(goal);

export interface AppState {
  client: Client;
  /** The store's today, from get/data-health. */
  today: string;
  selection: Selection;
  models: Option[];
  goals: Option[];
  /** The store's lookback window in days when the API says it (get/setting-models), else null. */
  lookbackDays: number | null;
  /** The operations of this server, for a view that goes deeper where the server allows. */
  operations: ReadonlySet<string>;
  /** When the views last took in an event (store time), for the freshness label. */
  freshness: string | null;
  select: (s: Partial<Selection>) => void;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const app = useContext(AppContext);
  if (!app) throw new Error('useApp outside the app');
  return app;
}

/** The previous period of the same length, just before the range. */
export function previousRange(r: Range): Range {
  const days = Math.round((Date.parse(r.end) - Date.parse(r.start)) / 86_400_000);
  return { start: addDays(r.start, -days), end: r.start };
}

export const PRESETS: Array<{ label: string; days: number }> = [
  { label: 'Last 7 days', days: 7 },
  { label: 'Last 30 days', days: 30 },
  { label: 'Last 90 days', days: 90 },
];

/** The last `days` days up to and including today. */
export const lastDays = (today: string, days: number): Range => ({
  start: addDays(today, 1 - days),
  end: addDays(today, 1),
});
