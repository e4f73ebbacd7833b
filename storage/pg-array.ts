/**
 * PostgreSQL array literals for array parameters (`$2::bigint[]`), built in one pass; every query converts
 * its arrays of strings and numbers so (storage/db.ts). node-postgres converts an array parameter element by
 * element through its generic value conversion and quotes every element with two regular-expression
 * replacements; for the tens of thousands of cells of a batch's `unnest` statements that was a visible share
 * of the pipeline's CPU. Strings are quoted exactly as node-postgres quotes them; numbers are written bare.
 * Arrays holding anything else (dates, booleans, buffers, nested arrays) are left to node-postgres.
 */
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** The literal of an array of strings, numbers and nulls; null for any other value, left to node-postgres. */
export function plainArrayLiteral(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  let out = '{';
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out += ',';
    const v: unknown = value[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else if (typeof v === 'string') out += NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
    else return null;
  }
  return `${out}}`;
}
