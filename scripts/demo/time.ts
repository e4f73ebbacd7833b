/** Time in the demo: units, ISO formats, the window of the stream and when in it people visit. */
import { Distribution, type Rng } from './random';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const iso = (ms: number): string => new Date(ms).toISOString();
/** ISO 8601 without milliseconds, as Shopify REST writes times. */
export const isoSeconds = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The days the stream covers: every event falls in [startMs, endMs). */
export interface Window {
  startMs: number;
  endMs: number;
  days: number;
}

/** Day of the window (0-based) of a time in it. */
export function dayOf(window: Pick<Window, 'startMs'>, at: number): number {
  return Math.floor((at - window.startMs) / DAY);
}

/** Share of the day's sessions by UTC hour (a US store: evenings US time are 00-04 UTC). */
const HOUR_WEIGHTS = [9, 8, 7, 6, 4, 3, 2, 1.5, 1.2, 1.2, 1.5, 2, 3, 4, 5, 5.5, 6, 6.5, 6.5, 6.5, 7, 7.5, 8, 8.5];
export const HOUR_DIST = new Distribution(
  HOUR_WEIGHTS.map((_, i) => i),
  HOUR_WEIGHTS,
);

/**
 * Day of a person's first visit, by weight: weekends and the days of a sale (`saleAt(noon of the day)`) are
 * busier, and traffic grows a little over the window.
 */
export function firstVisitDays(window: Window, saleAt: (at: number) => boolean): Distribution<number> {
  const days = Array.from({ length: window.days }, (_, d) => d);
  const weights = days.map((d) => {
    const at = window.startMs + d * DAY;
    const weekday = new Date(at).getUTCDay();
    const weekend = weekday === 0 || weekday === 6 ? 1.15 : 1;
    const sale = saleAt(at + 12 * HOUR) ? 1.3 : 1;
    return weekend * sale * (0.9 + (0.2 * d) / Math.max(1, window.days - 1));
  });
  return new Distribution(days, weights);
}

/** Start of a person's first session: a day by weight, then an hour of the day by weight. */
export function firstVisitAt(rng: Rng, startMs: number, dayDist: Distribution<number>): number {
  const day = dayDist.sample(rng);
  const hour = HOUR_DIST.sample(rng);
  return startMs + day * DAY + hour * HOUR + rng.int(HOUR);
}
