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
  const shapeError = (got: number): Error =>
    new Error(`a key of ${fields.join(', ')} has ${fields.length} fields, got ${got}`);
  /** The parts themselves, once they are known to be one per field. */
  const checked = <A extends readonly unknown[]>(parts: A): A => {
    if (parts.length !== fields.length) throw shapeError(parts.length);
    return parts;
  };
  const split = (key: string): string[] => checked(key.split(SEPARATOR));
  /**
   * Where field `i` starts and ends in `key`, found by the separators rather than by splitting the key (`get` and
   * `with` run for every rollup delta of a batch, several times over; a split made an array of every field).
   */
  const span = (key: string, i: number): [number, number] => {
    let start = 0;
    let end = key.length;
    let separators = 0;
    for (let at = key.indexOf(SEPARATOR); at >= 0; at = key.indexOf(SEPARATOR, at + 1)) {
      separators++;
      if (separators === i) start = at + 1;
      else if (separators === i + 1) end = at;
    }
    if (separators !== fields.length - 1) throw shapeError(separators + 1);
    return [start, end];
  };
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
    get: (key, field) => {
      const [start, end] = span(key, at(field));
      return key.slice(start, end);
    },
    with: (key, field, value) => {
      const [start, end] = span(key, at(field));
      return `${key.slice(0, start)}${value}${key.slice(end)}`;
    },
    display: (key) => split(key).join('|'),
  };
}
