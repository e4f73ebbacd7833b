/** Small formatting helpers of the demo: strings, money, URL query strings, tables, frozen shared objects. */
import type { Money } from '../../contracts/src/events';

/** Currency of the demo store; every amount of the stream is in it. */
export const DEMO_CURRENCY = 'USD';

/**
 * Concatenation into one flat string. Template literals build ropes (a tree of pieces), which cost several times
 * the memory of the text; the strings the plan keeps for the whole run are built with this instead.
 */
export function flat(...parts: (string | number)[]): string {
  return parts.join('');
}

/** An amount in cents as a pixel `Money`. */
export const usd = (cents: number): Money => ({ amount: cents / 100, currencyCode: DEMO_CURRENCY });

/** An amount in cents as a Shopify REST decimal string (`"12.50"`). */
export const decimal = (cents: number): string => (cents / 100).toFixed(2);

/** URL handle of a title (`Fleece Pullover Hoodie` -> `fleece-pullover-hoodie`). */
export const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** `?k=v&k2=v2`, values form-encoded (a space is `+`); `""` without parameters. */
export function withParams(params: [string, string][]): string {
  if (params.length === 0) return '';
  const parts: string[] = [];
  for (const [k, v] of params)
    parts.push(parts.length === 0 ? '?' : '&', k, '=', encodeURIComponent(v).replace(/%20/g, '+'));
  return parts.join('');
}

/** The rows of a `|`-separated table, cells trimmed; blank lines skipped. */
export const tableRows = (table: string): string[][] =>
  table
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split('|').map((c) => c.trim()));

/** Freezes an object shared by many events, so that no consumer can change it for the others. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
