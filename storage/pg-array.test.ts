import { createRequire } from 'node:module';
import { arrayLiteral, isPlainArray } from './pg-array';

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
    expect(arrayLiteral(texts)).toBe(prepareValue(texts));
  });

  it('write numbers bare and nulls as NULL', () => {
    expect(arrayLiteral([1, -2, 0, 9_007_199_254_740_991, null, undefined])).toBe(
      '{1,-2,0,9007199254740991,NULL,NULL}',
    );
    expect(arrayLiteral([])).toBe('{}');
  });

  it('take only arrays of strings, numbers and nulls', () => {
    expect(isPlainArray(['a', 1, null, undefined])).toBe(true);
    expect(isPlainArray([])).toBe(true);
    for (const other of [[true], [new Date(0)], [['nested']], [Buffer.from('x')], [{ a: 1 }], [1n], 'text', null])
      expect(isPlainArray(other)).toBe(false);
  });
});
