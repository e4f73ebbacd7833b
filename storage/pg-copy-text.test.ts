import fc from 'fast-check';
import { copyBytesField, copyData, copyLine, copyTextField } from './pg-copy-text';

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
    // Numbers as String writes them: integers of micros and cents, and decimals.
    expect(copyLine([-0.25, 12345678901234, 0])).toBe('-0.25\t12345678901234\t0\n');
  });
});

describe('copyBytesField', () => {
  const utf8 = (s: string) => Buffer.from(s, 'utf8');

  it('returns bytes without anything to escape as they are', () => {
    const bytes = utf8('{"a":"✓ 😀"}');
    expect(copyBytesField(bytes)).toEqual(bytes);
    expect(copyBytesField(bytes).buffer).toBe(bytes.buffer);
  });

  it('escapes backslash, newline, carriage return and tab', () => {
    expect(Buffer.from(copyBytesField(utf8('a\\b\tc\nd\re\\N'))).toString()).toBe('a\\\\b\\tc\\nd\\re\\\\N');
  });

  it('gives the UTF-8 of copyTextField for any text, inside a larger buffer too', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string(), (text, before) => {
        const whole = utf8(before + text);
        const bytes = whole.subarray(Buffer.byteLength(before));
        expect(Buffer.from(copyBytesField(bytes)).toString()).toBe(copyTextField(text));
      }),
    );
  });
});

describe('copyData', () => {
  it('writes lines and byte runs one after another as UTF-8', () => {
    const data = copyData(['a\t✓\t', Buffer.from('{"x":"😀"}'), '\n', '', new Uint8Array([0x62, 0x0a])]);
    expect(data.toString()).toBe('a\t✓\t{"x":"😀"}\nb\n');
  });

  it('is empty for no parts', () => {
    expect(copyData([]).length).toBe(0);
  });

  it('holds texts of the widest UTF-8 in the room it reserves, over several runs of text', () => {
    // Three bytes per unit (a dash, a check mark), two per unit (a surrogate pair), and a lone surrogate (written as
    // U+FFFD, three bytes) at the end of a part; texts longer than a run, and runs cut by bytes.
    const parts = [
      '–'.repeat(1000),
      '😀'.repeat(500),
      '\uD800',
      Buffer.from('x'),
      '✓\n',
      ...Array.from({ length: 40 }, (_, i) => `${i}\t${'–'.repeat(900)}\n`),
      Buffer.from('y'),
      'a'.repeat(40_000),
    ];
    const expected = Buffer.from(parts.map((p) => (typeof p === 'string' ? p : p.toString())).join(''));
    const written = copyData(parts);
    // Compared whole rather than by toEqual, which walks a buffer byte by byte.
    expect(written.length).toBe(expected.length);
    expect(Buffer.compare(written, expected)).toBe(0);
    // Nothing but three-byte characters: the room reserved is all used.
    const dashes = '–'.repeat(30_000);
    expect(copyData([dashes]).toString()).toBe(dashes);
  });
});
