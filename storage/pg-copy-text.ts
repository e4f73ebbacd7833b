/**
 * Fields of COPY's text format (tab-separated, one row per line), for statements run with `Query.copyFrom`.
 */
const COPY_SPECIAL = /[\\\n\r\t]/;
const COPY_SPECIALS = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value as a field of COPY's text format: backslash, newline, carriage return and tab escaped, so that none
 * is read as an escape or a separator. NUL cannot be stored in PostgreSQL text at all; callers never pass it.
 */
export function copyTextField(value: string | number): string {
  const text = String(value);
  return COPY_SPECIAL.test(text) ? text.replace(COPY_SPECIALS, (c) => COPY_ESCAPES[c]!) : text;
}
