/** Number, date and name formatting, and the date arithmetic of the range selector (calendar days, no time zone). */
import { channelName } from '../../contracts/src/channels';
import type { Touchpoint } from './types';

/** Channels are slugs in the API and GA4's names on screen ("Paid Social"). */
export { channelName };

/** A touchpoint in one line: channel name, source / medium and campaign. */
export const fmtTouch = (t: Touchpoint | null | undefined): string =>
  t ? `${channelName(t.channel)} · ${t.source} / ${t.medium}${t.campaign ? ` · ${t.campaign}` : ''}` : '–';
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export const fmtMoney = (x: number): string => money.format(x);
export const fmtCount = (x: number): string => count.format(x);
export const fmtRatio = (x: number): string => `${count.format(x)}×`;
export const fmtPercent = (x: number | null): string => (x == null ? '–' : `${(x * 100).toFixed(1)} %`);

/** Relative change, or null when the base is zero. */
export function change(now: number, before: number): number | null {
  return before === 0 ? null : (now - before) / Math.abs(before);
}

export function fmtChange(c: number | null): string {
  if (c == null) return 'no previous data';
  const sign = c > 0 ? '+' : c < 0 ? '−' : '±';
  return `${sign}${Math.abs(c * 100).toFixed(1)} % vs previous period`;
}

const DAY_MS = 86_400_000;
const toMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: string, n: number): string => new Date(toMs(day) + n * DAY_MS).toISOString().slice(0, 10);
export const daysBetween = (start: string, end: string): number => Math.round((toMs(end) - toMs(start)) / DAY_MS);

/**
 * The first days of the periods of `granularity` that overlap [start, end), the first one clipped to start
 * (as get/product-analysis/trend dates them): the x axis of a trend, periods without activity included.
 */
export function periodStarts(start: string, end: string, granularity: 'day' | 'week' | 'month'): string[] {
  const out: string[] = [];
  for (let d = start; d < end;) {
    out.push(d);
    if (granularity === 'day') d = addDays(d, 1);
    else if (granularity === 'week') d = addDays(d, 7 - ((new Date(toMs(d)).getUTCDay() + 6) % 7));
    else d = `${new Date(Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)), 1)).toISOString().slice(0, 10)}`;
  }
  return out;
}
