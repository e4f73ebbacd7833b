/**
 * Map keys made of several fields (a rollup row's dimensions, a session's client and start), read back by field
 * name rather than by position. The fields are joined with NUL, which no key field holds: PostgreSQL text cannot
 * store it, and the batch writer strips it from payloads before anything is derived from them.
 */
const SEPARATOR = '\u0000';

export interface CompositeKey<F extends string> {
  /** The fields' column names (snake_case), in key order. */
  readonly columns: readonly string[];
  /** The key of a record's fields. */
  of(record: Readonly<Record<F, string | number>>): string;
  /** The key of the fields' values given in key order. */
  ofParts(parts: readonly unknown[]): string;
  /** The key of a database row holding the fields under their column names. */
  ofColumns(row: object): string;
  /** The key's fields in key order, as text; without `omit` when given. */
  parts(key: string, omit?: F): string[];
  /** The keys' fields as one array per field, in key order (the parameters of an `unnest` over the keys). */
  fieldArrays(keys: readonly string[]): string[][];
  /** One field of a key, as text. */
  get(key: string, field: F): string;
  /** The key with one field replaced. */
  with(key: string, field: F, value: string): string;
  /** The key as a drift report shows it: the fields joined with `|`. */
  display(key: string): string;
}

export function compositeKey<const F extends string>(fields: readonly F[]): CompositeKey<F> {
  const index = new Map(fields.map((f, i) => [f, i]));
  const at = (field: F): number => index.get(field)!;
  /** The parts themselves, once they are known to be one per field. */
  const checked = <A extends readonly unknown[]>(parts: A): A => {
    if (parts.length !== fields.length)
      throw new Error(`a key of ${fields.join(', ')} has ${fields.length} fields, got ${parts.length}`);
    return parts;
  };
  const split = (key: string): string[] => checked(key.split(SEPARATOR));
  const columns = fields.map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  return {
    columns,
    of: (record) => fields.map((f) => record[f]).join(SEPARATOR),
    ofParts: (parts) => checked(parts).join(SEPARATOR),
    ofColumns: (row) => columns.map((c) => String((row as Record<string, unknown>)[c])).join(SEPARATOR),
    parts: (key, omit) => {
      const parts = split(key);
      if (omit !== undefined) parts.splice(at(omit), 1);
      return parts;
    },
    fieldArrays: (keys) => {
      const arrays = fields.map(() => new Array<string>(keys.length));
      keys.forEach((key, k) => split(key).forEach((part, f) => (arrays[f]![k] = part)));
      return arrays;
    },
    get: (key, field) => split(key)[at(field)]!,
    with: (key, field, value) => {
      const parts = split(key);
      parts[at(field)] = value;
      return parts.join(SEPARATOR);
    },
    display: (key) => split(key).join('|'),
  };
}
