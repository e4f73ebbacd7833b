/**
 * Input that no stage of the system can hold or traverse, found before anything else looks at it: NUL
 * characters (PostgreSQL text cannot hold them), unpaired UTF-16 surrogates (PostgreSQL's JSON input refuses
 * them) and nesting deeper than a bound (serializing it would exhaust the stack). The scan is iterative, so
 * it survives any depth itself. See docs/decisions.md (Ingestion).
 */
import type { FieldError } from './result';
import { formatPath } from './result';

/** Deeper than any real payload (a Shopify checkout is about 8 levels deep). */
export const MAX_DEPTH = 32;

// An unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `data.lines[2]` below an object; `body[0][1]` below an array (the root is named then). */
function fieldOf(path: readonly PropertyKey[], root: string): string {
  return typeof path[0] === 'number' ? `${root}${formatPath(path, root)}` : formatPath(path, root);
}

function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)';
  return null;
}

/**
 * The first problem of a parsed JSON value, with its path (`root` names the whole value; paths are written as
 * in validation errors, e.g. `data.cart.lines[2].title`), or null when it can be stored.
 *
 * Values are visited depth first in document order. The API runs this on every item it ingests, so the walk
 * allocates no path per value: each value seen keeps its parent's index and its own key, and the path is
 * rebuilt only for the value that has a problem.
 */
export function findUnstorable(value: unknown, root: string, maxDepth = MAX_DEPTH): FieldError | null {
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: PropertyKey[] = [''];
  const depths: number[] = [0];
  const pending: number[] = [0];
  const add = (v: unknown, parent: number, key: PropertyKey): void => {
    if (typeof v !== 'string' && (typeof v !== 'object' || v === null)) return; // numbers, booleans, null
    pending.push(values.length);
    values.push(v);
    parents.push(parent);
    keys.push(key);
    depths.push(depths[parent]! + 1);
  };
  const fieldAt = (i: number): string => {
    const path: PropertyKey[] = [];
    for (let j = i; j > 0; j = parents[j]!) path.push(keys[j]!);
    return fieldOf(path.reverse(), root);
  };
  while (pending.length > 0) {
    const i = pending.pop()!;
    const v = values[i];
    if (typeof v === 'string') {
      const message = stringProblem(v);
      if (message) return { field: fieldAt(i), message };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depths[i]! >= maxDepth) return { field: fieldAt(i), message: `is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let k = v.length - 1; k >= 0; k--) add(v[k] as unknown, i, k);
      continue;
    }
    const members = Object.keys(v);
    for (let k = members.length - 1; k >= 0; k--) {
      const key = members[k]!;
      const keyProblem = stringProblem(key);
      if (keyProblem) return { field: `${fieldAt(i)} (a member name)`, message: keyProblem };
      add((v as Record<string, unknown>)[key], i, key);
    }
  }
  return null;
}
