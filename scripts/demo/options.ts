/** The options of the demo generator, their defaults and their checks. */

export interface DemoOptions {
  /** Exact number of storefront events. */
  events: number;
  /** Any integer; the same seed gives the same stream. */
  seed: number;
  /** First day of the stream (its UTC date is used; the time of day is ignored). */
  start: Date;
  /** Number of days the stream covers, default 30. Every event falls in [start, start + days). */
  days?: number;
  /** Host of the storefront, default `shop.example`. */
  storeHost?: string;
  /**
   * Adds a closing channel, default off: return visits from SMS messages whose visitors buy six times as often as
   * the average visitor. It sits on a large share of the converting journeys and rarely on the others, the shape
   * the data-driven model credits above linear (docs/product.md, Attribution, "Data-driven").
   */
  smsCloser?: boolean;
}

export const DEFAULT_DEMO_DAYS = 30;
export const DEFAULT_STORE_HOST = 'shop.example';

/** The options with their defaults, checked; `start` becomes midnight UTC of its day. */
export function normalizeOptions(opts: DemoOptions): Required<DemoOptions> {
  const days = opts.days ?? DEFAULT_DEMO_DAYS;
  if (!Number.isInteger(opts.events) || opts.events < 0) throw new RangeError('events must be a non-negative integer');
  if (!Number.isInteger(days) || days < 1) throw new RangeError('days must be a positive integer');
  if (!Number.isFinite(opts.seed)) throw new RangeError('seed must be a finite number');
  if (Number.isNaN(opts.start.getTime())) throw new RangeError('start must be a valid date');
  const host = opts.storeHost ?? DEFAULT_STORE_HOST;
  if (!/^[a-z0-9.-]+(:\d+)?$/i.test(host)) throw new RangeError(`storeHost must be a host name, got ${host}`);
  const start = new Date(Date.UTC(opts.start.getUTCFullYear(), opts.start.getUTCMonth(), opts.start.getUTCDate()));
  return {
    events: opts.events,
    seed: opts.seed,
    start,
    days,
    storeHost: host.toLowerCase(),
    smsCloser: opts.smsCloser ?? false,
  };
}
