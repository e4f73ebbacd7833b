/**
 * What the report lists share (attribution, ads, analytics): validation of dimensions, sort keys and paging, the ratios (a division
 * by zero gives 0, docs/product.md, Views and metrics) and stable sorting by the record's own key.
 */
import { RATIO_DECIMALS, roundTo } from '../../../contracts/src/metrics';
import type { OrderSpec } from '../../../contracts/src/reports';
import { badRequest } from '../app/errors';

export const DEFAULT_PAGE_SIZE = 20;

export const ratio = (num: number, den: number): number => roundTo(den === 0 ? 0 : num / den, RATIO_DECIMALS);

/** Validates 0..max distinct dimensions out of `allowed`. */
export function validateDimensionList<D extends string>(
  field: string,
  dimensions: readonly string[] | undefined,
  allowed: readonly D[],
  min: number,
  max = 3,
): D[] {
  const dims = dimensions ?? [];
  if (dims.length < min || dims.length > max) throw badRequest(field, `must have ${min} to ${max} entries`);
  for (const d of dims) {
    if (!(allowed as readonly string[]).includes(d))
      throw badRequest(field, `"${d}" is not one of ${allowed.join(', ')}`);
  }
  if (new Set(dims).size !== dims.length) throw badRequest(field, 'must not repeat a dimension');
  return dims as D[];
}

export interface SortKey {
  column: string;
  desc: boolean;
}

export function validateSort(orders: readonly OrderSpec[] | undefined, allowed: readonly string[]): SortKey[] {
  return (orders ?? []).map((o, i) => {
    if (!allowed.includes(o.column))
      throw badRequest(`orders[${i}].column`, `"${o.column}" is not sortable here; use one of ${allowed.join(', ')}`);
    const dir = String(o.order).toLowerCase();
    if (dir !== 'asc' && dir !== 'desc')
      throw badRequest(`orders[${i}].order`, `must be asc or desc, got "${o.order}"`);
    return { column: o.column, desc: dir === 'desc' };
  });
}

// At module level, not inside compareBy: tsx keeps function names by wrapping each named function in a call
// where it is created, which a closure made per comparison paid every time (docs/decisions.md, Shape of the code).
const get = (r: object, c: string): unknown => (r as Record<string, unknown>)[c];

/**
 * A group's value of dimension `d`, or "" when `d` was not requested. A module function rather than a closure
 * per record, for the reason of `get` above.
 */
export function requestedValue(
  values: Readonly<Record<string, string | null | undefined>>,
  dims: readonly string[],
  d: string,
): string {
  return dims.includes(d) ? (values[d] ?? '') : '';
}

/** Orders two records by the keys, then by `tieColumns` ascending (unique per record), so that pages are stable. */
export function compareBy<T extends object>(
  a: T,
  b: T,
  keys: readonly SortKey[],
  tieColumns: readonly string[],
): number {
  for (const k of keys) {
    const x = get(a, k.column);
    const y = get(b, k.column);
    const c =
      typeof x === 'number' && typeof y === 'number'
        ? x - y
        : String(x) < String(y)
          ? -1
          : String(x) > String(y)
            ? 1
            : 0;
    if (c !== 0) return k.desc ? -c : c;
  }
  for (const c of tieColumns) {
    const x = String(get(a, c));
    const y = String(get(b, c));
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Sorts in place by `compareBy`. */
export function sortRecords<T extends object>(
  records: T[],
  keys: readonly SortKey[],
  tieColumns: readonly string[],
): T[] {
  return records.sort((a, b) => compareBy(a, b, keys, tieColumns));
}

export function pageOf<T>(
  records: T[],
  page: number | undefined,
  pageSize: number | undefined,
): { total: number; page_size: number; records: T[] } {
  const size = pageSize ?? DEFAULT_PAGE_SIZE;
  const from = ((page ?? 1) - 1) * size;
  return { total: records.length, page_size: size, records: records.slice(from, from + size) };
}

/** Product ids of a filter: at most `max`, each non-empty. */
export function validateProductIds(field: string, ids: readonly string[] | undefined, max: number): string[] | null {
  if (ids === undefined) return null;
  if (ids.length > max) throw badRequest(field, `must have at most ${max} entries`);
  ids.forEach((id, i) => {
    if (typeof id !== 'string' || !id.trim() || id.length > 200)
      throw badRequest(`${field}[${i}]`, 'must be a non-empty product id of at most 200 characters');
  });
  return [...ids];
}
