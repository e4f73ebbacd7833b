import { findUnstorable, MAX_DEPTH } from './storable';

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
});
