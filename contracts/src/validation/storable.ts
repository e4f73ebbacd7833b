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

/** The values a scan has met (parallel arrays by index) and the indexes it has still to visit. */
interface Walk {
  values: unknown[];
  parents: number[];
  keys: PropertyKey[];
  depths: number[];
  pending: number[];
}

/**
 * Queues a string, object or array member to visit (numbers, booleans and null hold nothing to find). A module
 * function rather than a closure per scan, which tsx would wrap each time (docs/decisions.md, Shape of the code).
 */
function visitLater(walk: Walk, v: unknown, parent: number, key: PropertyKey): void {
  if (typeof v !== 'string' && (typeof v !== 'object' || v === null)) return;
  walk.pending.push(walk.values.length);
  walk.values.push(v);
  walk.parents.push(parent);
  walk.keys.push(key);
  walk.depths.push(walk.depths[parent]! + 1);
}

/** The path of the value at index `i`, rebuilt from its parents: only for the value that has a problem. */
function pathOf(walk: Walk, i: number, root: string): string {
  const path: PropertyKey[] = [];
  for (let j = i; j > 0; j = walk.parents[j]!) path.push(walk.keys[j]!);
  return fieldOf(path.reverse(), root);
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
  const walk: Walk = { values: [value], parents: [-1], keys: [''], depths: [0], pending: [0] };
  const { values, depths, pending } = walk;
  while (pending.length > 0) {
    const i = pending.pop()!;
    const v = values[i];
    if (typeof v === 'string') {
      const message = stringProblem(v);
      if (message) return { field: pathOf(walk, i, root), message };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depths[i]! >= maxDepth)
      return { field: pathOf(walk, i, root), message: `is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let k = v.length - 1; k >= 0; k--) visitLater(walk, v[k] as unknown, i, k);
      continue;
    }
    const members = Object.keys(v);
    for (let k = members.length - 1; k >= 0; k--) {
      const key = members[k]!;
      const keyProblem = stringProblem(key);
      if (keyProblem) return { field: `${pathOf(walk, i, root)} (a member name)`, message: keyProblem };
      visitLater(walk, (v as Record<string, unknown>)[key], i, key);
    }
  }
  return null;
}
