import fc from 'fast-check';
import { formatPath } from './result';
import { findUnstorable, MAX_DEPTH } from './storable';

/** The walk as first written, a path per value: the specification the allocation-free walk must match. */
function findUnstorableByPaths(value: unknown, root: string, maxDepth = MAX_DEPTH) {
  const fieldOf = (path: readonly PropertyKey[]) =>
    typeof path[0] === 'number' ? `${root}${formatPath(path, root)}` : formatPath(path, root);
  const problem = (s: string) =>
    s.includes('\u0000')
      ? 'must not contain a NUL character (\\u0000)'
      : /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)
        ? 'must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)'
        : null;
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const message = problem(v);
      if (message) return { field: fieldOf(path), message };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= maxDepth) return { field: fieldOf(path), message: `is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i] as unknown, path: [...path, i] });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, member] = entries[i]!;
      const message = problem(key);
      if (message) return { field: `${fieldOf(path)} (a member name)`, message };
      stack.push({ value: member, path: [...path, key] });
    }
  }
  return null;
}

function nested(depth: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

describe('findUnstorable', () => {
  it('accepts ordinary JSON, surrogate pairs included', () => {
    expect(findUnstorable({ a: ['x', 1, null, true, { b: 'emoji \ud83d\ude00' }] }, 'body')).toBeNull();
    expect(findUnstorable(nested(MAX_DEPTH - 1), 'body')).toBeNull();
  });

  it('names the path of a NUL character, in a value or a member name', () => {
    expect(findUnstorable({ data: { cart: { lines: [{}, { title: 'a\u0000b' }] } } }, 'event')).toEqual({
      field: 'data.cart.lines[1].title',
      message: 'must not contain a NUL character (\\u0000)',
    });
    expect(findUnstorable({ data: { 'k\u0000': 1 } }, 'event')).toEqual({
      field: 'data (a member name)',
      message: 'must not contain a NUL character (\\u0000)',
    });
    expect(findUnstorable('\u0000', 'body')?.field).toBe('body');
  });

  it('names unpaired surrogates, high or low, wherever they are', () => {
    for (const s of ['\ud800', 'x\udbffy', '\udc00', 'a\udfff', '\udc00\ud800']) {
      expect(findUnstorable({ id: s }, 'event')).toEqual({
        field: 'id',
        message: 'must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)',
      });
    }
  });

  it('refuses nesting deeper than the bound without exhausting its own stack', () => {
    expect(findUnstorable(nested(MAX_DEPTH + 1), 'body')?.message).toBe(`is nested deeper than ${MAX_DEPTH} levels`);
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(findUnstorable(deep, 'body')).toEqual({
      field: `body${'[0]'.repeat(MAX_DEPTH)}`,
      message: `is nested deeper than ${MAX_DEPTH} levels`,
    });
  });

  it('finds the same first problem as a walk with a path per value, on any JSON', () => {
    // Strings drawn from a few characters, NUL and both halves of a surrogate pair among them, so that values
    // often hold several problems and the first in document order decides.
    const text = fc
      .array(fc.constantFrom('a', '.', '[', '\u0000', '\ud83d', '\ude00', '\ud83d\ude00'), { maxLength: 4 })
      .map((cs) => cs.join(''));
    const { json } = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('json'), { maxLength: 4 }),
        fc.dictionary(text, tie('json'), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 6 }), (value, maxDepth) => {
        expect(findUnstorable(value, 'body', maxDepth)).toEqual(findUnstorableByPaths(value, 'body', maxDepth));
      }),
      { numRuns: 2000 },
    );
  });
});
