/**
 * Rows in COPY's text format (tab-separated fields, one row per line), for statements run with `Query.copyFrom`.
 */

/**
 * Whether `text` holds a character to escape. Four substring searches: for a 1.5 KB payload about 0.13 us,
 * where the character-class regular expression took about 1 us (it was 3 us of the daemon's CPU per event).
 */
const needsEscape = (text: string): boolean =>
  text.includes('\\') || text.includes('\n') || text.includes('\r') || text.includes('\t');
const COPY_SPECIALS = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value as a field of COPY's text format: backslash, newline, carriage return and tab escaped, so that none
 * is read as an escape or a separator. NUL cannot be stored in PostgreSQL text at all; callers never pass it.
 */
export function copyTextField(value: string | number): string {
  const text = String(value);
  return needsEscape(text) ? text.replace(COPY_SPECIALS, (c) => COPY_ESCAPES[c]!) : text;
}

type CopyValue = string | number | boolean | null;

/**
 * Fields of a row in COPY text, tab-separated: null as `\N`, booleans as t/f, numbers as String gives them (no
 * character of theirs needs escaping), texts by copyTextField.
 */
export function copyFields(fields: ReadonlyArray<CopyValue>): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (i > 0) line += '\t';
    if (f === null) line += '\\N';
    else if (typeof f === 'number') line += String(f);
    else if (typeof f === 'boolean') line += f ? 't' : 'f';
    else line += copyTextField(f);
  }
  return line;
}

/** One row as a line of COPY text (copyFields and the end of line). */
export const copyLine = (fields: ReadonlyArray<CopyValue>): string => `${copyFields(fields)}\n`;

const BACKSLASH = 0x5c;
/** COPY_ESCAPES as bytes: each special byte and the byte that follows the backslash for it. */
const BYTE_ESCAPES = new Map<number, number>(
  Object.entries(COPY_ESCAPES).map(([c, escaped]) => [c.charCodeAt(0), escaped.charCodeAt(1)]),
);

/**
 * UTF-8 bytes as a field of COPY's text format, escaped like copyTextField. A multi-byte UTF-8 sequence holds
 * no byte below 0x80, so escaping byte by byte is exact. Bytes without anything to escape are returned as they
 * are (no copy): a payload stored as the API published it is never decoded to a string and encoded back.
 */
export function copyBytesField(bytes: Uint8Array): Uint8Array {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let extra = 0;
  for (const special of BYTE_ESCAPES.keys()) {
    for (let at = b.indexOf(special); at >= 0; at = b.indexOf(special, at + 1)) extra++;
  }
  if (extra === 0) return b;
  const out = Buffer.allocUnsafe(b.length + extra);
  let o = 0;
  for (let i = 0; i < b.length; i++) {
    const x = b[i]!;
    const letter = BYTE_ESCAPES.get(x);
    if (letter === undefined) out[o++] = x;
    else {
      out[o++] = BACKSLASH;
      out[o++] = letter;
    }
  }
  return out;
}

/**
 * Texts are joined into runs of about this many UTF-16 units before each run is written. One write per line costs
 * a call into the runtime per line; one run of the whole batch is flattened on the way, and a flat string over
 * 128 KB (64 K units beyond Latin-1) goes to V8's large-object space. `npm run bench -- copy-text`: 1,000 event
 * facts 1.5 to 2.2 ms against 8.7 to 11.2 joined whole, 20,000 rollup rows 9.9 to 13.4 against 14.2 to 21.1.
 */
const RUN_UNITS = 16_384;

/**
 * The input of one COPY: lines of text and runs of UTF-8 bytes, written into one buffer reserved for the worst
 * case (3 bytes per UTF-16 unit of a text; only the bytes written are touched), texts joined in runs of about
 * `RUN_UNITS`. Byte runs (payloads stored as the API published them) are copied as they are.
 */
export function copyData(parts: ReadonlyArray<string | Uint8Array>): Buffer {
  let bound = 0;
  for (const p of parts) bound += typeof p === 'string' ? p.length * 3 : p.byteLength;
  const out = Buffer.allocUnsafe(bound);
  let at = 0;
  let text = '';
  for (const p of parts) {
    if (typeof p === 'string') {
      text += p;
      if (text.length < RUN_UNITS) continue;
      at += out.write(text, at);
      text = '';
    } else {
      if (text) at += out.write(text, at);
      text = '';
      out.set(p, at);
      at += p.byteLength;
    }
  }
  if (text) at += out.write(text, at);
  return out.subarray(0, at);
}
