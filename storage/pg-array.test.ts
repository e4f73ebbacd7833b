import { createRequire } from 'node:module';
import { plainArrayLiteral } from './pg-array';

/** node-postgres's own conversion of a parameter (not in its type declarations). */
const { prepareValue } = createRequire(__filename)('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

describe('array literals', () => {
  it('quote strings as node-postgres does, backslashes, quotes, commas and braces included', () => {
    const texts = [
      '',
      'plain',
      'a,b',
      '{x}',
      'say "hi"',
      'back\\slash',
      '\\"',
      'NULL',
      ' spaced ',
      'üñí 😀',
      '-infinity',
    ];
    expect(plainArrayLiteral(texts)).toBe(prepareValue(texts));
  });

  it('write numbers bare and nulls as NULL', () => {
    expect(plainArrayLiteral([1, -2, 0, 9_007_199_254_740_991, null, undefined])).toBe(
      '{1,-2,0,9007199254740991,NULL,NULL}',
    );
    expect(plainArrayLiteral([])).toBe('{}');
  });

  it('take only arrays of strings, numbers and nulls', () => {
    expect(plainArrayLiteral(['a', 1, null, undefined])).toBe('{"a",1,NULL,NULL}');
    expect(plainArrayLiteral([])).toBe('{}');
    for (const other of [[true], [new Date(0)], [['nested']], [Buffer.from('x')], [{ a: 1 }], [1n], 'text', null])
      expect(plainArrayLiteral(other)).toBeNull();
  });
});
