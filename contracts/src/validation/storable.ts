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
 */
export function findUnstorable(value: unknown, root: string, maxDepth = MAX_DEPTH): FieldError | null {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const message = stringProblem(v);
      if (message) return { field: fieldOf(path, root), message };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= maxDepth) {
      return { field: fieldOf(path, root), message: `is nested deeper than ${maxDepth} levels` };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i] as unknown, path: [...path, i] });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, member] = entries[i]!;
      const keyProblem = stringProblem(key);
      if (keyProblem) return { field: `${fieldOf(path, root)} (a member name)`, message: keyProblem };
      stack.push({ value: member, path: [...path, key] });
    }
  }
  return null;
}
