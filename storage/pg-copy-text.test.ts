import { copyLine, copyTextField } from './pg-copy-text';

describe('copyTextField', () => {
  it('leaves plain text and numbers as they are', () => {
    expect(copyTextField('{"a":"b c","n":1}')).toBe('{"a":"b c","n":1}');
    expect(copyTextField(42)).toBe('42');
    expect(copyTextField('')).toBe('');
  });

  it('escapes the characters COPY reads as escapes or separators', () => {
    expect(copyTextField('a\\b')).toBe('a\\\\b');
    expect(copyTextField('a\tb\nc\rd')).toBe('a\\tb\\nc\\rd');
    // "\N" alone would be read as NULL; escaped, it is the two characters.
    expect(copyTextField('\\N')).toBe('\\\\N');
  });

  it('keeps every other character, emoji and line separators included', () => {
    expect(copyTextField('✓ 😀 \u2028 "q"')).toBe('✓ 😀 \u2028 "q"');
  });
});

describe('copyLine', () => {
  it('joins fields by tabs, ends the line, and writes null and booleans as COPY reads them', () => {
    expect(copyLine(['a\tb', 1.5, null, true, false, ''])).toBe('a\\tb\t1.5\t\\N\tt\tf\t\n');
  });
});
